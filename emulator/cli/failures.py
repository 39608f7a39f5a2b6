"""What the `eddy` command answers when a command fails in an expected way: one line that says what to do, and a status.

    status = answer_failures(lambda: args.handler(args), prefix="eddy tail", verbose=args.verbose)

Every command runs through `answer_failures`, so no command needs a try/except of its own. A failure a user can
meet in ordinary use (another process owns the state directory, Java is missing, no credentials, nothing listening
on the endpoint, a stack file with mistakes, Ctrl-C) is one line on stderr and a non-zero status; `--verbose` adds
the traceback above it. Anything else is a bug and keeps its traceback.

The failures are known by their classes' qualified names, so this module imports neither botocore nor pyspark: a
command that never touches Spark does not start loading it to answer a failure.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from typing import Callable

#: exit status 130 is what a shell reports for a command ended by Ctrl-C (128 + SIGINT)
INTERRUPTED = 130


class CannotListenError(Exception):
    """`eddy serve` cannot bind its address: another program has the port, or the host is not this machine's."""

    def __init__(self, host: str, port: int, error: OSError) -> None:
        reason = os.strerror(error.errno) if error.errno else str(error)
        super().__init__(
            f"cannot listen on {host}:{port}: {reason}: stop what uses the port, "
            f"or pass another --port (--port 0: any free one)"
        )


def _said(status: int) -> Callable[[BaseException], tuple[str, int]]:
    """The error's own message (it says what to do), with this exit status."""
    return lambda error: (str(error), status)


def _corrupt_state(error: BaseException) -> tuple[str, int]:
    return (
        f"cannot start on this state directory: {error}; move the directory aside (or restore it from a "
        f"copy) and start again",
        1,
    )


def _no_credentials(error: BaseException) -> tuple[str, int]:
    return (
        "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (any values do for Eddy), "
        "or pass --profile",
        1,
    )


def _no_region(error: BaseException) -> tuple[str, int]:
    return "no AWS region: pass --region or set AWS_DEFAULT_REGION", 1


def _endpoint_connection(error: BaseException) -> tuple[str, int]:
    endpoint = getattr(error, "kwargs", {}).get("endpoint_url", "the endpoint")
    return (
        f"nothing answers at {endpoint}: start Eddy there (eddy serve --port PORT) "
        f"or pass the --endpoint-url it serves on",
        1,
    )


def _client_error(error: BaseException) -> tuple[str, int]:
    response = getattr(error, "response", {}).get("Error", {})
    operation = getattr(error, "operation_name", "a request")
    return f"{operation} refused: {response.get('Code', 'Error')}: {response.get('Message', error)}", 1


#: each expected failure by the qualified name of its class (or of a base class): how to say it, and the status
EXPECTED: dict[str, Callable[[BaseException], tuple[str, int]]] = {
    "eddy.emulator.storage.ownership.StateDirectoryInUseError": _said(2),
    "eddy.emulator.storage.wal.CorruptStateError": _corrupt_state,
    "eddy.emulator.cli.failures.CannotListenError": _said(1),
    "eddy.infra.stack.StackError": _said(2),
    "eddy.spark_batch.errors.SparkBatchError": _said(1),
    "botocore.exceptions.NoCredentialsError": _no_credentials,
    "botocore.exceptions.NoRegionError": _no_region,
    "botocore.exceptions.EndpointConnectionError": _endpoint_connection,
    "botocore.exceptions.ClientError": _client_error,
    "botocore.exceptions.BotoCoreError": _said(1),
}


def expected_failure(error: BaseException) -> tuple[str, int] | None:
    """The line and exit status for an expected failure (the most specific class wins); None for anything else."""
    for cls in type(error).__mro__:
        answer = EXPECTED.get(f"{cls.__module__}.{cls.__qualname__}")
        if answer is not None:
            return answer(error)
    return None


def answer_failures(command: Callable[[], int], *, prefix: str, verbose: bool = False) -> int:
    """Run `command`; an expected failure becomes one line on stderr and its status (Ctrl-C: 130)."""
    try:
        return command()
    except KeyboardInterrupt:
        return interrupted(prefix, verbose)
    except Exception as error:
        if _interrupting(error):
            return interrupted(prefix, verbose)
        answer = expected_failure(error)
        if answer is None:
            raise
        if verbose:
            traceback.print_exc()
        line, status = answer
        print(f"{prefix}: {line}", file=sys.stderr, flush=True)
        return status


def _interrupting(error: BaseException) -> bool:
    """A failure Ctrl-C caused elsewhere: Spark's JVM got the signal too and went away under a running job."""
    chain = [error, error.__context__, error.__cause__]
    return any(isinstance(link, KeyboardInterrupt) for link in chain)


def interrupted(prefix: str, verbose: bool = False) -> int:
    """Ctrl-C: one line, status 130 (the traceback too with --verbose)."""
    if verbose:
        traceback.print_exc()
    # the JVM got Ctrl-C as well: py4j would log every call that finds its gateway gone, at exit too
    logging.getLogger("py4j").setLevel(logging.CRITICAL + 1)
    print(f"{prefix}: interrupted", file=sys.stderr, flush=True)
    return INTERRUPTED
