"""The driver's JVM: Java checked before Spark starts, the incubator warning dropped, the JVM ending with its driver.
(No WARN when 4040 is taken, the UI on a port the system picks: test_cli_failures.py's
test_readers_keep_working_beside_the_server_that_owns_the_directory runs its `eddy spark stream show` so.)"""

from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from eddy.spark_batch import jvm
from eddy.spark_batch.errors import JavaMissingError, SparkBatchError
from tests.conftest import processes_with


def fake_java(folder: Path, version: str) -> Path:
    java = folder / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2023-01-17' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    return java


def test_no_java_is_a_spark_batch_error_saying_what_to_install(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JavaMissingError, match=r"Spark needs Java 17 or later and there is none \(no `java` on "
                                               r"the PATH\): install a Java runtime, 17 or later \(Debian/Ubuntu: "
                                               r"sudo apt-get install openjdk-17-jre-headless"):
        jvm.require_java()
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nope"))
    with pytest.raises(JavaMissingError, match=f"JAVA_HOME is {tmp_path / 'nope'}, which has no bin/java"):
        jvm.require_java()
    assert issubclass(JavaMissingError, SparkBatchError)


def test_an_old_java_is_refused_and_a_new_one_taken(monkeypatch, tmp_path: Path) -> None:
    old = fake_java(tmp_path / "jdk8", "1.8.0_392")
    monkeypatch.setenv("JAVA_HOME", str(old.parent.parent))
    with pytest.raises(JavaMissingError, match=f"{old} is Java 8"):
        jvm.require_java()
    new = fake_java(tmp_path / "jdk21", "21.0.2")
    monkeypatch.setenv("JAVA_HOME", str(new.parent.parent))
    assert jvm.require_java() == str(new)


def test_a_session_without_java_fails_before_spark_prints_anything(tmp_path: Path) -> None:
    env = {name: value for name, value in os.environ.items() if name != "JAVA_HOME"}
    env["PATH"] = str(tmp_path)
    code = "from eddy.spark_batch.session import spark_session; spark_session('local[1]')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1].startswith("eddy.spark_batch.errors.JavaMissingError: Spark needs Java 17")
    assert "spark-class" not in result.stderr and "JAVA_GATEWAY_EXITED" not in result.stderr


def test_the_jvm_s_stderr_comes_through_without_the_incubator_warning() -> None:
    read, write = os.pipe()
    with os.fdopen(write, "wb") as jvm_stderr:
        jvm_stderr.write(b"WARNING: Using incubator modules: jdk.incubator.vector\n"
                         b"25/11/25 10:00:00 WARN SomeClass: a real warning\n[Stage 0:>   (0 + 1) / 1]\r")
    copied = io.TextIOWrapper(io.BytesIO(), write_through=True)
    with os.fdopen(read, "rb") as source:
        jvm._copy_stderr(source, copied)
    assert copied.buffer.getvalue() == b"25/11/25 10:00:00 WARN SomeClass: a real warning\n[Stage 0:>   (0 + 1) / 1]\r"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_jvm_dies_with_its_driver_killed_with_sigkill(tmp_path: Path) -> None:
    """Spark's JVM (and its Python workers) end when the driver's process is killed, whatever kills it: the gateway
    pyspark starts watches its stdin, a pipe from the driver, and exits at its end (PythonGatewayServer)."""
    marker = f"EDDY_JVM_TEST={uuid.uuid4()}"
    name, value = marker.split("=", 1)
    # one Python job: its worker (Spark's pyspark.daemon) is up too, and says where it imported pyspark from: a
    # session of spark_session's own (no test configuration) gives its workers site-packages' (test_workers.py)
    job = "spark.sparkContext.parallelize([0], 1).mapPartitions(lambda rows: [__import__('pyspark').__file__]).collect()"
    driver = subprocess.Popen(
        [sys.executable, "-c", "import threading; from eddy.spark_batch.session import spark_session; "
                               f"spark = spark_session('local[1]'); print(spark.version, *{job}, flush=True); "
                               "threading.Event().wait()"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, name: value}, cwd=tmp_path)
    try:
        import pyspark

        assert driver.stdout.readline() == f"{pyspark.__version__} {pyspark.__file__}\n"
        commands = processes_with(marker).values()
        assert [any("java" in command for command in commands),
                any("pyspark.daemon" in command for command in commands)] == [True, True], commands
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        deadline = time.monotonic() + 60  # the JVM's shutdown hooks on a busy machine (2.6 s measured on a loaded one)
        while processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.1)  # polling a condition (the JVM is gone), bounded by the deadline
        left = processes_with(marker)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == {}
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
