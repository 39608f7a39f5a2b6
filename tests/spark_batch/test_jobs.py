"""The batch jobs: aggregate, ttl-archive, search-index-rebuild, run as `eddy spark <job>` would."""

from __future__ import annotations

import argparse
from datetime import date, datetime
from decimal import Decimal as D
from pathlib import Path

import boto3
from pyspark.sql import Row
from pyspark.testing import assertDataFrameEqual

from eddy import emulate
from eddy.handlers import search_index
from eddy.handlers.search_index import index_contents
from eddy.spark_batch import io
from eddy.spark_batch.cli import register
from eddy.spark_batch.export import export_table
from eddy.spark_batch.jobs import aggregate

from .segments import ChangeLog, at, insert, modify, remove

REGION = "us-east-1"


def eddy(*argv: str) -> int:
    """Run `eddy <argv>` through the subcommands spark_batch.cli registers."""
    parser = argparse.ArgumentParser(prog="eddy")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args([*argv, "--master", "local[2]"])
    return args.handler(args)


def order(pk: str, amount: str, customer: str) -> dict:
    return {"pk": {"S": pk}, "amount": {"N": amount}, "customer": {"S": customer}}


def key(pk: str) -> dict:
    return {"pk": {"S": pk}}


def write_orders(state_dir: Path) -> None:
    orders = ChangeLog(state_dir, "orders")
    orders.commit(1, "2025-05-01 10:00:05.000", insert(order("o1", "10", "c1"), key("o1")))
    orders.commit(2, "2025-05-01 10:00:30.000", insert(order("o2", "2.5", "c2"), key("o2")))
    orders.commit(3, "2025-05-01 10:00:59.999", modify(order("o1", "10", "c1"), order("o1", "12", "c1"), key("o1")))
    orders.commit(4, "2025-05-01 10:01:00.000", remove(order("o2", "2.5", "c2"), key("o2"), ttl=True))
    orders.commit(5, "2025-05-02 08:00:00.000", remove(order("o1", "12", "c1"), key("o1")))  # a user's delete
    users = ChangeLog(state_dir, "users", first_sequence_number=200000000000000000001)
    users.commit(1, "2025-05-01 10:00:10.000", insert({"id": {"S": "u1"}}, {"id": {"S": "u1"}}))
    users.commit(2, "2025-05-02 23:59:59.999", remove({"id": {"S": "u1"}}, {"id": {"S": "u1"}}, ttl=True))


def test_aggregate_per_window_and_group(spark, tmp_path: Path) -> None:
    write_orders(tmp_path)
    log = io.read_change_log(spark, tmp_path)
    ten, ten_one, eight, eight_one = (at(f"2025-05-0{d} {t}:00.000") for d, t in
                                      (("1", "10:00"), ("1", "10:01"), ("2", "08:00"), ("2", "08:01")))
    metrics = aggregate.transform(log, window_seconds=60, numbers=["amount"])
    assertDataFrameEqual(metrics, [
        Row(table="orders", window_start=ten, window_end=ten_one, records=3, INSERT=2, MODIFY=1, REMOVE=0,
            amount_sum=D("24.5"), amount_avg=D("8.166667"), amount_min=D("2.5"), amount_max=D("12")),
        Row(table="orders", window_start=ten_one, window_end=at("2025-05-01 10:02:00.000"), records=1, INSERT=0,
            MODIFY=0, REMOVE=1, amount_sum=None, amount_avg=None, amount_min=None, amount_max=None),
        Row(table="orders", window_start=eight, window_end=eight_one, records=1, INSERT=0, MODIFY=0, REMOVE=1,
            amount_sum=None, amount_avg=None, amount_min=None, amount_max=None),
        Row(table="users", window_start=ten, window_end=ten_one, records=1, INSERT=1, MODIFY=0, REMOVE=0,
            amount_sum=None, amount_avg=None, amount_min=None, amount_max=None),
        Row(table="users", window_start=at("2025-05-02 23:59:00.000"), window_end=at("2025-05-03 00:00:00.000"),
            records=1, INSERT=0, MODIFY=0, REMOVE=1, amount_sum=None, amount_avg=None, amount_min=None,
            amount_max=None),
    ])
    by_customer = aggregate.transform(log.where("table = 'orders'"), window_seconds=3600, numbers=["amount"],
                                      group_by=["customer"])
    assertDataFrameEqual(by_customer.select("window_start", "customer", "records", "amount_sum", "amount_max"), [
        Row(window_start=at("2025-05-01 10:00:00.000"), customer="c1", records=2, amount_sum=D(22), amount_max=D(12)),
        Row(window_start=at("2025-05-01 10:00:00.000"), customer="c2", records=2, amount_sum=D("2.5"),
            amount_max=D("2.5")),
        Row(window_start=at("2025-05-02 08:00:00.000"), customer="c1", records=1, amount_sum=None, amount_max=None),
    ])


