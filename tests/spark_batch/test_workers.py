"""A session's Python workers import pyspark from site-packages, where the virtualenv keeps its bytecode, not from
the wheel's pyspark.zip that Spark puts first on their path: spark_session gives them spark_batch/worker_site/ first on
their PYTHONPATH (spark_batch/worker_site/sitecustomize.py says why: a worker compiling pyspark from the zip at each
start missed Spark's 10 s connect-back on a loaded machine). The test session's SparkSession is spark_session's
(conftest.py); a session of `eddy spark` in a process of its own: test_jvm.py's SIGKILL test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pyspark

from eddy.spark_batch.session import WORKER_SITE


def test_the_python_workers_import_pyspark_from_site_packages(spark) -> None:
    def where(rows: Iterator[int]) -> Iterator[str]:
        import pyspark as worker_pyspark

        yield worker_pyspark.__file__

    assert spark.sparkContext.parallelize([0], 1).mapPartitions(where).collect() == [pyspark.__file__]
    assert ".zip" not in pyspark.__file__
    assert spark.sparkContext.environment["PYTHONPATH"] == str(WORKER_SITE)


def _worker_path(python_path: list[Path], tmp_path: Path) -> list[str]:
    """The order of `python_path`'s entries on sys.path in a Python given them as its PYTHONPATH, as Spark gives its
    workers theirs (its zips first, then spark.executorEnv.PYTHONPATH)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, python_path))}
    done = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sys.path))"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, check=True)
    return [entry for entry in json.loads(done.stdout) if entry in set(map(str, python_path))]


def test_only_the_zips_of_the_installed_pyspark_go_behind_site_packages(tmp_path: Path) -> None:
    wheel = Path(pyspark.__file__).parent / "python" / "lib"
    zips = sorted(wheel.glob("*.zip"))  # pyspark.zip and py4j-*-src.zip, what Spark puts first
    # a Spark distribution of its own (SPARK_HOME), in a folder named pyspark too, not where site-packages are
    other = tmp_path / "opt" / "pyspark" / "python" / "lib" / "pyspark.zip"
    assert len(zips) == 2
    assert _worker_path([*zips, WORKER_SITE], tmp_path) == [str(WORKER_SITE), *map(str, zips)]
    assert _worker_path([other, *zips, WORKER_SITE], tmp_path) == [str(other), str(WORKER_SITE), *map(str, zips)]


def test_the_sitecustomize_it_shadows_still_runs(tmp_path: Path) -> None:
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "sitecustomize.py").write_text("import sys\nsys.theirs_ran = __name__\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKER_SITE), str(tmp_path / "theirs")])}
    done = subprocess.run([sys.executable, "-c", "import sys, sitecustomize; print(sys.theirs_ran, sitecustomize.__file__)"],
                          env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["sitecustomize", str(tmp_path / "theirs" / "sitecustomize.py")]
