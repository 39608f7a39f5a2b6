"""`register(subparsers)`: the export and spark subcommands, and table streams from the command line. (An `eddy spark`
command run from another directory without PYSPARK_PYTHON, in a process of its own: test_cli_failures.py's
test_readers_keep_working_beside_the_server_that_owns_the_directory.)"""

from __future__ import annotations

import argparse
import json
from decimal import Decimal as D
from pathlib import Path

from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from eddy.spark_batch.cli import register

from .segments import ChangeLog, insert, modify
from .test_jobs import eddy, key, order


def test_register_adds_export_and_each_job() -> None:
    parser = argparse.ArgumentParser(prog="eddy")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["spark", "ttl-archive", "--master", "spark://host:7077", "--out", "a/"])
    assert (args.job, args.master, args.state_dir, args.out, callable(args.handler)) == (
        "ttl-archive", "spark://host:7077", ".eddy", "a/", True)
    args = parser.parse_args(["export", "--table", "t", "--to", "x/", "--format", "full"])
    assert (args.table, args.to, args.format, args.scan) == ("t", "x/", "full", False)
    assert parser.parse_args(["spark", "search-index-rebuild", "--export", "e", "--attributes", "a", "--index",
                              "i"]).incremental is None


def test_table_streams_from_the_command_line(spark, tmp_path: Path, capsys) -> None:
    orders = ChangeLog(tmp_path / "state", "orders")
    orders.commit(1, "2025-05-01 10:00:05.000", insert(order("o1", "10", "c1"), key("o1")))
    common = ["--state-dir", str(tmp_path / "state"), "--offsets", str(tmp_path / "offsets")]
    assert eddy("spark", "stream", "create", "orders_changes", "--table", "orders", "--at-version", "0", *common) == 0
    orders.commit(2, "2025-05-01 10:00:30.000", modify(order("o1", "10", "c1"), order("o1", "11", "c1"), key("o1")))
    replica = str(tmp_path / "replica")
    assert eddy("spark", "stream", "consume", "orders_changes", "--replica", replica, "--keys", "pk", *common) == 0
    assert eddy("spark", "stream", "list", *common) == 0
    assert capsys.readouterr().out.splitlines() == [
        "orders_changes: on orders, STANDARD, offset 0", "orders_changes: offset 2",
        json.dumps({"name": "orders_changes", "table": "orders", "mode": "STANDARD", "offset": 2})]
    assertDataFrameEqual(spark.read.parquet(replica).select("pk", "amount", "customer"),
                         [Row(pk="o1", amount=D(11), customer="c1")])
    assert eddy("spark", "stream", "drop", "orders_changes", *common) == 0
    assert not list((tmp_path / "offsets").glob("*.json"))


def test_stream_sql_one_statement_and_the_prompt(spark, tmp_path: Path, capsys, monkeypatch) -> None:
    import io

    orders = ChangeLog(tmp_path / "state", "orders")
    orders.commit(1, "2025-05-01 10:00:05.000", insert(order("o1", "10", "c1"), key("o1")))
    common = ["--state-dir", str(tmp_path / "state"), "--offsets", str(tmp_path / "offsets")]
    assert eddy("spark", "sql", "CREATE TABLE STREAM orders_sql ON TABLE orders TIMESTAMP AS OF "
                "'2025-05-01 10:00:00' WITH PROPERTIES ('TABLE_STREAM_MODE' = 'APPEND_ONLY')", *common) == 0
    assert capsys.readouterr().out == "OK\n"
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT __change_type, pk\n  FROM orders_sql;\n"
                                                 "DROP STREAM nothing_here;\nSHOW STREAMS;\nexit;\n"))
    assert eddy("spark", "sql", *common) == 0
    out = capsys.readouterr().out
    assert "|INSERT       |o1 |" in out                                   # the SELECT's rows
    assert "error: StreamNotFoundError: no table stream named nothing_here" in out  # and the prompt went on
    assert "|orders_sql|orders    |APPEND_ONLY|0     |" in out

