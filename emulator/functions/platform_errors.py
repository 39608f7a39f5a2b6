"""The errors Lambda's platform reports for an invocation, not its runtime: a timeout, a runtime that exited, a
response too large to return (pure).

Each is a FunctionError with the error document Lambda answers for it (Invoke's payload with FunctionError
"Unhandled", an asynchronous invocation's responsePayload), in AWS's recorded words and key order (LocalStack's
AWS-validated snapshots, tests/aws/services/lambda_/test_lambda.snapshot.json):

    timeout      {"errorType": "Sandbox.Timedout",
                  "errorMessage": "RequestId: <id> Error: Task timed out after 1.00 seconds"}
                                                                      (TestLambdaBehavior::test_lambda_invoke_with_timeout)
    exit         {"errorType": "Runtime.ExitError",
                  "errorMessage": "RequestId: <id> Error: Runtime exited without providing a reason"}
                                            (TestLambdaErrors::test_lambda_handler_exit, test_lambda_runtime_exit)
    too large    {"errorMessage": "Response payload size exceeded maximum allowed payload size (6291556 bytes).",
                  "errorType": "Function.ResponseSizeTooLarge"}  (TestLambdaBaseFeatures::test_lambda_too_large_response)

A runtime that exits with a status or is killed by a signal is "Runtime exited with error: exit status 1" or
"... signal: segmentation fault", as Lambda's init (written in Go, whose os.ProcessState words these are) logs it
(seen in users' logs: "RequestId: <id> Error: Runtime exited with error: exit status 127" then "Runtime.ExitError").
"""

from __future__ import annotations

import signal
from typing import Any

from eddy.emulator.errors import FunctionError

#: the largest response Invoke returns: 6 MB and 100 bytes (AWS's recorded message names 6291556)
MAX_RESPONSE_BYTES = 6 * 1024 * 1024 + 100
TIMED_OUT, EXITED, TOO_LARGE = "Sandbox.Timedout", "Runtime.ExitError", "Function.ResponseSizeTooLarge"
#: a custom runtime without a `bootstrap` Lambda can start (its worker words the message: runtimes/runtime_api.py)
INVALID_ENTRYPOINT = "Runtime.InvalidEntrypoint"

#: Go's names of the signals a runtime dies of (syscall.Signal.String), as Lambda's messages show them
_SIGNAL_WORDS = {
    signal.SIGKILL: "killed",
    signal.SIGSEGV: "segmentation fault",
    signal.SIGABRT: "aborted",
    signal.SIGTERM: "terminated",
    signal.SIGBUS: "bus error",
    signal.SIGILL: "illegal instruction",
    signal.SIGFPE: "floating point exception",
    signal.SIGINT: "interrupt",
    signal.SIGHUP: "hangup",
    signal.SIGPIPE: "broken pipe",
    signal.SIGQUIT: "quit",
    signal.SIGTRAP: "trace/breakpoint trap",
}


def timed_out(request_id: str, timeout: float) -> FunctionError:
    return FunctionError(TIMED_OUT, f"RequestId: {request_id} Error: Task timed out after {float(timeout):.2f} seconds")


def exited(request_id: str, status: int | None) -> FunctionError:
    """The runtime's process ended while it ran an invocation (or loaded the handler): `status` is its exit status
    (0 or None: no reason given), or minus the signal that killed it (Python's Popen.returncode)."""
    if not status:
        reason = "Runtime exited without providing a reason"
    elif status > 0:
        reason = f"Runtime exited with error: exit status {status}"
    else:
        number = -status
        reason = f"Runtime exited with error: signal: {_SIGNAL_WORDS.get(number, f'signal {number}')}"
    return FunctionError(EXITED, f"RequestId: {request_id} Error: {reason}")


def response_too_large() -> FunctionError:
    return FunctionError(
        TOO_LARGE, f"Response payload size exceeded maximum allowed payload size ({MAX_RESPONSE_BYTES} bytes)."
    )


def document(error: FunctionError) -> dict[str, Any] | None:
    """The error document Lambda answers for a platform error (None: the runtime's own error, not the platform's)."""
    if error.error_type in (TIMED_OUT, EXITED):
        return {"errorType": error.error_type, "errorMessage": error.message}
    if error.error_type == TOO_LARGE:
        return {"errorMessage": error.message, "errorType": error.error_type}
    return None


def log_line(error: FunctionError) -> str | None:
    """The line Lambda's log shows for a runtime that exited or could not start (`RequestId: <id> Error: ...` then
    the error type)."""
    return f"{error.message}\n{error.error_type}\n" if error.error_type in (EXITED, INVALID_ENTRYPOINT) else None
