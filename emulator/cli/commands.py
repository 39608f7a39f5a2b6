"""The `eddy` command.

    eddy [--verbose] COMMAND ...    --verbose: a failure's traceback too (any command; serve: every request)
    eddy serve [--host 127.0.0.1] [--port 4566] [--state-dir DIR | --in-memory] [--stack FILE]
    eddy tail TABLE                 follow a table's stream
    eddy tail --queue NAME          a queue's messages (without receiving them); --function NAME, --stack NAME
    eddy up -f stack.yaml           deploy a stack file or template as a stack (eddy down deletes it)
    eddy demo                       the end-to-end tour
    eddy export / eddy spark <job>  the Spark batch path (spark_batch/; needs `pip install "eddy[spark]"`)
    eddy setup node                 install the AWS SDK for JavaScript that Node.js functions import
    eddy doctor                     check Python, Java, Node.js and its SDK, the port and the state directory

An expected failure is one line on stderr and a non-zero status (failures.py); `eddy serve` on a state
directory another process owns exits with status 2.
"""

from __future__ import annotations

import argparse
import sys

from typing import Any

from eddy.emulator.cli.failures import answer_failures, interrupted
from eddy.emulator.cli.serve import register as register_serve


def main(argv: list[str] | None = None) -> int:
    try:
        args = _arguments(argv)
    except KeyboardInterrupt:  # Ctrl-C while the commands are being loaded
        return interrupted("eddy", verbose="--verbose" in (sys.argv[1:] if argv is None else argv))
    words = [args.command] + [getattr(args, name) for name in ("job", "action") if getattr(args, name, None)]
    return answer_failures(lambda: args.handler(args), prefix=" ".join(["eddy", *words]), verbose=args.verbose)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="eddy", description="A local emulator of DynamoDB Streams and triggers.")
    parser.add_argument(
        "--verbose", action="store_true", help="show the traceback of a failure (and, for serve, log every request)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    register_serve(commands)  # serve.py
    if _command_word(argv) != "serve":  # the others' modules (infra/, Spark's, doctor's) load only for them
        _register_others(commands)
    _everywhere(
        parser,
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the traceback of a failure (and, for serve, log every request)",
    )
    return parser.parse_args(argv)


def _command_word(argv: list[str] | None) -> str | None:
    """The subcommand named (the first word that is not an option), None when none is."""
    return next((word for word in (sys.argv[1:] if argv is None else argv) if not word.startswith("-")), None)


def _register_others(commands: Any) -> None:
    """Every subcommand but serve (`eddy --help` lists them all; `eddy serve` loads none of their modules)."""
    from eddy.infra.cli import register as register_infra
    from eddy.infra.demo import register as register_demo
    from eddy.spark_batch.extra import missing_modules, register_missing

    from eddy.emulator.cli.doctor import register as register_doctor
    from eddy.emulator.functions.runtimes.node_sdk import register as register_setup
    from eddy.emulator.cli.tail import register as register_tail

    register_tail(commands)
    register_infra(commands)
    register_demo(commands)
    if missing_modules():  # installed without Spark's extra: `eddy spark` / `eddy export` say what to install
        register_missing(commands)
    else:
        from eddy.spark_batch.cli import register as register_spark

        register_spark(commands)
    register_setup(commands)
    register_doctor(commands)


def _everywhere(parser: argparse.ArgumentParser, *flags: str, **options: Any) -> None:
    """Add a global option to every subcommand too (`eddy tail --verbose` as well as `eddy --verbose tail`)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subcommand in action.choices.values():
                subcommand.add_argument(*flags, **options)
                _everywhere(subcommand, *flags, **options)


if __name__ == "__main__":
    sys.exit(main())
