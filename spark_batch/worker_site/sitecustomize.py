"""On the PYTHONPATH of a Spark session's Python workers (spark_batch/session.py: spark.executorEnv.PYTHONPATH): puts
the pyspark wheel's python/lib/pyspark.zip and py4j-*.zip, which Spark places first on every worker's path, behind
site-packages, where the same wheel's pyspark and its py4j are installed; then runs the sitecustomize it shadows.

Python keeps no bytecode for modules imported from a zip, so a worker importing pyspark from pyspark.zip compiles
each module's source at every start: 1.5 s of CPU for the streaming source's runner against 0.3 s from
site-packages (15-19 s against 3 s of wall time at load 10, 2026-11-28). Past 10 s, Spark's fixed wait for a
worker to connect back, the query fails ("Python worker failed to connect back", PythonWorkerFactory
.createSimpleWorker). A zip is moved only when the folder that holds the wheel's pyspark (the zip's
<site-packages>/pyspark/python/lib/) is on the path: the worker then imports the very same release; a Spark
distribution of its own (SPARK_HOME elsewhere) keeps its zips first.
"""

import importlib.machinery
import importlib.util
import os
import sys


def _wheels_zip(entry: str) -> bool:
    parts = os.path.normpath(entry).split(os.sep)
    site_packages = os.sep.join(parts[:-4])
    return (entry.endswith(".zip") and parts[-4:-1] == ["pyspark", "python", "lib"]
            and any(os.path.normpath(path) == site_packages for path in sys.path if path))


_ZIPS = [entry for entry in sys.path if _wheels_zip(entry)]
for _entry in _ZIPS:
    sys.path.remove(_entry)
sys.path.extend(_ZIPS)  # still there for whatever site-packages lacks

# the sitecustomize this one shadows (a distribution's, a user's further on the path) runs as it would have
_HERE = os.path.dirname(os.path.abspath(__file__))
_NEXT = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [path for path in sys.path if os.path.abspath(path or os.curdir) != _HERE])
if _NEXT is not None and _NEXT.loader is not None:
    _module = importlib.util.module_from_spec(_NEXT)
    sys.modules["sitecustomize"] = _module
    _NEXT.loader.exec_module(_module)
