"""`eddy doctor`: is this machine ready for Eddy? One line per check, each problem with the command that fixes it.

    eddy doctor [--host 127.0.0.1] [--port 4566] [--state-dir .eddy]

    ok       Python        3.11.2 (/home/me/.venv/bin/python)
    ok       Spark extra   pyspark 4.0.1, pyarrow 21.0.0
    missing  SAM extra     aws-sam-translator (for SAM templates): pip install "eddy[sam]"
    missing  Java          not found (needed for the Spark batch path): sudo apt-get install -y openjdk-17-jre-headless ...
    ok       Node.js       v20.19.2 (/usr/bin/node)
    missing  Node.js SDK   ... run `eddy setup node`
    ok       port          127.0.0.1:4566 is free
    ok       state dir     .eddy (will be created)
    ok       disk          52,613,722,112 bytes free under .eddy

"missing" is a part only some features need (Spark, SAM templates, Node.js functions): the status stays 0. "FAIL" is what
`eddy serve` itself needs (the port, the state directory, room on its disk; an Eddy serving at the port that refuses
writes because its disk is full): the status is 1.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import json
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from eddy.emulator.cli.serve_flags import port_number
from eddy.emulator.storage.disk import SPARE_BYTES, free_bytes
from eddy.emulator.storage.ownership import current_owner, describe_owner
from eddy.emulator.functions.runtimes.node_sdk import MISSING as SDK_MISSING, sdk_modules
from eddy.spark_batch.extra import INSTALL as SPARK_INSTALL, missing_modules
from eddy.emulator.cloudformation.transforms import INSTALL_SAM

JAVA_INSTALL = "sudo apt-get install -y openjdk-17-jre-headless (or any Java 17+; JAVA_HOME may point at it)"
NODE_INSTALL = "sudo apt-get install -y nodejs npm (or Node.js 18+ from https://nodejs.org; EDDY_NODE may name it)"


@dataclass
class Check:
    status: str  # ok, missing, FAIL
    name: str
    detail: str

    def line(self) -> str:
        return f"{self.status:<8} {self.name:<13} {self.detail}"


def _runtime_check(
    name: str, executable: str | None, version: tuple[list[str], str, int], needed_by: str, install: str
) -> Check:
    """A program's check: found, answering its version, at least `version`'s minimum (argv, pattern, minimum)."""
    if not executable or not Path(executable).exists():
        return Check("missing", name, f"not found (needed for {needed_by}): {install}")
    argv, pattern, minimum = version
    try:
        done = subprocess.run([executable, *argv], capture_output=True, text=True, timeout=60)
        text = (done.stdout + done.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as error:
        text = str(error)
    first_line = (text.splitlines() or [executable])[0]
    match = re.search(pattern, text)
    if match is None or int(match.group(1)) < minimum:
        return Check("missing", name, f"{first_line}: {minimum} or later is needed for {needed_by}: {install}")
    return Check("ok", name, f"{first_line} ({executable})")


def check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info < (3, 11):
        return Check("FAIL", "Python", f"{version}: Eddy needs Python 3.11 or later")
    return Check("ok", "Python", f"{version} ({sys.executable})")


def check_spark_extra() -> Check:
    missing = missing_modules()
    if missing:
        return Check("missing", "Spark extra", f"{', '.join(missing)} (for eddy spark / export): {SPARK_INSTALL}")
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}" for name in ("pyspark", "pyarrow"))
    return Check("ok", "Spark extra", versions)


def check_sam_extra() -> Check:
    """aws-sam-translator, the `sam` extra: SAM templates (Transform AWS::Serverless-2016-10-31) need it."""
    if importlib.util.find_spec("samtranslator") is None:
        return Check("missing", "SAM extra", f"aws-sam-translator (for SAM templates): {INSTALL_SAM}")
    return Check("ok", "SAM extra", f"aws-sam-translator {importlib.metadata.version('aws-sam-translator')}")


def check_java() -> Check:
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    return _runtime_check("Java", java, (["-version"], r'version "(\d+)', 17), "the Spark batch path", JAVA_INSTALL)


def check_node() -> Check:
    node = os.environ.get("EDDY_NODE") or shutil.which("node")
    return _runtime_check("Node.js", node, (["--version"], r"v(\d+)\.", 18), "Node.js functions", NODE_INSTALL)


def check_node_sdk() -> Check:
    found = sdk_modules()
    if found is None:
        return Check("missing", "Node.js SDK", SDK_MISSING)
    return Check("ok", "Node.js SDK", f"@aws-sdk/* in {found}")


def check_port(host: str, port: int) -> Check:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
            return Check("ok", "port", f"{host}:{port} is free")
        except OSError as error:
            reason = error.strerror or str(error)
    if _eddy_serving(host, port):
        return Check("ok", "port", f"{host}:{port}: an Eddy is serving there already")
    return Check(
        "FAIL",
        "port",
        f"{host}:{port}: {reason}: stop what uses it, or choose another port: eddy serve --port {port + 1}",
    )


def _eddy_serving(host: str, port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/_eddy/clock", timeout=5) as response:
            return b"Now" in response.read()
    except (OSError, ValueError):
        return False


def check_state_dir(state_dir: str, host: str, port: int) -> Check:
    path = Path(state_dir)
    owner = current_owner(path) if path.is_dir() else None
    if owner is not None:
        if f"http://{host}:{port}" in owner.get("owner", ""):
            return Check(
                "ok", "state dir", f"{state_dir}: in use by the Eddy serving on {host}:{port} (pid {owner['pid']})"
            )
        return Check(
            "FAIL",
            "state dir",
            f"{state_dir}: in use by {describe_owner(owner)}: stop that process, or "
            "choose another --state-dir (or eddy serve --in-memory)",
        )
    existing = next((folder for folder in (path, *path.absolute().parents) if folder.exists()), None)
    if existing is None or not existing.is_dir():
        return Check("FAIL", "state dir", f"{state_dir}: {existing} is not a directory: choose another --state-dir")
    if not os.access(existing, os.W_OK | os.X_OK):
        return Check(
            "FAIL",
            "state dir",
            f"{state_dir}: {existing} is not writable: `chmod u+w {existing}` or "
            "choose another --state-dir (or eddy serve --in-memory)",
        )
    if existing != path.absolute() and existing != path:
        return Check("ok", "state dir", f"{state_dir} (will be created)")
    return Check("ok", "state dir", f"{state_dir} (writable)")


def check_disk(host: str, port: int, state_dir: str) -> Check:
    """Whether writes have room: the Eddy serving at the port refusing them (its dashboard's Disk), or the disk under
    the state directory full."""
    if _eddy_serving(host, port):
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/_eddy/dashboard", timeout=30) as response:
                disk = json.loads(response.read()).get("Disk") or {}
        except (OSError, ValueError):
            disk = {}
        if disk.get("WritesRefused"):
            return Check(
                "FAIL",
                "disk",
                f"the Eddy at {host}:{port} refuses writes: {disk['Reason']}: free space "
                "there; writes are accepted again once it has room (no restart)",
            )
    path = Path(state_dir).absolute()
    free = free_bytes(path)
    if free is None:
        return Check("ok", "disk", f"{state_dir}: free space unknown")
    if free < SPARE_BYTES:
        return Check(
            "FAIL",
            "disk",
            f"the disk under {state_dir} is full ({free:,} bytes free): free space there, or "
            "choose another --state-dir",
        )
    return Check("ok", "disk", f"{free:,} bytes free under {state_dir}")


def checks(args: argparse.Namespace) -> list[Callable[[], Check]]:
    return [
        check_python,
        check_spark_extra,
        check_sam_extra,
        check_java,
        check_node,
        check_node_sdk,
        lambda: check_port(args.host, args.port),
        lambda: check_state_dir(args.state_dir, args.host, args.port),
        lambda: check_disk(args.host, args.port, args.state_dir),
    ]


def doctor_command(args: argparse.Namespace) -> int:
    results = []
    for check in checks(args):
        result = check()
        print(result.line(), flush=True)
        results.append(result)
    return 1 if any(result.status == "FAIL" for result in results) else 0


def register(commands: Any) -> None:
    doctor = commands.add_parser(
        "doctor",
        help="check Python, Java, Node.js and its SDK, the port and the state "
        "directory; each problem with the command that fixes it",
    )
    doctor.add_argument("--host", default="127.0.0.1", help="the address eddy serve would bind (default: loopback)")
    doctor.add_argument("--port", type=port_number, default=4566)
    doctor.add_argument("--state-dir", default=".eddy")
    doctor.set_defaults(handler=doctor_command)
