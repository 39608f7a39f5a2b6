"""python3.x functions: a worker of this interpreter (emulator/functions/worker.py)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from emulator.functions.runtimes.base import Runtime

if TYPE_CHECKING:
    from emulator.functions.registry import Function


class PythonRuntime(Runtime):
    def command(self, function: Function) -> list[str]:
        return [sys.executable, "-m", "emulator.functions.worker", function.handler]

    def environment(self, function: Function) -> dict[str, str]:
        return {**super().environment(function), "PYTHONUNBUFFERED": "1"}

    def search_path(self, function: Function) -> dict[str, str]:
        return {"PYTHONPATH": os.pathsep.join([str(function.code_dir), *sys.path[1:]])}
