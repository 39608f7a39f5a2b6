"""`eddy up` and `eddy down`: deploy a stack file (or SAM / CloudFormation template) as a CloudFormation stack on
Eddy or any endpoint, and delete it.

    eddy up -f stack.yaml [--stack-name NAME] [--endpoint-url URL] [--region R] [--profile P] [--dry-run]
    eddy down -f stack.yaml [...]

The endpoint is Eddy's (http://127.0.0.1:4566, or $EDDY_ENDPOINT_URL) unless told otherwise; LocalStack's
works the same; `--endpoint-url aws` means AWS itself. A stack file's mistakes, a stack that fails, an endpoint
that does not answer or refuses are answered by `eddy` itself (emulator/cli/failures.py): one line, a non-zero
status.
"""

from __future__ import annotations

import argparse
import os

from .apply import Clients, down, summary, up
from .load import load_stack

DEFAULT_ENDPOINT = "http://127.0.0.1:4566"


def register(commands: argparse._SubParsersAction) -> None:
    for name, helptext in (
        ("up", "deploy a stack file or template as a CloudFormation stack, idempotently"),
        ("down", "delete the stack a stack file or template was deployed as"),
    ):
        command = commands.add_parser(name, help=helptext)
        command.add_argument("-f", "--file", required=True, help="a stack file, or a SAM / CloudFormation template")
        command.add_argument("--stack-name", default=None, help="the stack (default: the file's name without .yaml)")
        command.add_argument(
            "--endpoint-url",
            default=os.environ.get("EDDY_ENDPOINT_URL", DEFAULT_ENDPOINT),
            help=f"where to deploy it (default: {DEFAULT_ENDPOINT}; 'aws' for AWS itself)",
        )
        command.add_argument(
            "--region", default=None, help="default: the stack's region, $AWS_DEFAULT_REGION, us-east-1"
        )
        command.add_argument("--profile", default=None, help="an AWS profile for credentials")
        command.add_argument("--dry-run", action="store_true", help="show the change set, change nothing")
        command.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    source = load_stack(args.file, args.stack_name)  # a StackError is answered by `eddy` in one line, exit status 2
    region = args.region or source.region or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    endpoint = None if args.endpoint_url == "aws" else args.endpoint_url
    clients = Clients(endpoint, region, args.profile)
    where = endpoint or f"AWS ({region})"
    verb = "Plan for" if args.dry_run else "Deploying" if args.command == "up" else "Deleting"
    print(f"{verb} {args.file} as stack {source.stack_name} on {where}:")
    actions = (up if args.command == "up" else down)(source, clients, dry_run=args.dry_run)
    print(("Would be: " if args.dry_run else "") + summary(actions))
    return 0
