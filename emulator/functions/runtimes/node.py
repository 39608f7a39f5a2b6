"""nodejs18.x / 20.x / 22.x functions: a worker of the machine's `node` running node_worker.mjs.

Every Node runtime name runs on the one `node` found on PATH (EDDY_NODE overrides it). The AWS SDK for
JavaScript v3 is what Lambda's Node runtime provides: `make setup` installs it into .node/node_modules,
which is on NODE_PATH (for require) and linked as node_modules next to the function's code folder (ES
modules resolve packages by walking up folders, not through NODE_PATH).
"""

from __future__ import annotations

import os
import re
import shutil
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from emulator.errors import InvalidParameterValueException
from emulator.functions.runtimes.base import Runtime

if TYPE_CHECKING:
    from emulator.functions.registry import Function

BOOTSTRAP = Path(__file__).with_name("node_worker.mjs")
#: the SDK modules the set-up installs (EDDY_NODE_MODULES overrides)
SDK_MODULES = Path(os.environ.get("EDDY_NODE_MODULES") or Path(__file__).resolve().parents[3] / ".node" / "node_modules")


def node_executable() -> str:
    found = os.environ.get("EDDY_NODE") or shutil.which("node")
    if not found:
        raise InvalidParameterValueException("Node.js functions need `node` on PATH: run `make setup`")
    return found


class NodeRuntime(Runtime):
    handler_pattern = re.compile(r"^[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$")
    handler_hint = "file.function (e.g. index.handler)"

    def valid_handler(self, handler: object) -> bool:
        return super().valid_handler(handler) and ".." not in str(handler).split("/") and not str(handler).startswith("/")

    def command(self, function: Function) -> list[str]:
        self._link_modules(function)
        return [node_executable(), str(BOOTSTRAP), function.handler]

    def search_path(self, function: Function) -> dict[str, str]:
        return {"NODE_PATH": os.pathsep.join(str(path) for path in self.module_paths(function))}

    def module_paths(self, function: Function) -> list[Path]:
        """Its layers where Lambda's Node.js finds them in /opt (NODE_PATH), then the SDK the runtime provides."""
        opt = function.opt_dir
        major = self.name.removeprefix("nodejs").removesuffix(".x")
        layers = [opt / "nodejs" / f"node{major}" / "node_modules", opt / "nodejs" / "node_modules"] if opt else []
        return [*layers, SDK_MODULES]

    def _link_modules(self, function: Function) -> None:
        """node_modules beside the code folder: what an ES module's `import '@aws-sdk/...'` finds."""
        assert function.code_dir is not None
        link = function.code_dir.parent / "node_modules"
        if link.is_symlink() or link.exists():
            return
        if SDK_MODULES.is_dir():
            with suppress(FileExistsError):  # another worker of the same function linked it first
                link.symlink_to(SDK_MODULES, target_is_directory=True)
