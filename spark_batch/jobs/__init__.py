"""Batch jobs over the change log (or DynamoDB exports): each a `transform` from DataFrames to a DataFrame,
with reading and writing at the edges (spark_batch.io), wired by `run(spark, args)`.

| job | module | does |
| --- | --- | --- |
| aggregate | jobs.aggregate | usage metrics per time window and group, to Parquet (and a DynamoDB table) |
| ttl-archive | jobs.ttl_archive | items deleted by TTL, to Parquet partitioned by table and date, no duplicates |
| search-index-rebuild | jobs.search_index_rebuild | the search index from a full export plus the changes after it |

`eddy spark <job> ...` (spark_batch.cli) runs them; so does `python -m spark_batch.jobs.<module> ...`.
Each prints one summary line: rows in, rows out and wall time.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Callable

from pyspark.sql import DataFrame, Observation, SparkSession
from pyspark.sql import functions as F

#: job name -> module under spark_batch.jobs
JOBS = {"aggregate": "aggregate", "ttl-archive": "ttl_archive", "search-index-rebuild": "search_index_rebuild"}


@dataclass
class Summary:
    job: str
    rows_in: int = 0
    rows_out: int = 0
    seconds: float = 0.0
    output: str = ""
    extra: dict = field(default_factory=dict)

    def line(self) -> str:
        text = f"{self.job}: {self.rows_in:,} rows in, {self.rows_out:,} rows out, {self.seconds:.1f} s"
        return text + (f" -> {self.output}" if self.output else "")


class Counter:
    """Counts the rows flowing through a DataFrame during whatever action runs it, without another pass."""

    def __init__(self, name: str) -> None:
        self._observation = Observation(name)
        self._used = False

    def through(self, df: DataFrame) -> DataFrame:
        self._used = True
        return df.observe(self._observation, F.count(F.lit(1)).alias("rows"))

    @property
    def rows(self) -> int:
        return int(self._observation.get["rows"]) if self._used else 0


def timed(job: str, work: Callable[[Summary], None]) -> Summary:
    """Run `work(summary)` (which fills in rows and output) and time it."""
    summary = Summary(job)
    started = time.perf_counter()
    work(summary)
    summary.seconds = time.perf_counter() - started
    return summary


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--master", help="Spark master URL (default: $SPARK_MASTER, else local[*])")
    parser.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, e.g. --conf spark.driver.memory=4g (repeatable)",
    )


def session_for(args: argparse.Namespace, job: str) -> SparkSession:
    from ..session import spark_session

    config = dict(item.split("=", 1) for item in args.conf)
    return spark_session(
        args.master,
        app_name=f"eddy {job}",
        config=config,
        on_interrupt=interrupt_as_a_command(verbose=getattr(args, "verbose", False)),
    )


def interrupt_as_a_command(*, verbose: bool) -> Callable[[int, object], None]:
    """For a command's session (spark_session's `on_interrupt`, in force from before the JVM starts): Ctrl-C ends
    the command at once, as Python's own KeyboardInterrupt (`eddy` answers it in one line, exit 130). PySpark's
    handler would call the JVM from inside the py4j call the signal interrupted: that reentrant read fails and py4j
    logs pages of errors. The JVM ignores Ctrl-C and ends with this process."""
    return signal.default_int_handler if verbose else _quietly_interrupted


def _quietly_interrupted(signum: int, frame: object) -> None:
    """Ctrl-C: the connection to the JVM is abandoned, so what py4j logs about it from now on (the call the signal
    interrupted, the sockets it closes at exit, with their tracebacks) is not news."""
    logging.getLogger("py4j").setLevel(logging.CRITICAL + 1)
    logging.getLogger().addFilter(_not_from_py4j)  # py4j also logs some of it on the root logger
    raise KeyboardInterrupt


def _not_from_py4j(record: logging.LogRecord) -> bool:
    return f"{os.sep}py4j{os.sep}" not in record.pathname


def job_main(
    job: str,
    doc: str,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    run: Callable[[SparkSession, argparse.Namespace], Summary],
    argv: list[str] | None,
) -> int:
    """`python -m spark_batch.jobs.<module>`: parse, run on a session, print the summary."""
    parser = argparse.ArgumentParser(prog=f"eddy spark {job}", description=doc.split("\n")[0])
    add_common_arguments(parser)
    add_arguments(parser)
    args = parser.parse_args(argv)
    print(run(session_for(args, job), args).line())
    return 0


def split_names(text: str | None) -> list[str]:
    """'a, b,c' -> ['a', 'b', 'c']."""
    return [name.strip() for name in (text or "").split(",") if name.strip()]
