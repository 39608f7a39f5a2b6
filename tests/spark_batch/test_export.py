"""`eddy export`: full and incremental DynamoDB exports made from the change log."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from pathlib import Path

import pytest

from eddy.spark_batch.errors import IncompleteHistoryError
from eddy.spark_batch.export import export_table

from .segments import ChangeLog, epoch, insert, modify, remove
from .test_jobs import eddy, key, order


def test_export_writes_both_formats_where_dynamodb_puts_them(spark, tmp_path: Path, capsys) -> None:
    orders = ChangeLog(tmp_path / "state", "orders")
    orders.commit(1, "2025-05-01 10:00:05.000", insert(order("o1", "10", "c1"), key("o1")),
                  insert(order("o3", "7", "c3"), key("o3")))
    orders.commit(2, "2025-05-01 10:00:30.000", insert(order("o2", "2.5", "c2"), key("o2")))
    orders.commit(3, "2025-05-01 10:00:59.999", modify(order("o1", "10", "c1"), order("o1", "12", "c1"), key("o1")))
    orders.commit(4, "2025-05-01 10:01:00.000", remove(order("o2", "2.5", "c2"), key("o2"), ttl=True))
    assert eddy("export", "--table", "orders", "--to", str(tmp_path / "exports"), "--state-dir",
                str(tmp_path / "state"), "--from-time", "2025-05-01T10:00:30Z") == 0
    full_line, incremental_line = capsys.readouterr().out.splitlines()
    assert full_line.startswith("FULL_EXPORT: 2 items -> ") and incremental_line.startswith("INCREMENTAL_EXPORT: 1 items -> ")
    full, incremental = (Path(line.split(" -> ")[1]) for line in (full_line, incremental_line))
    assert full.parent == incremental.parent == tmp_path / "exports" / "AWSDynamoDB"

    summary = json.loads((full / "manifest-summary.json").read_text())
    assert {k: summary[k] for k in ("version", "exportType", "exportTime", "tableArn", "itemCount", "outputFormat")} == {
        "version": "2020-06-30", "exportType": "FULL_EXPORT", "exportTime": "2025-05-01T10:01:00.000Z",
        "tableArn": "arn:aws:dynamodb:us-east-1:123456789012:table/orders", "itemCount": 2,
        "outputFormat": "DYNAMODB_JSON"}
    assert sorted(_lines(full)) == [
        '{"Item":{"pk":{"S":"o1"},"amount":{"N":"12"},"customer":{"S":"c1"}}}',
        '{"Item":{"pk":{"S":"o3"},"amount":{"N":"7"},"customer":{"S":"c3"}}}']
    files = [json.loads(line) for line in (full / "manifest-files.json").read_text().splitlines()]
    assert sum(entry["itemCount"] for entry in files) == 2 and all(
        (full / entry["dataFileS3Key"]).is_file() for entry in files)
    # what DynamoDB writes (developer guide, "DynamoDB table export output format"), and nothing else: no Hadoop
    # .crc files, no _SUCCESS, no staging directory
    for export in (full, incremental):
        data = sorted(path.name for path in (export / "data").iterdir())
        assert sorted(str(path.relative_to(export)) for path in export.rglob("*")) == sorted(
            ["_started", "data", "manifest-files.checksum", "manifest-files.json", "manifest-summary.checksum",
             "manifest-summary.json"] + [f"data/{name}" for name in data])
        assert all(name.endswith(".json.gz") for name in data)
        for manifest in ("manifest-files", "manifest-summary"):
            assert (export / f"{manifest}.checksum").read_text() == hashlib.md5(
                (export / f"{manifest}.json").read_bytes()).hexdigest()
        for entry in (json.loads(line) for line in (export / "manifest-files.json").read_text().splitlines()):
            written = (export / entry["dataFileS3Key"]).read_bytes()
            assert (entry["md5Checksum"], entry["etag"]) == (
                base64.b64encode(hashlib.md5(written).digest()).decode(), hashlib.md5(written).hexdigest())

    period = json.loads((incremental / "manifest-summary.json").read_text())
    assert (period["exportType"], period["exportFromTime"], period["outputView"]) == (
        "INCREMENTAL_EXPORT", "2025-05-01T10:00:30.000Z", "NEW_AND_OLD_IMAGES")
    micros = round(epoch("2025-05-01 10:00:59.999") * 1_000_000)
    # o2, inserted and deleted inside the period, is left out
    assert _lines(incremental) == [
        f'{{"Metadata":{{"WriteTimestampMicros":{{"N":"{micros}"}}}},"Keys":{{"pk":{{"S":"o1"}}}},'
        '"OldImage":{"pk":{"S":"o1"},"amount":{"N":"10"},"customer":{"S":"c1"}},'
        '"NewImage":{"pk":{"S":"o1"},"amount":{"N":"12"},"customer":{"S":"c1"}}}']


def test_a_full_export_from_the_log_needs_the_whole_history(spark, tmp_path: Path) -> None:
    ChangeLog(tmp_path / "state", "orders").commit(5, "2025-05-01 10:00:05.000", insert(order("o1", "1", "c"), key("o1")))
    with pytest.raises(IncompleteHistoryError, match=r"table orders: commits 1\.\.5 are not all in the change log"):
        export_table(spark, str(tmp_path / "state"), "orders", str(tmp_path / "exports"), formats=("full",))


def _lines(export: Path) -> list[str]:
    return [line for path in sorted((export / "data").glob("*.json.gz"))
            for line in gzip.decompress(path.read_bytes()).decode().splitlines()]


def test_a_scan_export_from_eddy_needs_no_aws_configuration(spark, tmp_path: Path, capsys, server_url: str,
                                                             unconfigured: None) -> None:
    import boto3

    dynamodb = boto3.client("dynamodb", endpoint_url=server_url, region_name="us-east-1",
                            aws_access_key_id="testing", aws_secret_access_key="testing")
    dynamodb.create_table(TableName="scanned", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")
    dynamodb.put_item(TableName="scanned", Item={"pk": {"S": "o1"}})
    ChangeLog(tmp_path / "state", "scanned").commit(1, "2025-05-01 10:00:05.000", insert(order("o1", "10", "c1"), key("o1")))
    # no region, no credentials on this machine: the command uses us-east-1 and fake keys at Eddy's endpoint
    assert eddy("export", "--table", "scanned", "--to", str(tmp_path / "exports"), "--state-dir", str(tmp_path / "state"),
                "--format", "full", "--scan", "--endpoint-url", server_url) == 0
    assert capsys.readouterr().out.startswith("FULL_EXPORT: 1 items -> ")
