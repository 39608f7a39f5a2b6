"""Lambda runtimes Eddy runs without Docker: each says how to start a worker process for a function.

    runtime = runtime_of("nodejs20.x")          # InvalidParameterValueException for one Eddy cannot run
    argv, environment = runtime.command(function), runtime.environment(function)

A worker reads one JSON request per line on stdin ({"event", "context", "timeout"}) and answers one JSON
line on stdout: {"ok": true, "payload", "logs"} or {"ok": false, "errorType", "errorMessage", "body", "logs"}
(`body` is the error document that runtime's Lambda returns). invocation.py knows only this protocol.
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
    **{f"python3.{minor}": PythonRuntime(f"python3.{minor}") for minor in range(9, 15)},
    **{f"nodejs{major}.x": NodeRuntime(f"nodejs{major}.x") for major in (18, 20, 22, 24)},
    **{name: ProvidedRuntime(name) for name in ("provided.al2023", "provided.al2")},
}


def runtime_of(name: object) -> Runtime:
    runtime = RUNTIMES.get(name) if isinstance(name, str) else None
    if runtime is None:
        raise InvalidParameterValueException(
            f"The runtime parameter of {name} is not supported by Eddy: functions run locally as one of "
            f"{', '.join(RUNTIMES)}"
        )
    return runtime
