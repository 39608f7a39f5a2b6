"""python3.x functions: a worker of this interpreter (emulator/functions/worker.py).

The worker runs as a script, not as `-m emulator.functions.worker`: that would import the emulator package
(moto and all) into every worker, and a cold start would cost about 0.6 s instead of a few tens of ms.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eddy.emulator.functions.runtimes import python_template
from eddy.emulator.functions.runtimes.base import Runtime

WORKER = python_template.WORKER

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function


class PythonRuntime(Runtime):
    def command(self, function: Function) -> list[str]:
        return [sys.executable, str(WORKER), function.handler]

    def start(self, command: list[str], cwd: str, environment: dict[str, str]) -> Any:
        """Forked from the template that has imported boto3 when it can be (python_template.py), else by exec."""
        forked = python_template.start_worker(command, cwd, environment)
        return forked if forked is not None else super().start(command, cwd, environment)

    def environment(self, function: Function) -> dict[str, str]:
        return {**super().environment(function), "PYTHONUNBUFFERED": "1"}

    def search_path(self, function: Function) -> dict[str, str]:
        """The code first, then its layers where Lambda's Python finds them in /opt, then this interpreter's own."""
        layers = (
            [function.opt_dir / "python" / "lib" / self.name / "site-packages", function.opt_dir / "python"]
            if function.opt_dir is not None
            else []
        )
        return {"PYTHONPATH": os.pathsep.join([str(function.code_dir), *map(str, layers), *sys.path[1:]])}
