"""The test suite's class-data-sharing archive of Spark's classes: `make test`'s set-up runs this script.

    .venv/bin/python -m tests.spark_class_archive        # writes .venv/spark-classes.jsa

A JVM that starts Spark loads and links thousands of classes from its jars before it runs a job; a dynamic CDS
archive (`-XX:ArchiveClassesAtExit`, JDK 13 and later) keeps them already parsed and verified, and a JVM started with
`-XX:SharedArchiveFile` maps them instead: a driver for one small job 20 -> 15 s of CPU (docs/performance.md, "The
test suite's time"). This script makes the archive with the classes the suite's JVMs load: one driver, started as
the suite starts its session (tests/spark_batch/conftest.py's TEST_CONFIG), runs `eddy spark aggregate` over a small
change log, reads its Parquet back and runs a Python function on its workers; the JVM writes the archive as it
exits, under a temporary name, renamed once whole. (An archive of a heavier job, every `eddy spark` job and an
export, saved little more and cost 40 s more of CPU to make: docs/performance.md.)

tests/conftest.py's SMALL_JOB_JVM names the archive if it exists, for every JVM the suite starts for Spark: the
in-process sessions, the drivers of `eddy spark`, `eddy demo` and spark-submit, test_cluster.py's master, worker and
executors. A JVM whose class path is not the archive's (the installed wheel's pyspark in test_package.py) or whose
JDK is not the one that wrote it maps the JDK's own archive only, and says nothing (its cds logging is off); the
rows are the same either way. The archive is made again when the virtualenv is (the Makefile's rule depends on its
stamp), so a changed pyspark gets one of its own.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def main() -> int:
    from tests.conftest import SPARK_CLASS_ARCHIVE as ARCHIVE, SPARK_JVM

    partial = ARCHIVE.with_name(ARCHIVE.name + ".partial")
    for stale in (ARCHIVE, partial):
        stale.unlink(missing_ok=True)
    # the options of the suite's JVMs (without an archive: it is being made), and the archive written at exit
    jvm_options = f"{SPARK_JVM} -XX:ArchiveClassesAtExit={partial} -Xlog:cds=off -Xlog:cds+dynamic=off"
    os.environ["SPARK_SUBMIT_OPTS"] = jvm_options
    from pyspark import SparkContext

    from eddy.spark_batch import submit
    from eddy.spark_batch.session import spark_session
    from tests.spark_batch.conftest import TEST_CONFIG
    from tests.spark_batch.test_jobs import write_orders

    with tempfile.TemporaryDirectory(prefix="eddy-spark-classes-") as work:
        state, out = Path(work) / "state", Path(work) / "out"
        write_orders(state)
        spark = spark_session("local[2]", app_name="eddy-spark-classes",
                              config={**TEST_CONFIG, "spark.driver.extraJavaOptions": jvm_options,
                                      "spark.sql.warehouse.dir": str(Path(work) / "warehouse")})
        spark.sparkContext.setLogLevel("ERROR")
        jvm = SparkContext._gateway.proc
        if submit.main(["aggregate", "--state-dir", str(state), "--out", str(out / "metrics")]) != 0:
            raise SystemExit(f"eddy spark aggregate failed while making {ARCHIVE.name}")
        rows = spark.read.parquet(str(out / "metrics")).orderBy("window_start").collect()
        doubled = spark.sparkContext.parallelize(range(10), 2).map(lambda n: n * 2).sum()
        if not rows or doubled != 90:
            raise SystemExit(f"the jobs run to make {ARCHIVE.name} gave no output")
        spark.stop()
        jvm.stdin.close()  # the gateway's JVM exits when its stdin closes, and writes the archive as it does
        if jvm.wait(timeout=600) != 0 or not partial.exists():
            raise SystemExit(f"the JVM wrote no {partial.name} (exit status {jvm.returncode})")
    os.replace(partial, ARCHIVE)
    print(f"{ARCHIVE}: {ARCHIVE.stat().st_size // 2**20} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
