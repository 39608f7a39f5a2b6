"""The test session's Python workers import pyspark from site-packages, where the virtualenv keeps its bytecode, not
from the wheel's pyspark.zip that Spark puts first on their path (worker_site/sitecustomize.py says why: a worker
compiling pyspark from the zip at each start missed Spark's 10 s connect-back on a loaded machine)."""

from __future__ import annotations

from typing import Iterator

import pyspark


def test_the_python_workers_import_pyspark_from_site_packages(spark) -> None:
    def where(rows: Iterator[int]) -> Iterator[str]:
        import pyspark as worker_pyspark

        yield worker_pyspark.__file__

    assert spark.sparkContext.parallelize([0], 1).mapPartitions(where).collect() == [pyspark.__file__]
    assert ".zip" not in pyspark.__file__
