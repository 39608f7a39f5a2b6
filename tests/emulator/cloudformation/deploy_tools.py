"""The real deployment tools the end-to-end tests run (what `make deploy-tools` installs, made here when missing or
when their pinned lists changed): .tools/deploy/, a virtualenv with awscli, aws-sam-cli and aws-cdk-lib
(tools/deploy-tools.txt, installed with --no-deps), and .tools/cdk/, the aws-cdk CLI from npm
(tools/cdk/package.json). Each install's stamp holds the list it installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def tools_environment(url: str) -> dict[str, str]:
    """What the tools run with: pointed at Eddy only by AWS_ENDPOINT_URL, fake credentials and a region (the
    process's own AWS_* variables left out); `sam build` finds the function's Python 3.11 on the PATH as this
    interpreter. bench/sam_deploy.py runs them the same way."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
    environment.update(AWS_ENDPOINT_URL=url, AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                       AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1", SAM_CLI_TELEMETRY="0",
                       PATH=f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}")
    return environment


def _installed(stamp: Path, pins: Path) -> bool:
    return stamp.exists() and stamp.read_text() == pins.read_text()


@pytest.fixture(scope="session")
def tools() -> Path:
    """The bin/ of the virtualenv holding awscli, aws-sam-cli and aws-cdk-lib."""
    home, pins = ROOT / ".tools" / "deploy", ROOT / "tools" / "deploy-tools.txt"
    if not _installed(home / ".installed-stamp", pins):
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
        subprocess.run([str(ROOT / "tools" / "pinned_install.sh"), str(home / "bin" / "python"), str(pins)],
                       check=True, timeout=1800)  # as the Makefile installs them (it says why)
        shutil.copyfile(pins, home / ".installed-stamp")
    return home / "bin"


@pytest.fixture(scope="session")
def cdk_cli() -> Path:
    """The aws-cdk CLI (`cdk`), installed from npm."""
    home, pins = ROOT / ".tools" / "cdk", ROOT / "tools" / "cdk" / "package.json"
    if not _installed(home / ".installed-stamp", pins):
        home.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pins, home / "package.json")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=home, check=True,
                       timeout=1800)
        shutil.copyfile(pins, home / ".installed-stamp")
    return home / "node_modules" / ".bin" / "cdk"
