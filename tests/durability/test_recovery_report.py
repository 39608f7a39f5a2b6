"""Recovery's report counts what it restored of Eddy's own state: tables, items and stream records, functions (Python
and Node.js), event source mappings, and moto's layer versions on the same line as Lambda's. Both doors."""

from __future__ import annotations

import logging

import pytest

from eddy import emulate
from tests.conftest import QUIET
from tests.durability.service_listings import layer_zip, running
from tests.durability.test_services import _serve_until_ready
from tests.emulator.functions.test_function_errors import node
from tests.emulator.functions.test_functions import create_function
from tests.emulator.helpers import create_table

DYNAMODB_LINE = "recovered dynamodb: 1 table, 2 items, 5 stream records"
LAMBDA_LINE = "recovered lambda: 2 functions, 2 event source mappings, 1 layer version"


@pytest.fixture(params=["inprocess", "server"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def build(door) -> None:
    dynamodb, lam = door.client("dynamodb"), door.client("lambda")
    stream_arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    for key in ("a", "b", "c"):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "2"}})  # MODIFY
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "c"}})  # REMOVE: 5 records, 2 items left
    layer = lam.publish_layer_version(LayerName="shared", Content={"ZipFile": layer_zip("A = 1\n")})
    create_function(lam, "python-reader", "def handler(event, context):\n    return None\n",
                    Layers=[layer["LayerVersionArn"]])
    node(lam, "node-reader", "exports.handler = async () => null;")
    for name in ("python-reader", "node-reader"):
        lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName=name, StartingPosition="LATEST")


def test_recovery_counts_tables_items_records_functions_mappings_and_layers(kind, tmp_path, caplog):
    state = str(tmp_path / "state")
    with running(kind, state) as door:
        build(door)
    if kind == "server":
        out = _serve_until_ready(state)
        lines = [line.split(" INFO ", 1)[-1].strip() for line in out.splitlines() if "recovered " in line]
    else:
        caplog.set_level(logging.INFO, logger="eddy")
        with emulate(state_dir=state, **QUIET):
            lines = [record.getMessage() for record in caplog.records if record.getMessage().startswith("recovered")]
    assert DYNAMODB_LINE in lines and LAMBDA_LINE in lines, lines
