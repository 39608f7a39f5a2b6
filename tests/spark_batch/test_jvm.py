"""The driver's JVM: Java checked before Spark starts, the incubator warning dropped, a free UI port."""

from __future__ import annotations

import io
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from spark_batch import jvm
from spark_batch.errors import JavaMissingError, SparkBatchError


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
    code = "from spark_batch.session import spark_session; spark_session('local[1]')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1].startswith("spark_batch.errors.JavaMissingError: Spark needs Java 17")
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


def test_the_ui_port_asked_for_is_free() -> None:
    with socket.socket() as holder:  # another application's UI
        holder.bind(("", 0))
        holder.listen()
        port = jvm.free_port()
        assert port != holder.getsockname()[1]
        with socket.socket() as probe:
            probe.bind(("", port))  # nobody holds it
