"""Lambda runtimes Eddy runs without Docker: each says how to start a worker process for a function.

    runtime = runtime_of("nodejs20.x")          # InvalidParameterValueException for one Eddy cannot run
    argv, environment = runtime.command(function), runtime.environment(function)

A worker reads one JSON request per line on stdin ({"event", "context", "timeout"}) and answers one JSON
line on stdout: {"ok": true, "payload", "logs"} or {"ok": false, "errorType", "errorMessage", "body", "logs"}
(`body` is the error document that runtime's Lambda returns). While it runs an invocation, a worker sends what the
function writes as it writes it, {"log": <text>} lines before the answer: the log of an invocation stopped at its
timeout, which never answers (runtimes/workers.py keeps them). invocation.py knows only this protocol.
A custom runtime's worker (provided.py) serves Lambda's Runtime API to the function's `bootstrap` and speaks the
same protocol; its answer may also be {"ok": false, "exited": <status>}: the runtime's process ended while it ran
the invocation (Runtime.ExitError), and the worker is not used again.
"""

from __future__ import annotations

from eddy.emulator.errors import InvalidParameterValueException
from eddy.emulator.functions.runtimes.base import Runtime
from eddy.emulator.functions.runtimes.node import NodeRuntime
from eddy.emulator.functions.runtimes.provided import ProvidedRuntime
from eddy.emulator.functions.runtimes.python import PythonRuntime

RUNTIMES: dict[str, Runtime] = {
    **{f"python3.{minor}": PythonRuntime(f"python3.{minor}") for minor in range(8, 15)},
    **{f"nodejs{major}.x": NodeRuntime(f"nodejs{major}.x") for major in (16, 18, 20, 22, 24)},
    **{name: ProvidedRuntime(name) for name in ("provided.al2023", "provided.al2")},
}
#: the runtimes Lambda makes and changes functions with, in the order its refusal of another lists them
#: (AWS-recorded: LocalStack's test_lambda_api.snapshot.json, TestLambdaFunction::test_create_lambda_exceptions,
#: "invalid_runtime_exc", 24-11-2025)
CREATABLE = (
    "nodejs20.x", "python3.14", "provided.al2023", "python3.12", "python3.13", "nodejs24.x", "nodejs22.x", "java25",
    "python3.10", "python3.11", "java21", "ruby3.3", "ruby3.4", "ruby3.2", "python3.8", "python3.9", "java17",
    "nodejs16.x", "dotnet10", "dotnet8", "java11", "dotnet6", "nodejs18.x", "provided.al2", "java8.al2",
)  # fmt: skip
#: runtimes past their deprecation's last day of creating and updating functions (the Lambda Developer Guide's
#: "Deprecated runtimes" table)
DEPRECATED = frozenset({
    "python3.7", "python3.6", "python2.7", "nodejs14.x", "nodejs12.x", "nodejs10.x", "nodejs8.10", "nodejs6.10",
    "nodejs4.3", "nodejs4.3-edge", "nodejs", "java8", "go1.x", "dotnetcore3.1", "dotnetcore2.1", "dotnetcore2.0",
    "dotnetcore1.0", "ruby2.7", "ruby2.5", "provided", "dotnet5.0", "dotnet7",
})  # fmt: skip


def runtime_of(name: object) -> Runtime:
    """The runtime that runs a function of Runtime `name`, or Lambda's refusal of the name (a deprecated runtime, or
    none Lambda has: AWS-recorded TestRuntimeValidation::test_create_deprecated_function_runtime_with_validation_
    enabled and test_create_lambda_exceptions, "uppercase_runtime_exc"), or Eddy's of a runtime it cannot run here."""
    runtime = RUNTIMES.get(name) if isinstance(name, str) else None
    if runtime is not None:
        return runtime
    if name in DEPRECATED:
        raise InvalidParameterValueException(
            f"The runtime parameter of {name} is no longer supported for creating or updating AWS Lambda functions. "
            "We recommend you use a supported runtime while creating or updating functions."
        )
    if name not in CREATABLE:
        raise InvalidParameterValueException(
            f"Value {name} at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: "
            f"[{', '.join(CREATABLE)}] or be a valid ARN"
        )
    raise InvalidParameterValueException(
        f"The runtime parameter of {name} is not supported by Eddy: functions run locally as one of "
        f"{', '.join(RUNTIMES)}"
    )
