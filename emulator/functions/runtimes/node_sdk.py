"""The AWS SDK for JavaScript v3 that Lambda's Node.js runtime provides: where Eddy finds it, and how it gets there.

Lambda's nodejs18.x and later runtimes provide `@aws-sdk/*` (v3) to every function; Eddy gives a Node.js
function the same packages (node-packages.json), found in the first of these that holds them:

1. $EDDY_NODE_MODULES (a node_modules folder of your own);
2. .node/node_modules in a source checkout of Eddy (`make setup` installs it there);
3. a per-user cache, $XDG_CACHE_HOME/eddy/node/node_modules (default ~/.cache/eddy/node/node_modules), which
   `eddy setup node` fills from the npm registry with npm (an installed eddy works from any directory).

The first Node.js function that starts where none of them holds the SDK has it installed into the per-user cache
(`provide()`: one notice line, then npm, once for every project; a file lock keeps two processes from installing at
once). Where that cannot be done (no npm, no registry), the worker is told (NODE_SDK_MISSING), and a function's
import of @aws-sdk/* fails in the Node.js runtime's words followed by what to run.

    sdk_modules()        # the folder, or None (MISSING says what to run)
    provide()            # the folder, installed on first use; None if it could not be
    install(echo=print)  # what `eddy setup node` does
"""

from __future__ import annotations

import argparse
import fcntl
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

#: the packages Lambda's Node.js runtime provides (also what `make setup` installs into .node/)
PACKAGES = Path(__file__).with_name("node-packages.json")
#: a package every SDK install holds: its presence means the folder is an SDK install
PROBE = Path("@aws-sdk") / "client-dynamodb" / "package.json"
MISSING = (
    "the AWS SDK for JavaScript v3 that Lambda's Node.js runtime provides (@aws-sdk/*) is not installed: "
    "run `eddy setup node` (it needs npm; EDDY_NODE_MODULES may name a node_modules folder instead)"
)
NO_NPM = (
    "npm is not on PATH: install Node.js with npm (Debian/Ubuntu: `sudo apt-get install -y nodejs npm`; others: "
    "https://nodejs.org), then run `eddy setup node`"
)
#: an import of an @aws-sdk/* package the installed SDK holds none of (Lambda's runtime has every one)
NOT_PROVIDED = (
    "Eddy's Node.js runtime provides some of the AWS SDK for JavaScript v3 that Lambda's provides whole: the clients "
    "listed in Eddy's node-packages.json (`eddy doctor` shows where they are); bundle this package with the "
    "function's code (its node_modules), as a function does for any package its runtime lacks"
)
OUTDATED = (
    "the AWS SDK for JavaScript v3 installed for Eddy's Node.js functions lacks packages this Eddy provides: run "
    "`eddy setup node` (a checkout: `make setup`)"
)
#: the worker's variable saying what a failed @aws-sdk/* import is told (node_worker.mjs adds it to the error)
NODE_SDK_MISSING = "EDDY_NODE_SDK_MISSING"
_CHECKOUT = Path(__file__).resolve().parents[3]
_installing = threading.Lock()


def cache_dir() -> Path:
    """Where `eddy setup node` installs the SDK: $XDG_CACHE_HOME/eddy/node, default ~/.cache/eddy/node."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "eddy" / "node"


def candidates() -> list[Path]:
    """The node_modules folders looked in, in order."""
    found = [Path(os.environ["EDDY_NODE_MODULES"])] if os.environ.get("EDDY_NODE_MODULES") else []
    if (_CHECKOUT / "pyproject.toml").is_file():  # running from a source checkout
        found.append(_CHECKOUT / ".node" / "node_modules")
    found.append(cache_dir() / "node_modules")
    return found


def sdk_modules() -> Path | None:
    """The first node_modules folder holding the SDK, or None."""
    return next((folder for folder in candidates() if (folder / PROBE).is_file()), None)


def import_note(folder: Path | None) -> str:
    """What a function's failed import of an @aws-sdk/* package is told (node_worker.mjs adds it to the error): how
    to install the SDK (`folder` None: none is), how to update it (it lacks a package of node-packages.json), or
    that the package is not one Eddy provides."""
    if folder is None:
        return MISSING
    wanted = json.loads(PACKAGES.read_text())["dependencies"]
    return OUTDATED if any(not (folder / name / "package.json").is_file() for name in wanted) else NOT_PROVIDED


def install(target: Path | None = None, echo: Callable[[str], None] = print) -> Path:
    """Install the SDK's packages (node-packages.json) into `target` (default: the per-user cache) with npm;
    returns its node_modules. Raises SetupError when npm is missing or fails."""
    target = target or cache_dir()
    npm = shutil.which("npm")
    if npm is None:
        raise SetupError(NO_NPM)
    target.mkdir(parents=True, exist_ok=True)
    manifest = json.loads(PACKAGES.read_text())
    (target / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    echo(f"Installing {', '.join(manifest['dependencies'])} into {target} (npm) ...")
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=target, capture_output=True, text=True
    )
    if done.returncode != 0 or not (target / "node_modules" / PROBE).is_file():
        raise SetupError(
            f"npm install in {target} failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-1500:]}"
        )
    echo(f"The AWS SDK for JavaScript v3 is in {target / 'node_modules'}")
    return target / "node_modules"


class SetupError(Exception):
    """`eddy setup` could not do it: the message says what to do."""


def provide() -> Path | None:
    """The SDK's folder; the first time a function needs it and it is nowhere, installed into the per-user cache
    with npm (a notice line first: it takes a while); None when that fails (a warning says why and what to run)."""
    found = sdk_modules()
    if found is not None:
        return found
    if shutil.which("npm") is None:
        log.warning("%s: %s", MISSING, NO_NPM)
        return None
    target = cache_dir()
    with _installing:
        target.mkdir(parents=True, exist_ok=True)
        with open(target / ".install.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process installing: its result is waited for, then used
            found = sdk_modules()
            if found is not None:
                return found
            log.warning(
                "Node.js functions import the AWS SDK for JavaScript v3 that Lambda's runtime provides: "
                "installing it into %s with npm, once for every project (`eddy setup node` does the same)",
                target,
            )
            try:
                return install(target, echo=lambda line: None)
            except SetupError as error:
                log.warning("%s: %s", MISSING, error)
                return None


def register(commands: Any) -> None:
    setup = commands.add_parser("setup", help="install what a part of Eddy needs (node: the AWS SDK for JavaScript)")
    what = setup.add_subparsers(dest="part", required=True)
    node = what.add_parser(
        "node",
        help="install the AWS SDK for JavaScript v3 that Node.js functions import, "
        "into a per-user cache (~/.cache/eddy/node) with npm",
    )
    node.add_argument(
        "--dir",
        type=Path,
        default=None,
        help=f"install there instead (default: {cache_dir()}); set EDDY_NODE_MODULES to <dir>/node_modules to use it",
    )
    node.set_defaults(handler=_setup_node)


def _setup_node(args: argparse.Namespace) -> int:
    try:
        install(args.dir)
    except SetupError as error:
        print(f"eddy setup node: {error}", file=sys.stderr)
        return 1
    return 0
