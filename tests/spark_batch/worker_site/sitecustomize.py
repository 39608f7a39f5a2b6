"""On the PYTHONPATH of the test session's Spark Python workers (tests/spark_batch/conftest.py): puts the pyspark
wheel's python/lib/pyspark.zip and py4j-*.zip, which Spark places first on every worker's path, behind
site-packages, where the same wheel's pyspark and its py4j are installed.

Python keeps no bytecode for modules imported from a zip, so a worker importing pyspark from pyspark.zip compiles
each module's source at every start: 1.5 s of CPU for the streaming source's runner against 0.3 s from
site-packages (15-19 s against 3 s of wall time at load 10, 2026-11-28). Past 10 s, Spark's fixed wait for a
worker to connect back, the query fails ("Python worker failed to connect back", PythonWorkerFactory
.createSimpleWorker), as tests/spark_batch/streaming/test_source.py did on a loaded machine.
"""

import sys

_ZIPS = [entry for entry in sys.path if "/pyspark/python/lib/" in entry.replace("\\", "/") and entry.endswith(".zip")]
for _entry in _ZIPS:
    sys.path.remove(_entry)
sys.path.extend(_ZIPS)  # still there for whatever site-packages lacks
