"""The SparkSession the batch path runs on: local[*] by default, any cluster given a master URL.

    from eddy.spark_batch.session import spark_session
    spark = spark_session()                       # local[*], or $SPARK_MASTER when set
    spark = spark_session("spark://host:7077")    # a standalone cluster (yarn, k8s://... alike)

Nothing is downloaded at run time: no `spark.jars.packages`, only the jars inside the pyspark wheel (and
whatever a cluster brings). The wheel has no hadoop-aws, so s3a:// paths need its jar on the classpath;
`require_filesystem` says so plainly instead of failing deep inside a job.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import Callable, Mapping

from pyspark import SparkConf, SparkContext
from pyspark.sql import SparkSession

from . import jvm
from .errors import MissingFileSystemError
from .streaming import register as register_dynamodb_streams

#: the driver's logging: warnings and errors, minus those that are normal on one machine
LOG4J2 = Path(__file__).with_name("log4j2.properties")
#: first on the Python workers' PYTHONPATH: their sitecustomize.py, which has them import pyspark from site-packages
#: (compiled once), not from the zip Spark puts first on their path (worker_site/sitecustomize.py says why)
WORKER_SITE = Path(__file__).with_name("worker_site")

#: settings every Eddy session gets unless the caller sets them: UTC everywhere (commit timestamps are UTC),
#: and Spark's console progress bar on, so that long jobs show their stages.
DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.showConsoleProgress": "true",
    # Spark's UI on a port the system picks as it binds (Utils.startServiceOnPort: 0 is "any free port"): 4040, its
    # default, makes Spark log a WARN and try the next port when another application holds it; a port checked
    # free beforehand could be taken by another process before Spark binds it
    "spark.ui.port": "0",
}

#: what to do about a scheme whose FileSystem class is missing
_HINTS = {
    "s3a": "s3a:// needs the hadoop-aws jar (org.apache.hadoop.fs.s3a.S3AFileSystem) and the AWS SDK bundle it "
    "depends on, matching Hadoop {hadoop}; the pyspark wheel has neither and Eddy downloads nothing at "
    "run time. Put them on the classpath (spark.jars / --jars, or a cluster that has them) and run again.",
}


def spark_session(
    master: str | None = None,
    app_name: str = "eddy",
    config: Mapping[str, str] | None = None,
    *,
    on_interrupt: Callable[[int, object], object] | None = None,
) -> SparkSession:
    """A SparkSession on `master` (default: $SPARK_MASTER, else local[*]) with Eddy's defaults under `config`.

    Its Python workers run this interpreter (unless PYSPARK_PYTHON or spark.pyspark.python says otherwise), so
    spark_batch imports on them from any directory; a local master binds to 127.0.0.1; the driver logs through
    spark_batch/log4j2.properties; the `dynamodbstreams` source is registered. A session that starts the driver's
    JVM checks Java first (JavaMissingError) and starts it without its incubator warning; a new SparkContext's UI
    picks a free port itself (spark.ui.port=0), so another application holding 4040 causes no WARN; its Python
    workers import pyspark from site-packages, not from the wheel's pyspark.zip (WORKER_SITE), so that none misses
    Spark's 10 s wait for it to connect back on a busy machine.

    `on_interrupt` (a command's SIGINT handler) is in force from before the JVM starts, and stays: PySpark's own
    handler, which a new SparkContext installs, is replaced at once, before any other call to the JVM (it would
    cancel the jobs from inside the py4j call the signal interrupted, and py4j would log pages of errors).
    """
    _handle_interrupts(on_interrupt)
    # under spark-submit (which starts the JVM first) the master is spark-submit's, unless one is named
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    starting = not submitted and SparkContext._gateway is None  # this call starts the driver's JVM
    if starting:
        jvm.require_java()
    master = master or os.environ.get("SPARK_MASTER") or ("" if submitted else "local[*]")
    config = dict(config or {})
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    defaults = dict(DEFAULTS)
    if "spark.pyspark.python" not in config:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if master.startswith("local"):
        # Spark's 200 shuffle partitions are for clusters; on one machine each costs more than it brings
        defaults["spark.sql.shuffle.partitions"] = str(2 * (os.cpu_count() or 1))
        # a local master is this machine's alone: no "hostname resolves to a loopback address" guesswork
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        defaults.update({"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"})
    # the workers' environment (sc.environment: every Python function's, a data source's too), the caller's path after
    python_path = config.pop("spark.executorEnv.PYTHONPATH", "")
    defaults["spark.executorEnv.PYTHONPATH"] = os.pathsep.join(filter(None, [str(WORKER_SITE), python_path]))
    options = config.pop("spark.driver.extraJavaOptions", "")
    defaults["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile={LOG4J2.as_uri()} {options}".strip()
    settings = {**defaults, **config}
    for key, value in settings.items():
        builder = builder.config(key, value)
    named = {**settings, "spark.app.name": app_name, **({"spark.master": master} if master else {})}
    if starting:
        jvm.launch(named)
    if SparkContext._active_spark_context is None:
        SparkContext.getOrCreate(SparkConf().setAll(list(named.items())))  # installs PySpark's SIGINT handler
        _handle_interrupts(on_interrupt)
    spark = builder.getOrCreate()  # on the context just made
    _quiet(spark)
    register_dynamodb_streams(spark)
    return spark


def _handle_interrupts(handler: Callable[[int, object], object] | None) -> None:
    if handler is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)


#: loggers that warn, with a stack trace, about what is normal here (a glob path has no _spark_metadata)
_NOISY = (
    "org.apache.spark.sql.execution.streaming.FileStreamSink",
    "org.apache.spark.sql.execution.streaming.sinks.FileStreamSink",
)


def _quiet(spark: SparkSession) -> None:
    try:
        error = jvm.java_class(spark, "org.apache.logging.log4j.Level").ERROR
        for name in _NOISY:
            jvm.java_class(spark, "org.apache.logging.log4j.core.config.Configurator").setLevel(name, error)
    except Exception:  # another logging backend on a cluster: the warnings stay, nothing breaks
        pass


def require_filesystem(spark: SparkSession, path: str) -> None:
    """Raise MissingFileSystemError if `path`'s scheme has no Hadoop FileSystem on this session's classpath."""
    scheme = scheme_of(path)
    if scheme in ("", "file"):
        return
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    try:
        jvm.java_class(spark, "org.apache.hadoop.fs.FileSystem").getFileSystemClass(scheme, conf)
    except Exception as error:  # py4j wraps ClassNotFoundException / UnsupportedFileSystemException
        hadoop = jvm.java_class(spark, "org.apache.hadoop.util.VersionInfo").getVersion()
        hint = _HINTS.get(scheme, "add the jar that provides it to the classpath (spark.jars / --jars)").format(
            hadoop=hadoop
        )
        raise MissingFileSystemError(f"no Hadoop FileSystem for {scheme}:// ({path}): {hint}") from error


def scheme_of(path: str) -> str:
    """ "s3a" for s3a://bucket/key, "" for a local path (Windows drive letters are not schemes)."""
    head, sep, _ = str(path).partition("://")
    return head.lower() if sep and head.isalnum() and len(head) > 1 else ""
