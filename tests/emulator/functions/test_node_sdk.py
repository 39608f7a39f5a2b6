"""Where Node.js functions find the AWS SDK for JavaScript v3, and what Eddy says when it is nowhere."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eddy.emulator.functions.runtimes import node_sdk
from tests.emulator.functions.test_node_functions import call, create_node


def fake_sdk(folder: Path) -> Path:
    """A node_modules folder holding a (tiny) @aws-sdk/client-dynamodb."""
    package = folder / "@aws-sdk" / "client-dynamodb"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@aws-sdk/client-dynamodb", "main": "index.js"}))
    (package / "index.js").write_text("exports.DynamoDBClient = class DynamoDBClient {}; exports.FAKE = true;\n")
    return folder


@pytest.fixture
def elsewhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Eddy installed outside a checkout: no .node/ beside it, an empty per-user cache, no EDDY_NODE_MODULES."""
    monkeypatch.setattr(node_sdk, "_CHECKOUT", tmp_path / "site-packages")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("EDDY_NODE_MODULES", raising=False)
    return tmp_path


def test_the_sdk_is_found_in_the_checkout_then_the_per_user_cache(elsewhere: Path, monkeypatch) -> None:
    assert node_sdk.sdk_modules() is None
    cache = fake_sdk(elsewhere / "cache" / "eddy" / "node" / "node_modules")
    assert node_sdk.sdk_modules() == cache
    checkout = elsewhere / "site-packages"
    (checkout / "pyproject.toml").parent.mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    assert node_sdk.sdk_modules() == cache  # a checkout without `make setup` has none: the cache still counts
    fake_sdk(checkout / ".node" / "node_modules")
    assert node_sdk.sdk_modules() == checkout / ".node" / "node_modules"
    own = fake_sdk(elsewhere / "own")
    monkeypatch.setenv("EDDY_NODE_MODULES", str(own))
    assert node_sdk.sdk_modules() == own


def test_a_function_importing_the_sdk_uses_the_cache(elsewhere: Path, emu) -> None:
    fake_sdk(elsewhere / "cache" / "eddy" / "node" / "node_modules")
    lam = emu.aws_client("lambda", "us-east-1")
    create_node(lam, "sdk", {"index.mjs": "import { FAKE } from '@aws-sdk/client-dynamodb';\n"
                                          "export const handler = async () => ({ fake: FAKE });"})
    response, answer = call(lam, "sdk")
    assert "FunctionError" not in response and answer == {"fake": True}


def test_without_the_sdk_the_log_says_what_to_run(elsewhere: Path, emu, caplog) -> None:
    lam = emu.aws_client("lambda", "us-east-1")
    create_node(lam, "sdk", {"index.mjs": "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n"
                                          "export const handler = async () => 'unreached';"})
    with caplog.at_level(logging.WARNING, logger="eddy.emulator.functions.runtimes.node_sdk"):
        response, answer = call(lam, "sdk")
    assert response["FunctionError"] == "Unhandled"
    assert "Cannot find package '@aws-sdk/client-dynamodb'" in answer["errorMessage"]  # in the Node runtime's words
    assert caplog.messages == [node_sdk.MISSING]
    assert "run `eddy setup node`" in node_sdk.MISSING


def test_eddy_setup_node_without_npm_says_what_to_install(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "eddy", "setup", "node", "--dir", str(tmp_path / "sdk")],
                          capture_output=True, text=True, env={**os.environ, "PATH": str(tmp_path)}, timeout=300)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("eddy setup node: npm is not on PATH: install Node.js with npm (Debian/Ubuntu: "
                           "`sudo apt-get install -y nodejs npm`; others: https://nodejs.org), then run `eddy setup node`\n")
