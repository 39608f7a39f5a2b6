"""`eddy doctor`: one line per check, each problem with the command that fixes it; status 1 only for what
`eddy serve` itself needs."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from eddy.emulator.cli import doctor as doctor_module
from eddy.emulator.cli import main
from eddy.emulator.storage.disk import FAULT_FLAG
from tests.conftest import eddy_server


def doctor(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "eddy", "doctor", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_a_ready_machine(tmp_path, capsys) -> None:
    with socket.socket() as probe:  # a port that is free now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["doctor", "--port", str(port), "--state-dir", str(tmp_path / "state")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["ok", "Python"], ["ok", "Spark"], ["ok", "SAM"], ["ok", "Java"], ["ok", "Node.js"], ["ok", "Node.js"], ["ok", "port"],
        ["ok", "state"], ["ok", "disk"]]
    assert lines[-3].endswith(f"127.0.0.1:{port} is free")
    assert lines[-2].endswith("(will be created)")
    assert re.fullmatch(rf"ok +disk +[0-9,]+ bytes free under {re.escape(str(tmp_path / 'state'))}", lines[-1])


def test_without_the_sam_extra_the_doctor_says_what_to_install(tmp_path, capsys, monkeypatch) -> None:
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "samtranslator" else find_spec(name, *rest))
    main(["doctor", "--port", "0", "--state-dir", str(tmp_path / "state")])
    [line] = [line for line in capsys.readouterr().out.splitlines() if "SAM extra" in line]
    assert line == 'missing  SAM extra     aws-sam-translator (for SAM templates): pip install "eddy[sam]"'


def test_a_full_disk_under_the_state_directory_fails(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(doctor_module, "free_bytes", lambda path: 4096)
    assert main(["doctor", "--port", "1", "--state-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines()[-1].split(None, 2) == [
        "FAIL", "disk", f"the disk under {tmp_path} is full (4,096 bytes free): free space there, or choose another "
                        "--state-dir"]


def test_an_eddy_that_refuses_writes_for_a_full_disk_fails(tmp_path, capsys, monkeypatch) -> None:
    flag = tmp_path / "disk-full"
    monkeypatch.setenv(FAULT_FLAG, str(flag))  # the server's disk fills (storage/disk.py's injected failures)
    with eddy_server("--state-dir", str(tmp_path / "state"), "--housekeeping-interval", "0") as (url, _):
        ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="k",
                           aws_secret_access_key="s", config=Config(retries={"total_max_attempts": 1}))
        ddb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        flag.write_text("")
        with pytest.raises(ClientError):
            ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        port = url.rsplit(":", 1)[1]
        assert main(["doctor", "--port", port, "--state-dir", str(tmp_path / "elsewhere")]) == 1
        line = capsys.readouterr().out.splitlines()[-1]
        assert re.fullmatch(rf"FAIL +disk +the Eddy at 127\.0\.0\.1:{port} refuses writes: a write to .+ failed: the "
                            r"disk is full; free there: [0-9,]+ bytes: free space there; writes are accepted again "
                            r"once it has room \(no restart\)", line), line
        flag.unlink()
        ddb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        assert main(["doctor", "--port", port, "--state-dir", str(tmp_path / "elsewhere")]) == 0


def test_missing_parts_say_what_to_run_and_what_serve_needs_fails(tmp_path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {name: value for name, value in os.environ.items() if name not in ("JAVA_HOME", "EDDY_NODE")}
        done = doctor("--port", str(port), "--state-dir", str(not_a_directory / "state"), env={**env, "PATH": str(empty)})
    assert done.returncode == 1, done.stderr
    lines = {line[9:22].strip(): line for line in done.stdout.splitlines()}  # by the check's name
    assert lines["Java"].startswith("missing") and "sudo apt-get install -y openjdk-17-jre-headless" in lines["Java"]
    assert lines["Node.js"].startswith("missing") and "sudo apt-get install -y nodejs npm" in lines["Node.js"]
    assert lines["port"].startswith("FAIL") and f"eddy serve --port {port + 1}" in lines["port"]
    assert lines["state dir"].startswith("FAIL") and "is not a directory: choose another --state-dir" in lines["state dir"]


def test_the_port_of_a_running_eddy_is_not_a_problem(server_url: str, capsys, tmp_path) -> None:
    port = server_url.rsplit(":", 1)[1]
    assert main(["doctor", "--port", port, "--state-dir", str(tmp_path)]) == 0
    assert f"127.0.0.1:{port}: an Eddy is serving there already" in capsys.readouterr().out


def test_a_state_directory_another_server_owns_fails_unless_it_is_the_one_at_the_port(tmp_path, capsys) -> None:
    state = tmp_path / "state"
    with eddy_server("--state-dir", str(state)) as (url, server):
        port = url.rsplit(":", 1)[1]
        assert main(["doctor", "--port", "1", "--state-dir", str(state)]) == 1
        line = capsys.readouterr().out.splitlines()[-2]
        assert re.fullmatch(rf"FAIL +state dir +{re.escape(str(state))}: in use by pid {server.pid} \(eddy serve on "
                            rf"{re.escape(url)}\) since [0-9-]+ [0-9:]+ UTC: stop that process, or choose another "
                            r"--state-dir \(or eddy serve --in-memory\)", line)
        assert main(["doctor", "--port", port, "--state-dir", str(state)]) == 0
        assert capsys.readouterr().out.splitlines()[-2].split(None, 3) == [
            "ok", "state", "dir", f"{state}: in use by the Eddy serving on 127.0.0.1:{port} (pid {server.pid})"]
    main(["doctor", "--port", port, "--state-dir", str(state)])  # let go when it stopped (the port: TIME_WAIT)
    assert capsys.readouterr().out.splitlines()[-2].split(None, 3) == ["ok", "state", "dir", f"{state} (writable)"]


def test_without_sparks_extra_the_spark_commands_say_what_to_install(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "pyspark" else find_spec(name, *rest))
    for argv in (["spark", "aggregate", "--out", "metrics/"], ["export", "--table", "orders", "--to", "x"], ["demo"]):
        assert main(argv) == 1
        out, err = capsys.readouterr()
        command = argv[0]
        assert err == (f"eddy {command}: the Spark batch path needs Spark's extra (pyspark not installed): run "
                       "`pip install \"eddy[spark]\"` (Spark also needs Java 17 or later: `eddy doctor` checks)\n")
        assert out == ""
