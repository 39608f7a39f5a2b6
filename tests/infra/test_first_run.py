"""The first-run experience: `eddy serve --stack` (what `make run` does) and `eddy demo` (what `make demo` does)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import eddy_server

ROOT = Path(__file__).resolve().parents[2]


def test_serve_applies_the_example_stack_and_says_how_to_connect():
    with eddy_server("--in-memory", "--housekeeping-interval", "0", "--stack", str(ROOT / "infra/examples/stack.yaml")) as (url, process):
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.strip().startswith("follow a stream:"):
                break
    text = "".join(lines)
    assert "  create    OrdersTable                    AWS::DynamoDB::Table\n" in text
    assert "  23 created\n" in text
    assert f"endpoint_url='{url}'" in text and "localstack_client.session.Session" in text and f"aws --region us-east-1 --endpoint-url {url} dynamodbstreams list-streams" in text


def test_the_demo_tours_everything(tmp_path: Path):
    # from a directory that is not the repository's, with no PYSPARK_PYTHON: Spark's Python workers must still
    # find spark_batch (they run this interpreter)
    env = {name: value for name, value in os.environ.items() if name not in ("PYSPARK_PYTHON", "SPARK_LOCAL_IP")}
    result = subprocess.run([sys.executable, "-m", "eddy", "demo", "--orders", "120", "--master", "local[2]"],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert [line for line in result.stderr.splitlines() if " WARN " in line] == []   # no Spark warnings
    assert "WARNING: Using incubator modules" not in result.stderr  # the JVM's, for a flag Spark's launcher adds
    assert "[Stage " not in result.stdout + result.stderr  # no progress bar drawn across the tour
    assert "NodeVersionSupportWarning" not in result.stderr  # order-audit is nodejs22.x: not about this node
    out = result.stdout
    for step in ("1. Eddy is serving", "3. Replica:", "identical to", "4. Search for 'fox'", "5. An hour later TTL deleted 12",
                 "12 archived", "6. Spark aggregated", "7. Summary", "replica converged", "welcome messages queued 3"):
        assert step in out, step
