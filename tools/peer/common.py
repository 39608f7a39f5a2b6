"""Shared by the peer suite's parts: what it runs, where it keeps things, and how it reports trouble."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

# Test-only dependencies of moto's dynamodb + dynamodbstreams tests. Each one is pip-installed into the
# running interpreter's environment only if it is missing. Everything else those tests import (boto3,
# botocore, moto itself) is already a dependency of Eddy.
TEST_DEPENDENCIES = [
    "pytest",  # the runner (normally present through eddy[dev])
    "freezegun",  # tests/test_dynamodb/test_dynamodb.py: `from freezegun import freeze_time`
    "py-partiql-parser",  # moto[dynamodb] extra (PartiQL statements); pinned to what moto's metadata asks
]
# Not needed: pytest-xdist (the suites share one server and every test POSTs /moto-api/reset, so parallel
# workers wipe each other's tables; see --help), pytest-order, pyotp, pycognito (other moto suites only).

SUITES = ["tests/test_dynamodb", "tests/test_dynamodbstreams"]

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / ".peer"
TOOLS_DIR = Path(__file__).resolve().parents[1]

DEFAULT_EDDY_CMD = f"{shlex.quote(sys.executable)} -m eddy serve --host 127.0.0.1 --port {{port}} --in-memory"
MOTO_CMD = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", "{port}"]
MOTO_HEALTH_PATH = "/moto-api/"

PASSING = {"passed", "xpassed"}
RESULTS_ENV = "PEER_SUITE_RESULTS"

# Environment variables that would change what the tests or the servers do; dropped for both runs.
SCRUBBED_ENV = (
    "MOTO_CALL_RESET_API",  # "false" would stop mock_aws from POSTing /moto-api/reset
    "MOTO_TEST_ALLOW_AWS_REQUEST",  # "true" would send the tests to real AWS
    "TEST_SERVER_MODE",
    "TEST_SERVER_MODE_ENDPOINT",
    "TEST_PROXY_MODE",
)


class HarnessError(Exception):
    """The comparison could not be made (exit status 2)."""


def log(msg: str = "") -> None:
    print(msg, flush=True)
