"""nodejs18.x / 20.x / 22.x functions: a worker of the machine's `node` running node_worker.mjs.

Every Node runtime name runs on the one `node` found on PATH (EDDY_NODE overrides it). The AWS SDK for
JavaScript v3 is what Lambda's Node runtime provides: found where node_sdk.py looks (a checkout's .node/ from
`make setup`, the per-user cache `eddy setup node` fills, or EDDY_NODE_MODULES), it is on NODE_PATH (for
require) and linked as node_modules next to the function's code folder (ES modules resolve packages by
walking up folders, not through NODE_PATH). Without it, a worker starts with a warning saying what to run.
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
from emulator.functions.runtimes.node_sdk import sdk_modules, warn_if_missing

if TYPE_CHECKING:
    from emulator.functions.registry import Function

BOOTSTRAP = Path(__file__).with_name("node_worker.mjs")


def node_executable() -> str:
    found = os.environ.get("EDDY_NODE") or shutil.which("node")
    if not found:
        raise InvalidParameterValueException(
            "Node.js functions need `node` (18 or later) on PATH or named by EDDY_NODE: install Node.js (Debian/Ubuntu: "
            "`sudo apt-get install -y nodejs npm`), then `eddy setup node` for the AWS SDK (`eddy doctor` checks)")
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
        sdk = sdk_modules()
        return [*layers, *([sdk] if sdk is not None else [])]

    def _link_modules(self, function: Function) -> None:
        """node_modules beside the code folder: what an ES module's `import '@aws-sdk/...'` finds."""
        assert function.code_dir is not None
        link = function.code_dir.parent / "node_modules"
        if link.is_symlink() or link.exists():
            return
        sdk = warn_if_missing()
        if sdk is not None:
            with suppress(FileExistsError):  # another worker of the same function linked it first
                link.symlink_to(sdk, target_is_directory=True)
