"""Every `eddy` command answers an expected failure with one line that says what to do and a non-zero status;
`--verbose` (before or after the command) adds the traceback; anything unexpected keeps its traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, NoCredentialsError, NoRegionError

from eddy.emulator.cli.failures import CannotListenError, answer_failures, expected_failure
from eddy.emulator.storage.ownership import StateDirectoryInUseError
from eddy.emulator.storage.wal import CorruptStateError
from eddy.infra.stack import StackError
from eddy.spark_batch.errors import IncompleteHistoryError

STACK = Path(__file__).parents[3] / "infra" / "examples" / "stack.yaml"


def eddy(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "eddy", *argv], capture_output=True, text=True,
                          timeout=120, env=env)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_nothing_listening_is_one_line_for_tail_and_up():
    url = f"http://127.0.0.1:{closed_port()}"
    hint = f"nothing answers at {url}/: start Eddy there (eddy serve --port PORT) or pass the --endpoint-url it serves on"
    tail = eddy("tail", "orders", "--endpoint-url", url)
    assert (tail.returncode, tail.stdout, tail.stderr) == (1, "", f"eddy tail: {hint}\n")
    up = eddy("up", "-f", str(STACK), "--endpoint-url", url)
    assert (up.returncode, up.stderr) == (1, f"eddy up: {hint}\n")


@pytest.mark.parametrize("where", ["before", "after"])
def test_verbose_shows_the_traceback_above_the_line(where):
    url = f"http://127.0.0.1:{closed_port()}"
    argv = ["--verbose", "tail", "orders", "--endpoint-url", url] if where == "before" else [
        "tail", "orders", "--endpoint-url", url, "--verbose"]
    result = eddy(*argv)
    lines = result.stderr.splitlines()
    assert result.returncode == 1
    assert lines[0] == "Traceback (most recent call last):"
    assert any(line.startswith("botocore.exceptions.EndpointConnectionError: ") for line in lines)
    assert lines[-1].startswith(f"eddy tail: nothing answers at {url}/")


def test_no_credentials_is_one_line_that_says_what_to_set(tmp_path):
    env = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
    env.update(AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"), AWS_CONFIG_FILE=str(tmp_path / "none"),
               AWS_EC2_METADATA_DISABLED="true", AWS_DEFAULT_REGION="us-east-1")
    result = eddy("up", "-f", str(STACK), "--endpoint-url", "aws", env=env)
    assert result.returncode == 1
    assert result.stderr == ("eddy up: no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                             "(any values do for Eddy), or pass --profile\n")


def test_a_stack_file_with_mistakes_is_status_2(tmp_path):
    stack = tmp_path / "stack.yaml"
    stack.write_text("tables:\n  orders:\n    key: [pk]\n    colour: blue\n")
    result = eddy("up", "-f", str(stack), "--endpoint-url", f"http://127.0.0.1:{closed_port()}")
    assert result.returncode == 2
    assert result.stderr.startswith(f"eddy up: {stack}")
    assert "Traceback" not in result.stderr


def test_a_busy_port_is_said_once():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = eddy("serve", "--port", str(port), "--in-memory")
    assert result.returncode == 1
    assert result.stderr == (f"eddy serve: cannot listen on 127.0.0.1:{port}: Address already in use: stop what uses "
                             f"the port, or pass another --port (--port 0: any free one)\n")


def test_a_corrupt_state_directory_is_one_line(tmp_path):
    (tmp_path / "wal").mkdir()
    (tmp_path / "wal" / "000000000000.log").write_text("not a log line\nnor this one\n")  # not a torn tail
    result = eddy("serve", "--port", "0", "--state-dir", str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.startswith("eddy serve: cannot start on this state directory: ")
    assert result.stderr.endswith("move the directory aside (or restore it from a copy) and start again\n")
    assert len(result.stderr.splitlines()) == 1
    assert eddy("serve", "--port", "0", "--state-dir", str(tmp_path)).returncode == 1  # the refusal let the lock go


def error(code: str, message: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": message}}, "DescribeTable")


@pytest.mark.parametrize("failure, line, status", [
    (StateDirectoryInUseError(Path("/s"), {"pid": 7, "owner": "in-process", "since": 0}),
     "state directory /s is in use by pid 7 (in-process) since 1970-01-01 00:00:00 UTC: stop that process, or give "
     "this one another state directory (or --in-memory)", 2),
    (StackError("stack.yaml: tables.orders.colour: Extra inputs are not permitted"),
     "stack.yaml: tables.orders.colour: Extra inputs are not permitted", 2),
    (IncompleteHistoryError("table books: commits 1..5 are not all in the change log"),
     "table books: commits 1..5 are not all in the change log", 1),
    (NoRegionError(), "no AWS region: pass --region or set AWS_DEFAULT_REGION", 1),
    (EndpointConnectionError(endpoint_url="http://127.0.0.1:1/"),
     "nothing answers at http://127.0.0.1:1/: start Eddy there (eddy serve --port PORT) or pass the --endpoint-url "
     "it serves on", 1),
    (NoCredentialsError(), "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (any values do "
     "for Eddy), or pass --profile", 1),
    (error("ResourceNotFoundException", "Requested resource not found: Table: orders not found"),
     "DescribeTable refused: ResourceNotFoundException: Requested resource not found: Table: orders not found", 1),
    (CorruptStateError("wal/0.log: line 3 is corrupt"), "cannot start on this state directory: wal/0.log: line 3 is "
     "corrupt; move the directory aside (or restore it from a copy) and start again", 1),
    (CannotListenError("0.0.0.0", 80, PermissionError(13, "Permission denied")),
     "cannot listen on 0.0.0.0:80: Permission denied: stop what uses the port, or pass another --port (--port 0: any "
     "free one)", 1),
])
def test_each_expected_failure_as_one_line(failure, line, status):
    assert expected_failure(failure) == (line, status)


def test_an_unexpected_failure_keeps_its_traceback_and_ctrl_c_is_130(capsys):
    def broken() -> int:
        raise KeyError("a bug")

    with pytest.raises(KeyError):
        answer_failures(broken, prefix="eddy tail")
    assert expected_failure(ValueError("x")) is None

    def interrupted() -> int:
        raise KeyboardInterrupt

    assert answer_failures(interrupted, prefix="eddy spark aggregate") == 130
    assert capsys.readouterr().err == "eddy spark aggregate: interrupted\n"
