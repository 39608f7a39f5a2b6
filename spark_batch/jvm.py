"""The driver's JVM, started the way Spark starts it, minus what a user should never have to read.

- Java first: Spark 4 runs on Java 17 or later. `require_java()` finds the `java` Spark's launcher would run
  ($JAVA_HOME/bin/java, else `java` on the PATH) and asks its version before Spark starts, so a machine without
  one gets JavaMissingError saying what to install, not a launcher's shell errors and a py4j traceback.
- No incubator warning: Spark 4's launcher always adds `--add-modules=jdk.incubator.vector` to the driver's
  command line (org.apache.spark.launcher.JavaModuleOptions), and the JVM then prints
  `WARNING: Using incubator modules: jdk.incubator.vector` at start-up; no JVM option turns that line off. So
  `launch()` starts the gateway as pyspark does (pyspark.java_gateway.launch_gateway, its `popen_kwargs`) with the
  JVM's stderr on a pipe, drops that one line if it comes among the first few, and copies everything else to
  this process's stderr unchanged, as it comes (warnings, errors, progress bars).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from functools import lru_cache
from typing import IO, Any, Mapping

from .errors import JavaMissingError

#: the Java release Spark 4 needs
JAVA_RELEASE = 17
INSTALL = (
    "install a Java runtime, 17 or later (Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless; "
    "macOS: brew install openjdk@17), or point JAVA_HOME at one"
)
INCUBATOR_WARNING = b"WARNING: Using incubator modules"
#: how many of the JVM's first lines may come before the incubator warning (JAVA_TOOL_OPTIONS' notice, ...)
_FIRST_LINES = 3


def require_java() -> str:
    """The `java` Spark will run; JavaMissingError if there is none, or it is older than Java 17."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        where = f"JAVA_HOME is {home}, which has no bin/java" if home else "no `java` on the PATH"
        raise JavaMissingError(f"Spark needs Java {JAVA_RELEASE} or later and there is none ({where}): {INSTALL}")
    release = java_release(java)
    if release is not None and release < JAVA_RELEASE:
        raise JavaMissingError(f"Spark needs Java {JAVA_RELEASE} or later, and {java} is Java {release}: {INSTALL}")
    return java


@lru_cache(maxsize=None)
def java_release(java: str) -> int | None:
    """The feature release of a `java` (8 for 1.8.0_392, 17 for 17.0.15); None if it does not say."""
    try:
        answer = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise JavaMissingError(
            f"Spark needs Java {JAVA_RELEASE} or later, and {java} does not run ({error}): {INSTALL}"
        ) from None
    match = re.search(r'version "(?:1\.)?(\d+)', answer.stderr + answer.stdout)
    return int(match.group(1)) if match else None


def java_class(spark: Any, name: str) -> Any:
    """The JVM class `name` (its full name) of `spark`'s driver, to call or construct, found in one step.

    `spark.sparkContext._jvm.org.apache.hadoop.fs.Path` asks the JVM about `org`, `org.apache`, `org.apache.hadoop`
    and `org.apache.hadoop.fs` first, each a class lookup that misses on every jar of Spark's class path before
    py4j calls it a package: 1.7 to 3.4 ms of the JVM's CPU a call, against 0.1 ms for the class named whole
    (200 calls each on a local session, 2026-11-29)."""
    from py4j.java_gateway import JavaClass

    return JavaClass(name, spark.sparkContext._gateway._gateway_client)


def launch(settings: Mapping[str, str]) -> None:
    """Start the driver's JVM with these settings (as SparkConf entries) for the next SparkContext, its stderr
    copied here without the incubator warning. Does nothing if pyspark has a gateway already (a JVM running,
    or spark-submit's)."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    with SparkContext._lock:
        if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
            return
        gateway = launch_gateway(
            SparkConf(loadDefaults=False).setAll(list(settings.items())), popen_kwargs={"stderr": subprocess.PIPE}
        )
        process = getattr(gateway, "proc", None)
        if process is not None and process.stderr is not None:
            threading.Thread(
                target=_copy_stderr, args=(process.stderr, sys.stderr), name="eddy-jvm-stderr", daemon=True
            ).start()
        SparkContext._gateway = gateway
        SparkContext._jvm = gateway.jvm


def _copy_stderr(source: IO[bytes], target: IO[str]) -> None:  # source: a BufferedReader (Popen's pipe)
    """Copy the JVM's stderr to `target` as it comes, except the incubator warning among its first lines."""
    out = getattr(target, "buffer", None)
    for _ in range(_FIRST_LINES):
        line = source.readline()
        if not line:
            return
        if line.startswith(INCUBATOR_WARNING):
            break
        _write(target, out, line)
    while chunk := source.read1(65536):  # what is there, without waiting for more (progress bars)
        _write(target, out, chunk)


def _write(target: IO[str], out: IO[bytes] | None, data: bytes) -> None:
    try:
        if out is not None:
            target.flush()  # what this process wrote to the text stream first goes first
            out.write(data)
        else:
            target.write(data.decode(errors="replace"))
        target.flush()
    except (OSError, ValueError):  # this process's stderr closed (shutting down): nothing to copy to
        pass
