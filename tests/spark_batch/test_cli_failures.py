"""The Spark commands' expected failures as one line (a state directory that is not one, Java missing, Ctrl-C during
a job), and the readers of a state directory working beside the server that owns it, writing nothing there."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import boto3

from eddy.emulator.cli import main
from eddy.spark_batch import io
from eddy.spark_batch.table_streams import TableStreams
from tests.conftest import ServerDoor, eddy_server
from tests.emulator.helpers import create_table
from tests.emulator.storage.test_ownership import tree

from .conftest import TEST_CONFIG
from .segments import ChangeLog, insert
from .test_jobs import eddy, key, order


@contextlib.contextmanager
def holding_4040() -> Iterator[None]:
    """Another application's Spark UI on 4040 (if something else holds it already, that is what the test wants too)."""
    with socket.socket() as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with contextlib.suppress(OSError):
            holder.bind(("", 4040))
            holder.listen()
        yield


def test_a_state_directory_that_does_not_exist_or_holds_no_change_log_is_named(tmp_path: Path, capsys,
                                                                                 monkeypatch) -> None:
    missing = tmp_path / "does" / "not" / "exist"
    assert main(["spark", "aggregate", "--state-dir", str(missing), "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err == (
        f"eddy spark aggregate: state directory {missing} does not exist: pass --state-dir with the directory "
        f"`eddy serve --state-dir` (or emulate(state_dir=...)) writes\n")
    monkeypatch.chdir(tmp_path)  # the default, .eddy, from a directory without one
    assert main(["spark", "ttl-archive", "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err.startswith(f"eddy spark ttl-archive: state directory {tmp_path / '.eddy'} does "
                                              f"not exist: ")
    (tmp_path / "empty").mkdir()
    assert main(["export", "--table", "orders", "--to", str(tmp_path / "out"), "--state-dir", "empty"]) == 1
    assert capsys.readouterr().err == (
        f"eddy export: state directory {tmp_path / 'empty'} holds no change log (no streams/): is it Eddy's state "
        f"directory, and has a table there a stream enabled?\n")
    assert main(["spark", "stream", "create", "s", "--table", "orders", "--state-dir", "empty",
                 "--offsets", "offsets"]) == 1
    assert "holds no change log" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (tmp_path / "offsets").exists()


def test_java_missing_is_one_line_before_spark_says_anything(tmp_path: Path) -> None:
    ChangeLog(tmp_path / "state", "orders").commit(1, "2025-05-01 10:00:05.000",
                                                   insert(order("o1", "10", "c1"), key("o1")))
    env = {name: value for name, value in os.environ.items() if name != "JAVA_HOME"}
    env["PATH"] = str(Path(sys.executable).parent)  # this interpreter, and no `java`
    result = subprocess.run([sys.executable, "-m", "eddy", "spark", "aggregate", "--state-dir",
                             str(tmp_path / "state"), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("eddy spark aggregate: ") and "Java" in result.stderr
    assert result.stdout == ""


def test_ctrl_c_during_a_spark_job_is_one_line_and_status_130(tmp_path: Path) -> None:
    orders = ChangeLog(tmp_path / "state", "orders")
    for minute in range(15):  # enough work that the job is still running when Ctrl-C comes
        orders.commit(minute + 1, f"2025-05-01 10:{minute:02d}:05.000",
                      *(insert(order(f"o{minute}-{n}", str(n), f"c{n % 7}"), key(f"o{minute}-{n}"))
                        for n in range(2000)))
    job = subprocess.Popen([sys.executable, "-m", "eddy", "spark", "aggregate", "--state-dir",
                            str(tmp_path / "state"), "--out", str(tmp_path / "out"), "--numbers", "amount",
                            "--group-by", "customer", "--conf", "spark.ui.showConsoleProgress=true"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    stderr = bytearray()
    running = threading.Event()

    def read_stderr() -> None:
        while chunk := job.stderr.read1(4096):
            stderr.extend(chunk)
            if b"[Stage " in stderr:  # Spark's console progress: a stage of the job is running
                running.set()
        running.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    assert running.wait(timeout=300)
    os.killpg(job.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole foreground group gets it
    stdout = job.stdout.read()
    assert job.wait(timeout=120) == 130
    reader.join(timeout=30)
    lines = [line for line in stderr.decode().replace("\r", "\n").splitlines()
             if line.strip() and not line.startswith("[Stage ")]
    assert lines[-1] == "eddy spark aggregate: interrupted"
    assert not [line for line in lines if "py4j" in line or "Traceback" in line or "ERROR" in line]
    assert stdout == b""


def test_ctrl_c_while_the_session_is_starting_is_one_line_and_status_130(tmp_path: Path) -> None:
    ChangeLog(tmp_path / "state", "orders").commit(1, "2025-05-01 10:00:05.000",
                                                   insert(order("o1", "10", "c1"), key("o1")))
    local = tmp_path / "local"  # where the driver's SparkEnv makes its block manager's folder, as the context starts
    local.mkdir()
    job = subprocess.Popen([sys.executable, "-m", "eddy", "spark", "aggregate", "--state-dir",
                            str(tmp_path / "state"), "--out", str(tmp_path / "out")],
                           env={**os.environ, "SPARK_LOCAL_DIRS": str(local)},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 300  # a bound on the condition, not a pause
        while not any(local.iterdir()) and job.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert any(local.iterdir()), "the SparkContext never started"
        os.killpg(job.pid, signal.SIGINT)  # Ctrl-C: the context is being made, the session is not there yet
        stdout, stderr = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert (job.returncode, stderr.decode().splitlines(), stdout) == (
        130, ["eddy spark aggregate: interrupted"], b"")


def test_readers_keep_working_beside_the_server_that_owns_the_directory(spark, tmp_path: Path, capsys) -> None:
    """The readers (a change-log DataFrame, a table stream, `eddy spark aggregate`, `eddy tail`, `eddy spark stream
    show` in a process of its own) beside `eddy serve`, writing nothing in its directory. The command runs from a
    directory that is not the repository's, without PYSPARK_PYTHON: Spark's Python workers (which decode the
    images) run the interpreter eddy runs on, not whatever `python3` is on PATH, which has no spark_batch; and it
    runs while another application holds Spark's default UI port, 4040, without a WARN (its UI takes a port the
    system picks: spark_batch/session.py). One process, one JVM start, for the three checks."""
    state_dir = tmp_path / "S"
    with eddy_server("--housekeeping-interval", "0", "--state-dir", str(state_dir)) as (url, _):
        dynamodb = ServerDoor(url).client("dynamodb")
        create_table(dynamodb)
        for pk in ("a", "b", "c"):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": pk}, "amount": {"N": "1"}})
        files = tree(state_dir)

        log = io.read_change_log(spark, str(state_dir), tables=["orders"])
        assert sorted(json.loads(row["keys"])["pk"]["S"] for row in log.select("keys").collect()) == ["a", "b", "c"]
        streams = TableStreams(spark, str(state_dir), str(tmp_path / "offsets"))
        streams.create("changes", "orders", at_version=0)
        assert streams.get("changes").read().count() == 3
        assert eddy("spark", "aggregate", "--state-dir", str(state_dir), "--out", str(tmp_path / "metrics")) == 0
        assert capsys.readouterr().out.startswith("aggregate: 3 rows in, ")
        tail = subprocess.run([sys.executable, "-m", "eddy", "tail", "orders", "--endpoint-url", url,
                               "--from-start", "--count", "3"], capture_output=True, text=True, timeout=120)
        assert tail.returncode == 0 and len(tail.stdout.splitlines()) == 4
        env = {name: value for name, value in os.environ.items() if name not in ("PYSPARK_PYTHON",
                                                                                   "PYSPARK_DRIVER_PYTHON")}
        with holding_4040():  # and another application's UI holds 4040: Eddy's command says nothing about it
            # (the JIT's first tier only, as the test session's JVM: tests/spark_batch/conftest.py)
            show = subprocess.run([sys.executable, "-m", "eddy", "spark", "stream", "show", "changes", "--state-dir",
                                   "S", "--offsets", "offsets", "--master", "local[1]", "--conf",
                                   f"spark.driver.extraJavaOptions={TEST_CONFIG['spark.driver.extraJavaOptions']}"],
                                  cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert show.returncode == 0, show.stdout[-2000:] + show.stderr[-3000:]
        header, *rows = [line.split("|")[1:-1] for line in show.stdout.splitlines() if line.startswith("|")]
        columns = [name.strip() for name in header]
        assert sorted((row[columns.index("__change_type")].strip(), row[columns.index("pk")].strip())
                      for row in rows) == [("INSERT", "a"), ("INSERT", "b"), ("INSERT", "c")], show.stdout
        assert "ModuleNotFoundError" not in show.stderr, show.stderr
        assert "WARN" not in show.stderr and "4040" not in show.stderr, show.stderr

        assert tree(state_dir) == files  # the readers wrote nothing there
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "d"}})  # and the owner goes on writing
        assert boto3.client("dynamodb", region_name="us-east-1", endpoint_url=url).scan(
            TableName="orders")["Count"] == 4
