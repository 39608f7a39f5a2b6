"""One SparkSession for every Spark test: local[2], no UI, two shuffle partitions, UTC, interpreted expressions (its
Python workers import pyspark from site-packages, as every session spark_session makes: test_workers.py)."""

from __future__ import annotations

from typing import Iterator

import pytest
from pyspark.sql import SparkSession

from eddy.spark_batch.session import spark_session
from tests.conftest import SMALL_JOB_JVM

#: what keeps a test session quick to start and quick on tiny inputs
TEST_CONFIG = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.sql.adaptive.enabled": "false",
    # no whole-stage code generation: the tests' inputs are a few rows, and compiling each query's stages cost more
    # than it saved (the JVM's CPU on test_seed_examples, test_stream_sql and test_table_streams: 121 s with it, 96 s
    # without; the same operators give the same rows either way)
    "spark.sql.codegen.wholeStage": "false",
    # nor Janino-compiled projections, predicates and orderings: Spark's interpreted ones (the mode Spark's own test
    # suites run every expression in as well) on a few rows cost less than compiling them for each query (the
    # session's JVM CPU over the `spark` group: 201 s with them, 166 s without, 2026-11-28; test_stream_sql.py
    # alone 64 s and 49 s)
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    # the JIT's first tier only: with C2 as well, test_stream_sql.py's JVM CPU was 109 s against 64 s (2026-11-28);
    # and Spark's classes not verified as they load (tests/conftest.py's SMALL_JOB_JVM says why)
    "spark.driver.extraJavaOptions": SMALL_JOB_JVM,
    # the plan each query posts for Spark's SQL UI (which is off here) in Spark's plain tree form, not the 'formatted'
    # one that numbers and describes every operator: formatted, 101 of the 1,243 samples of the driver's query threads
    # in a JFR profile of test_stream_sql.py (8.1%); plain, 64 of 1,006 (6.4%), 2026-11-29. No row changes; no test
    # reads the UI's plan
    "spark.sql.ui.explainMode": "simple",
    "spark.sql.warehouse.dir": "",
}


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    config = {**TEST_CONFIG, "spark.sql.warehouse.dir": str(tmp_path_factory.mktemp("warehouse"))}
    session = spark_session("local[2]", app_name="eddy-tests", config=config)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()

