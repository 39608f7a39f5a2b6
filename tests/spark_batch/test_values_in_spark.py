"""Every attribute value a client can send reaches Spark's readers as it was written: the change log
(read_change_log's images) and a full export (export_table, read back with read_full_export), with the random
items of tests/durability/test_values.py (hypothesis) written through every write API."""

from __future__ import annotations

import base64
import json
from typing import Any

import boto3
from hypothesis import HealthCheck, given, settings, strategies as st

from eddy import emulate
from eddy.spark_batch.export import export_table
from eddy.spark_batch.io import read_change_log, read_full_export
from tests.durability.test_values import APIS, TABLE, attributes, item_as_returned, write


def as_sent(value: dict[str, Any]) -> dict[str, Any]:
    """A value of DynamoDB JSON as text (binary as base64) as boto3 sends and reads it (binary as bytes)."""
    ((kind, content),) = value.items()
    if kind == "B":
        return {kind: base64.b64decode(content)}
    if kind == "BS":
        return {kind: [base64.b64decode(member) for member in content]}
    if kind == "L":
        return {kind: [as_sent(member) for member in content]}
    if kind == "M":
        return {kind: {name: as_sent(member) for name, member in content.items()}}
    return value


def read_back(text: str) -> tuple[str, dict[str, Any]]:
    item = {name: as_sent(value) for name, value in json.loads(text).items()}
    return item["pk"]["S"], item_as_returned(item)


def test_every_value_reaches_the_change_log_and_the_export_as_written(spark, tmp_path):
    state = tmp_path / "state"
    written: dict[str, dict[str, Any]] = {}
    with emulate(state_dir=state, housekeeping_interval=None):
        ddb = boto3.client("dynamodb", region_name="us-east-1")
        ddb.create_table(**TABLE)

        @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
        @given(api=st.sampled_from(APIS), attrs=attributes)
        def write_one(api: str, attrs: dict[str, Any]) -> None:
            key = f"{api}-{len(written)}"
            write(ddb, api, key, attrs)
            written[key] = item_as_returned({"pk": {"S": key}, **attrs})

        write_one()
    log = read_change_log(spark, state, tables=["values"])
    assert dict(read_back(row["new_image"]) for row in log.select("new_image").collect()) == written
    [summary] = export_table(spark, str(state), "values", str(tmp_path / "exports"), formats=("full",))
    exported = read_full_export(spark, summary["directory"]).collect()
    assert dict(read_back(row["item"]) for row in exported) == written
