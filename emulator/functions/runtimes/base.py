"""What every runtime provides: the worker's command line, its environment, the handler's syntax."""

from __future__ import annotations

import os
import re
import subprocess
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from eddy.emulator.processes import children

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function


class Runtime(ABC):
    #: which Handler values this runtime accepts
    handler_pattern: re.Pattern[str] = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")
    handler_hint = "module.function"
    #: whether the worker ends its Init's failure by waiting to be ended (the invoker starts it again for the next
    #: invocation: Lambda's retried Init), rather than retrying the Init itself
    restarts_failed_init = False

    def __init__(self, name: str) -> None:
        self.name = name

    def valid_handler(self, handler: object) -> bool:
        return isinstance(handler, str) and len(handler) <= 128 and bool(self.handler_pattern.match(handler))

    @abstractmethod
    def command(self, function: Function) -> list[str]:
        """The worker's argv."""

    @abstractmethod
    def search_path(self, function: Function) -> dict[str, str]:
        """Where the runtime finds the function's modules (set after the function's own variables)."""

    def start(self, command: list[str], cwd: str, environment: dict[str, str]) -> Any:
        """The worker's process: a subprocess.Popen, or what a runtime starts in its stead with the same parts
        (python.py: a worker forked from a template), its stdin and stdout pipes, in a session of its own."""
        return children.start(  # it dies with this process, however this one ends
            command,
            cwd=cwd,
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            start_new_session=True,  # a terminal's Ctrl-C is Eddy's to answer (it stops its workers), not theirs
        )

    def environment(self, function: Function) -> dict[str, str]:
        """The variables Lambda sets for this runtime (the function's own come on top)."""
        environment = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
        environment.update(
            {
                "AWS_ACCESS_KEY_ID": "eddy",
                "AWS_SECRET_ACCESS_KEY": "eddy",
                "AWS_SESSION_TOKEN": "eddy",
                **lambda_variables(function),
                "LAMBDA_TASK_ROOT": str(function.code_dir),
                "_HANDLER": function.handler,
                "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",  # a provisioned environment's worker is told so
                "LAMBDA_RUNTIME_DIR": os.path.dirname(__file__),
                "TZ": ":UTC",
            }
        )
        return environment


def lambda_variables(function: Function) -> dict[str, str]:
    """The variables Lambda sets that describe the function: its region, name, version, memory, log group and
    runtime (a zip function's worker gets them with the rest of Lambda's; a registered callable these only,
    its credentials being the process's)."""
    return {
        "AWS_REGION": function.region,
        "AWS_DEFAULT_REGION": function.region,
        "AWS_LAMBDA_FUNCTION_NAME": function.name,
        "AWS_LAMBDA_FUNCTION_VERSION": function.version,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(function.memory_size),
        "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{function.name}",
        "AWS_EXECUTION_ENV": "AWS_Lambda_" + function.runtime,
    }
