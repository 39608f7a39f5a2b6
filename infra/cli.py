"""`eddy up` and `eddy down`: apply a stack file (or SAM template) with boto3 to Eddy or any endpoint.

    eddy up -f stack.yaml [--endpoint-url URL] [--region R] [--profile P] [--dry-run]
    eddy down -f stack.yaml [...]

The endpoint is Eddy's (http://127.0.0.1:4566, or $EDDY_ENDPOINT_URL) unless told otherwise; LocalStack's
works the same; `--endpoint-url aws` means AWS itself. A stack file's mistakes, an endpoint that does not answer
or refuses are answered by `eddy` itself (emulator/cli/failures.py): one line, a non-zero status.
"""

from __future__ import annotations

import argparse
import os

from .apply import Clients, down, summary, up
from .load import load_stack

DEFAULT_ENDPOINT = "http://127.0.0.1:4566"


def register(commands: argparse._SubParsersAction) -> None:
    for name, helptext in (("up", "create or change what a stack file declares, idempotently"),
                           ("down", "remove what a stack file declares")):
        command = commands.add_parser(name, help=helptext)
        command.add_argument("-f", "--file", required=True, help="a stack file, or a SAM / CloudFormation template")
        command.add_argument("--endpoint-url", default=os.environ.get("EDDY_ENDPOINT_URL", DEFAULT_ENDPOINT),
                             help=f"where to apply it (default: {DEFAULT_ENDPOINT}; 'aws' for AWS itself)")
        command.add_argument("--region", default=None, help="default: the stack's region, $AWS_DEFAULT_REGION, us-east-1")
        command.add_argument("--profile", default=None, help="an AWS profile for credentials")
        command.add_argument("--dry-run", action="store_true", help="show the plan, change nothing")
        command.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    stack = load_stack(args.file)  # a StackError is answered by `eddy` in one line, exit status 2
    region = args.region or stack.region or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    endpoint = None if args.endpoint_url == "aws" else args.endpoint_url
    clients = Clients(endpoint, region, args.profile)
    where = endpoint or f"AWS ({region})"
    print(f"{'Plan for' if args.dry_run else 'Applying'} {args.file} {'on' if args.command == 'up' else 'removal from'} {where}:")
    actions = (up if args.command == "up" else down)(stack, clients, dry_run=args.dry_run)
    print(("Would be: " if args.dry_run else "") + summary(actions))
    return 0
