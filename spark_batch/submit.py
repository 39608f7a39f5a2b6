"""`spark-submit` runs the `eddy spark` jobs on an existing cluster: this file is the application.

    spark-submit --master spark://host:7077 --conf spark.pyspark.python=/opt/eddy/.venv/bin/python \\
        "$(/opt/eddy/.venv/bin/python -m spark_batch.submit --path)" \\
        aggregate --state-dir /shared/.eddy --out /shared/metrics --numbers amount

The arguments after the file are those of `eddy spark` (aggregate, ttl-archive, search-index-rebuild, stream,
sql) or `eddy export`; the master and every --conf come from spark-submit. The interpreter named by
spark.pyspark.python must have Eddy installed on every machine of the cluster (pip install of this project).
"""

from __future__ import annotations

import argparse
import sys

from eddy.spark_batch.cli import register


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--path"]:
        print(__file__)
        return 0
    parser = argparse.ArgumentParser(prog="spark-submit ... spark_batch/submit.py")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv if argv[:1] in (["export"], ["spark"]) else ["spark", *argv])
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
