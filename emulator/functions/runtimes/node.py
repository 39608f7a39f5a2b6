"""nodejs16.x / 18.x / 20.x / 22.x / 24.x functions: a worker of the machine's `node` running node_worker.mjs.

Every Node runtime name runs on the one `node` found on PATH (EDDY_NODE overrides it). The AWS SDK for
JavaScript v3 is what Lambda's Node runtime provides: found where node_sdk.py looks (a checkout's .node/ from
`make setup`, the per-user cache `eddy setup node` fills, or EDDY_NODE_MODULES), it is on NODE_PATH (for
require) and linked as node_modules next to the function's code folder (ES modules resolve packages by
walking up folders, not through NODE_PATH). The first worker to start without it has it installed (node_sdk.provide);
if that fails, the worker starts told so, and an import of @aws-sdk/* fails naming what to run.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from eddy.emulator.errors import InvalidParameterValueException
from eddy.emulator.functions.runtimes.base import Runtime
from eddy.emulator.functions.runtimes.node_sdk import NODE_SDK_MISSING, import_note, provide, sdk_modules

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function

BOOTSTRAP = Path(__file__).with_name("node_worker.mjs")
#: the AWS SDK for JavaScript v3 (@aws-sdk/core's emitWarningIfUnsupportedVersion) warns once per process, through
#: `process.emitWarning`, when the node running it is older than it wants; this variable is its own way to stay quiet
SDK_NODE_WARNING_DISABLED = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"


@functools.cache
def node_major_version(executable: str) -> int | None:
    """The major version of `executable` (`node --version` says e.g. v20.20.2); None if it cannot tell."""
    try:
        answer = subprocess.run(
            [executable, "--version"], check=False, capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v(\d+)\.", answer.strip())
    return int(match.group(1)) if match else None


def node_executable() -> str:
    found = os.environ.get("EDDY_NODE") or shutil.which("node")
    if not found:
        raise InvalidParameterValueException(
            "Node.js functions need `node` (18 or later) on PATH or named by EDDY_NODE: install Node.js (Debian/Ubuntu: "
            "`sudo apt-get install -y nodejs npm`), then `eddy setup node` for the AWS SDK (`eddy doctor` checks)"
        )
    return found


class NodeRuntime(Runtime):
    handler_pattern = re.compile(
        r"^[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$"
    )
    handler_hint = "file.function (e.g. index.handler)"
    restarts_failed_init = True  # Lambda's Node.js runtime exits when its Init fails (node_worker.mjs)

    def valid_handler(self, handler: object) -> bool:
        return (
            super().valid_handler(handler) and ".." not in str(handler).split("/") and not str(handler).startswith("/")
        )

    def command(self, function: Function) -> list[str]:
        self._link_modules(function)
        return [node_executable(), str(BOOTSTRAP), function.handler]

    def environment(self, function: Function) -> dict[str, str]:
        """Lambda's variables; and when the function's runtime is newer than the machine's `node` (nodejs22.x run
        by node 20), the SDK's warning that the node is too old is about this machine, not the function's Lambda
        runtime: the SDK is told not to print it (on its own runtime's node it would not). The worker is told what
        a failed @aws-sdk/* import should say (node_sdk.import_note: install the SDK, update it, or bundle the
        package)."""
        environment = super().environment(function)
        environment[NODE_SDK_MISSING] = import_note(provide())
        local = node_major_version(node_executable())
        if local is not None and local < self.major:
            environment.setdefault(SDK_NODE_WARNING_DISABLED, "true")
        return environment

    @property
    def major(self) -> int:
        return int(self.name.removeprefix("nodejs").removesuffix(".x"))

    def search_path(self, function: Function) -> dict[str, str]:
        return {"NODE_PATH": os.pathsep.join(str(path) for path in self.module_paths(function))}

    def module_paths(self, function: Function) -> list[Path]:
        """Its layers where Lambda's Node.js finds them in /opt (NODE_PATH), then the SDK the runtime provides."""
        opt = function.opt_dir
        layers = [opt / "nodejs" / f"node{self.major}" / "node_modules", opt / "nodejs" / "node_modules"] if opt else []
        sdk = sdk_modules()
        return [*layers, *([sdk] if sdk is not None else [])]

    def _link_modules(self, function: Function) -> None:
        """node_modules beside the code folder: what an ES module's `import '@aws-sdk/...'` finds."""
        assert function.code_dir is not None
        link = function.code_dir.parent / "node_modules"
        if link.is_symlink() or link.exists():
            return
        sdk = sdk_modules()
        if sdk is not None:
            with suppress(FileExistsError):  # another worker of the same function linked it first
                link.symlink_to(sdk, target_is_directory=True)