def test_aggregate_numbers_are_exact_whatever_their_size(spark, tmp_path: Path) -> None:
    log = ChangeLog(tmp_path, "orders")
    for version, amount in enumerate(["1E+2", "12345678.123", "0.0000005", "2.5", "-0.25", "oops"], start=1):
        log.commit(version, "2025-05-01 10:00:05.000", insert(order(f"o{version}", amount, "c"), key(f"o{version}")))
    metrics = aggregate.transform(io.read_change_log(spark, tmp_path, attributes=["amount"]), numbers=["amount"])
    assertDataFrameEqual(metrics.select("records", "amount_sum", "amount_avg", "amount_min", "amount_max"), [
        Row(records=6, amount_sum=D("12345780.373001"), amount_avg=D("2469156.074600"), amount_min=D("-0.25"),
            amount_max=D("12345678.123"))])


def test_aggregate_writes_parquet_and_a_dynamodb_table(spark, tmp_path: Path, capsys) -> None:
    write_orders(tmp_path / "state")
    with emulate(housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        dynamodb.create_table(TableName="metrics", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST")
        assert eddy("spark", "aggregate", "--state-dir", str(tmp_path / "state"), "--out", str(tmp_path / "metrics"),
                    "--numbers", "amount", "--tables", "orders", "--dynamodb-table", "metrics",
                    "--region", REGION) == 0
        items = {item["pk"]["S"]: item for item in dynamodb.scan(TableName="metrics")["Items"]}
    out = capsys.readouterr().out
    assert out.startswith("aggregate: 5 rows in, 3 rows out, ")
    assert out.endswith(f" s -> {tmp_path / 'metrics'} and 3 items in DynamoDB table metrics\n")
    assert sorted(items) == ["orders#2025-05-01T10:00:00Z", "orders#2025-05-01T10:01:00Z", "orders#2025-05-02T08:00:00Z"]
    assert items["orders#2025-05-01T10:00:00Z"] == {
        "pk": {"S": "orders#2025-05-01T10:00:00Z"}, "table": {"S": "orders"}, "bucket_start": {"N": "1746093600"},
        "window_seconds": {"N": "60"}, "records": {"N": "3"}, "INSERT": {"N": "2"}, "MODIFY": {"N": "1"},
        "REMOVE": {"N": "0"}, "amount_sum": {"N": "24.5"}, "amount_avg": {"N": "8.166667"}, "amount_min": {"N": "2.5"},
        "amount_max": {"N": "12"}}
    assert spark.read.parquet(str(tmp_path / "metrics")).count() == 3


def test_ttl_archive_keeps_ttl_deletions_once(spark, tmp_path: Path, capsys) -> None:
    write_orders(tmp_path / "state")
    archive = str(tmp_path / "archive")
    for _ in range(2):
        assert eddy("spark", "ttl-archive", "--state-dir", str(tmp_path / "state"), "--out", archive) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("ttl-archive: 7 rows in, 2 rows out, ") and first.endswith(f" s -> {archive}")
    assert second.startswith("ttl-archive: 7 rows in, 0 rows out, ")
    assert sorted(path.name for path in Path(archive).glob("table=*/date=*")) == ["date=2025-05-01", "date=2025-05-02"]
    assertDataFrameEqual(spark.read.parquet(archive), [
        Row(deleted_at=at("2025-05-01 10:01:00.000"), sequence_number=D("100000000000000000004"),
            event_id="e100000000000000000004", keys='{"pk":{"S":"o2"}}',
            item='{"pk":{"S":"o2"},"amount":{"N":"2.5"},"customer":{"S":"c2"}}', table="orders", date=date(2025, 5, 1)),
        Row(deleted_at=at("2025-05-02 23:59:59.999"), sequence_number=D("200000000000000000002"),
            event_id="e200000000000000000002", keys='{"id":{"S":"u1"}}', item='{"id":{"S":"u1"}}', table="users",
            date=date(2025, 5, 2)),
    ])


def test_ttl_archive_runs_again_after_a_run_that_archived_nothing(spark, tmp_path: Path, capsys) -> None:
    ChangeLog(tmp_path / "state", "orders").commit(1, "2025-05-01 10:00:00.000", insert(key(1), key(1)))
    archive = str(tmp_path / "archive")
    for _ in range(2):  # the first leaves only the marker of a write without rows
        assert eddy("spark", "ttl-archive", "--state-dir", str(tmp_path / "state"), "--out", archive) == 0
    assert [line.split(", ")[:2] for line in capsys.readouterr().out.splitlines()] == [
        ["ttl-archive: 1 rows in", "0 rows out"]] * 2


def test_search_index_rebuilt_from_an_export_equals_the_handlers(spark, tmp_path: Path, monkeypatch) -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": REGION}.items():
        monkeypatch.setenv(name, value)
    maintained = str(tmp_path / "maintained.sqlite")
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        emu.register_function("indexer", search_index.handler,
                              environment={"SEARCH_INDEX_PATH": maintained, "SEARCH_ATTRIBUTES": "title,body,year"})
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        arn = dynamodb.create_table(
            TableName="books", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )["TableDescription"]["LatestStreamArn"]
        boto3.client("lambda", region_name=REGION).create_event_source_mapping(
            EventSourceArn=arn, FunctionName="indexer", StartingPosition="TRIM_HORIZON", BatchSize=3)

        def put(pk: str, title: str, body: str, **more: dict) -> None:
            dynamodb.put_item(TableName="books", Item={"pk": {"S": pk}, "title": {"S": title}, "body": {"S": body},
                                                       **more})

        put("b1", "The Hobbit", "a dragon guards the gold", year={"N": "1937"})
        put("b2", "Dune", "sand worms and spice")
        put("b3", "Eragon", "a boy finds a dragon egg", tags={"SS": ["fantasy"]})
        put("b4", "Emma", "matchmaking in Highbury")
        dynamodb.delete_item(TableName="books", Key=key("b2"))
        assert emu.wait_idle(120)["Idle"]
        [summary] = export_table(spark, str(emu.state_dir), "books", str(tmp_path / "exports"), formats=("full",),
                                 scan=True, region=REGION)
        dynamodb.update_item(TableName="books", Key=key("b3"), UpdateExpression="SET body = :b",
                             ExpressionAttributeValues={":b": {"S": "a farm boy and a blue dragon"}})
        dynamodb.delete_item(TableName="books", Key=key("b4"))
        put("b2", "Dune Messiah", "the emperor's doubts", year={"N": "1969"})
        put("b5", "Beowulf", "a monster and its mother")
        assert emu.wait_idle(120)["Idle"]

        rebuilt, from_exports = str(tmp_path / "rebuilt.sqlite"), str(tmp_path / "from-exports.sqlite")
        assert eddy("spark", "search-index-rebuild", "--export", summary["directory"], "--state-dir",
                    str(emu.state_dir), "--attributes", "title,body,year", "--index", rebuilt) == 0
        [changes] = export_table(spark, str(emu.state_dir), "books", str(tmp_path / "exports"), formats=("incremental",),
                                 from_time=datetime.fromisoformat(summary["exportTime"].replace("Z", "+00:00")))
        assert eddy("spark", "search-index-rebuild", "--export", summary["directory"], "--incremental",
                    changes["directory"], "--attributes", "title,body,year", "--index", from_exports) == 0
    assert index_contents(rebuilt) == index_contents(maintained)
    assert index_contents(from_exports) == index_contents(maintained)
    assert index_contents(rebuilt) == [
        {"table": "books", "id": '{"pk":{"S":"b1"}}',
         "fields": {"title": "The Hobbit", "body": "a dragon guards the gold", "year": "1937"}},
        {"table": "books", "id": '{"pk":{"S":"b2"}}',
         "fields": {"title": "Dune Messiah", "body": "the emperor's doubts", "year": "1969"}},
        {"table": "books", "id": '{"pk":{"S":"b3"}}', "fields": {"title": "Eragon", "body": "a farm boy and a blue dragon"}},
        {"table": "books", "id": '{"pk":{"S":"b5"}}', "fields": {"title": "Beowulf", "body": "a monster and its mother"}},
    ]
    assert search_index.search(rebuilt, "dragon") and sorted(map(str, search_index.search(rebuilt, "dragon"))) == [
        "{'pk': {'S': 'b1'}}", "{'pk': {'S': 'b3'}}"]
