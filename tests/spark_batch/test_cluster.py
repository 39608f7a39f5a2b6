"""Every `eddy spark` job and the dynamodbstreams source on a Spark standalone cluster started from the pyspark
wheel alone (bin/spark-class: a master and a worker), submitted with spark-submit from a directory that is not
the repository's: the same output as on local[2]."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator

import pyspark
import pytest
from pyspark.testing import assertDataFrameEqual

from eddy.handlers.search_index import index_contents
from eddy.spark_batch.export import export_table
from tests.conftest import REGION, SMALL_JOB_JVM, eddy_server

from .segments import ChangeLog, insert
from .streaming.test_source import new_table, write
from .test_jobs import eddy, key, order, write_orders

SPARK_CLASS = Path(pyspark.__file__).parent / "bin" / "spark-class"

SPARK_SUBMIT = SPARK_CLASS.with_name("spark-submit")

#: the application spark-submit runs, in another directory: each job as docs/guides/spark-jobs.md's "On a cluster" says
#: (spark_batch.submit), then the streaming source, all on the master spark-submit was given
DRIVER = """
import json, sys
from eddy.spark_batch import submit
from eddy.spark_batch.session import spark_session

master, jobs, source, out = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
for argv in jobs:
    assert submit.main(argv) == 0, argv
spark = spark_session()
assert spark.sparkContext.master == master
query = (spark.readStream.format("dynamodbstreams").options(**source).load().writeStream.format("parquet")
         .option("path", out).option("checkpointLocation", out + "-checkpoint").trigger(availableNow=True).start())
query.awaitTermination()
assert query.exception() is None
"""


#: the JVMs' options on the cluster (the master and the worker: SPARK_DAEMON_JAVA_OPTS; the driver and the
#: executor: spark-submit's): the test session's (tests/conftest.py's SMALL_JOB_JVM), which change no row
JAVA_OPTIONS = SMALL_JOB_JVM


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_line(process: subprocess.Popen, text: str, log: Path, seconds: float = 90) -> None:
    """Block until `process` prints a line containing `text`; everything it prints goes on into `log`."""
    seen = threading.Event()

    def copy() -> None:
        with open(log, "w") as sink:
            for line in process.stdout:
                sink.write(line)
                sink.flush()
                if text in line:
                    seen.set()

    threading.Thread(target=copy, daemon=True).start()
    if not seen.wait(seconds):
        raise AssertionError(f"{log.name}: no line with {text!r} within {seconds} s")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone master and one worker (2 cores) on 127.0.0.1; yields the master's URL."""
    logs = tmp_path_factory.mktemp("cluster")
    port = free_port()
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(logs), SPARK_WORKER_DIR=str(logs / "work"),
               SPARK_DAEMON_JAVA_OPTS=JAVA_OPTIONS)
    master_url = f"spark://127.0.0.1:{port}"
    processes = [subprocess.Popen([str(SPARK_CLASS), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", str(free_port())],
                                  stdout=open(logs / "master.log", "w"), stderr=subprocess.STDOUT, env=env)]
    try:
        processes.append(subprocess.Popen(
            [str(SPARK_CLASS), "org.apache.spark.deploy.worker.Worker", master_url, "--host", "127.0.0.1",
             "--cores", "2", "--memory", "2g", "--webui-port", str(free_port())],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env))
        wait_for_line(processes[-1], "Successfully registered with master", logs / "worker.log")
        yield master_url
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def test_jobs_and_the_streaming_source_give_on_a_cluster_what_they_give_on_local(spark, cluster: str,
                                                                                 tmp_path: Path) -> None:
    state = tmp_path / "state"
    write_orders(state)
    more = ChangeLog(state, "orders", shard="shardId-00000001745859600001-0a1b2c3d",
                     first_sequence_number=100000000000000000010)
    more.commit(6, "2025-05-03 09:00:00.000", insert(order("o3", "7", "c3"), key("o3")),
                insert(order("o4", "9", "c1"), key("o4")))
    [export] = export_table(spark, str(state), "orders", str(tmp_path / "exports"), formats=("full",))

    def jobs(out: Path) -> list[list[str]]:
        return [["spark", "aggregate", "--state-dir", str(state), "--out", str(out / "metrics")],
                ["spark", "ttl-archive", "--state-dir", str(state), "--out", str(out / "archive")],
                ["spark", "search-index-rebuild", "--export", export["directory"], "--state-dir", str(state),
                 "--attributes", "customer,amount", "--index", str(out / "index.sqlite")]]

    with eddy_server("--in-memory", "--housekeeping-interval", "0") as (url, _):
        arn = new_table(url, "cluster-orders")
        write(url, "cluster-orders", range(30))
        source = {"streamArn": arn, "endpointUrl": url, "region": REGION, "accessKeyId": "testing",
                  "secretAccessKey": "testing"}
        on_cluster, on_local = tmp_path / "cluster", tmp_path / "local"
        env = {name: value for name, value in os.environ.items() if name != "PYSPARK_PYTHON"}
        (tmp_path / "driver.py").write_text(DRIVER)
        run = subprocess.run([str(SPARK_SUBMIT), "--master", cluster, "--conf", f"spark.pyspark.python={sys.executable}",
                              "--driver-java-options", JAVA_OPTIONS,
                              "--conf", f"spark.executor.extraJavaOptions={JAVA_OPTIONS}",
                              "driver.py", cluster, json.dumps([argv[1:] for argv in jobs(on_cluster)]),
                              json.dumps(source), str(on_cluster / "changes")],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        for argv in jobs(on_local):
            assert eddy(*argv) == 0
        local_changes = spark.read.format("dynamodbstreams").options(**source).load().collect()

    for output in ("metrics", "archive"):
        assertDataFrameEqual(spark.read.parquet(str(on_cluster / output)), spark.read.parquet(str(on_local / output)))
    built = index_contents(str(on_cluster / "index.sqlite"))
    assert built == index_contents(str(on_local / "index.sqlite")) and len(built) == 2
    cluster_changes = spark.read.parquet(str(on_cluster / "changes"))
    assert cluster_changes.count() == 30
    assertDataFrameEqual(cluster_changes, local_changes)
