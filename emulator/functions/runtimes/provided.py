"""provided.al2023 and provided.al2 functions: the package's `bootstrap` (or a layer's) run against Lambda's Runtime
API, which a worker of this interpreter serves (runtimes/runtime_api.py, run as a script in isolated mode: the
function's PYTHONPATH or PYTHONHOME are its bootstrap's, not the worker's).

The runtime finds what Lambda's custom runtimes find: _HANDLER (the function's Handler, whatever the runtime makes of
it), LAMBDA_TASK_ROOT (the code folder, its working directory), and its layers' programs and libraries where Lambda
puts them on PATH and LD_LIBRARY_PATH (/opt/bin, /opt/lib), after the code folder's own lib/ (AWS Lambda Developer
Guide, "Defined runtime environment variables").
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from eddy.emulator.functions.runtimes.base import Runtime

WORKER = Path(__file__).with_name("runtime_api.py")

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function


class ProvidedRuntime(Runtime):
    #: any Handler the model allows (botocore's Handler shape: [^\s]+, at most 128): its meaning is the runtime's
    handler_pattern = re.compile(r"^[^\s]+$")
    handler_hint = "a name without spaces (the runtime reads it from _HANDLER)"

    def command(self, function: Function) -> list[str]:
        assert function.code_dir is not None
        candidates = [function.code_dir / "bootstrap", *([function.opt_dir / "bootstrap"] if function.opt_dir else [])]
        return [sys.executable, "-I", str(WORKER), *map(str, candidates)]

    def environment(self, function: Function) -> dict[str, str]:
        """Lambda's variables but AWS_EXECUTION_ENV, "not defined for OS-only runtimes (the provided runtime family)"
        (Lambda Developer Guide, "Defined runtime environment variables")."""
        environment = super().environment(function)
        del environment["AWS_EXECUTION_ENV"]
        return environment

    def search_path(self, function: Function) -> dict[str, str]:
        assert function.code_dir is not None
        opt = function.opt_dir
        programs = [*([opt / "bin"] if opt else []), *os.environ.get("PATH", os.defpath).split(os.pathsep)]
        libraries = [
            function.code_dir,
            function.code_dir / "lib",
            *([opt / "lib"] if opt else []),
            *filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)),
        ]
        return {"PATH": os.pathsep.join(map(str, programs)), "LD_LIBRARY_PATH": os.pathsep.join(map(str, libraries))}
