"""The AWS SDK for JavaScript v3 that Lambda's Node.js runtime provides: where Eddy finds it, and how it gets there.

Lambda's nodejs18.x and later runtimes provide `@aws-sdk/*` (v3) to every function; Eddy gives a Node.js
function the same packages (node-packages.json), found in the first of these that holds them:

1. $EDDY_NODE_MODULES (a node_modules folder of your own);
2. .node/node_modules in a source checkout of Eddy (`make setup` installs it there);
3. a per-user cache, $XDG_CACHE_HOME/eddy/node/node_modules (default ~/.cache/eddy/node/node_modules), which
   `eddy setup node` fills from the npm registry with npm (an installed eddy works from any directory).

    sdk_modules()        # the folder, or None (MISSING says what to run)
    install(echo=print)  # what `eddy setup node` does
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

#: the packages Lambda's Node.js runtime provides (also what `make setup` installs into .node/)
PACKAGES = Path(__file__).with_name("node-packages.json")
#: a package every SDK install holds: its presence means the folder is an SDK install
PROBE = Path("@aws-sdk") / "client-dynamodb" / "package.json"
MISSING = ("the AWS SDK for JavaScript v3 that Lambda's Node.js runtime provides (@aws-sdk/*) is not installed: "
           "run `eddy setup node` (it needs npm; EDDY_NODE_MODULES may name a node_modules folder instead)")
_CHECKOUT = Path(__file__).resolve().parents[3]


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


def install(target: Path | None = None, echo: Callable[[str], None] = print) -> Path:
    """Install the SDK's packages (node-packages.json) into `target` (default: the per-user cache) with npm;
    returns its node_modules. Raises SetupError when npm is missing or fails."""
    target = target or cache_dir()
    npm = shutil.which("npm")
    if npm is None:
        raise SetupError("npm is not on PATH: install Node.js with npm (Debian/Ubuntu: "
                         "`sudo apt-get install -y nodejs npm`; others: https://nodejs.org), then run `eddy setup node`")
    target.mkdir(parents=True, exist_ok=True)
    manifest = json.loads(PACKAGES.read_text())
    (target / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    echo(f"Installing {', '.join(manifest['dependencies'])} into {target} (npm) ...")
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=target,
                          capture_output=True, text=True)
    if done.returncode != 0 or not (target / "node_modules" / PROBE).is_file():
        raise SetupError(f"npm install in {target} failed (exit {done.returncode}): "
                         f"{(done.stderr or done.stdout).strip()[-1500:]}")
    echo(f"The AWS SDK for JavaScript v3 is in {target / 'node_modules'}")
    return target / "node_modules"


class SetupError(Exception):
    """`eddy setup` could not do it: the message says what to do."""


def warn_if_missing() -> Path | None:
    """The SDK's folder; when there is none, a warning saying what to run (a function importing @aws-sdk/* will
    fail to import it, in the Node.js runtime's words, as it would on a runtime without the SDK)."""
    found = sdk_modules()
    if found is None:
        log.warning(MISSING)
    return found


def register(commands: Any) -> None:
    setup = commands.add_parser("setup", help="install what a part of Eddy needs (node: the AWS SDK for JavaScript)")
    what = setup.add_subparsers(dest="part", required=True)
    node = what.add_parser("node", help="install the AWS SDK for JavaScript v3 that Node.js functions import, "
                                        "into a per-user cache (~/.cache/eddy/node) with npm")
    node.add_argument("--dir", type=Path, default=None, help=f"install there instead (default: {cache_dir()}); "
                                                             "set EDDY_NODE_MODULES to <dir>/node_modules to use it")
    node.set_defaults(handler=_setup_node)


def _setup_node(args: argparse.Namespace) -> int:
    try:
        install(args.dir)
    except SetupError as error:
        print(f"eddy setup node: {error}", file=sys.stderr)
        return 1
    return 0
