"""Stack files: validation with the place of each error, and `eddy up`/`down` applied with boto3 to a real server."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest
import yaml

from eddy.emulator.cli import main as eddy
from eddy.infra.apply import Clients, down, summary, up
from eddy.infra.load import load_stack
from eddy.infra.stack import StackError, parse_stack
from tests.conftest import http_json

EXAMPLE = Path(__file__).resolve().parents[2] / "infra" / "examples" / "stack.yaml"


def test_errors_name_their_place_in_the_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({
        "tables": {"orders": {"key": {"pk": "S"}, "stream": "NEW_IMAGES"}, "plain": {"key": {"pk": "X"}}},
        "functions": {"f": {"handler": "nodots", "runtime": "java21", "timeout": 0}},
        "mappings": [{"function": "f", "table": "orders", "batch_size": 20000, "on_failure": {"queue": "q", "topic": "t"}}],
        "surprise": 1,
    }))
    with pytest.raises(StackError) as invalid:
        load_stack(path)
    message = str(invalid.value)
    for expected in ("tables.orders.stream: Input should be 'KEYS_ONLY'", "tables.plain.key.pk: Input should be 'S', 'N' or 'B'",
                     "functions.f.handler: a handler is module.function", "functions.f.runtime: Eddy runs python3.9, ",
                     "functions.f.timeout: Input should be greater than or equal to 1",
                     "mappings.0.batch_size: Input should be less than or equal to 10000",
                     "mappings.0.on_failure: name exactly one on-failure destination", "surprise: Extra inputs are not permitted"):
        assert expected in message, expected


def test_references_must_resolve():
    with pytest.raises(StackError) as invalid:
        parse_stack({"tables": {"plain": {"key": {"pk": "S"}}}, "functions": {},
                     "mappings": [{"function": "missing", "table": "plain"}, {"function": "missing", "table": "nowhere"}]})
    message = str(invalid.value)
    assert "mappings.0.function: no function 'missing'" in message
    assert "mappings.0.table: table 'plain' has no stream" in message
    assert "mappings.1.table: no table 'nowhere'" in message


def test_unreadable_or_not_yaml(tmp_path):
    with pytest.raises(StackError, match="cannot read it"):
        load_stack(tmp_path / "absent.yaml")
    (tmp_path / "broken.yaml").write_text("tables: [unclosed")
    with pytest.raises(StackError, match="not valid YAML"):
        load_stack(tmp_path / "broken.yaml")


def test_up_is_idempotent_and_down_removes_everything(server_url):
    http_json(server_url + "/moto-api/reset", {})
    stack = load_stack(EXAMPLE)
    clients = Clients(server_url, "us-east-1")
    lines: list[str] = []
    planned = up(stack, clients, dry_run=True, echo=lines.append)
    assert {a.verb for a in planned} == {"create"} and boto3.client(
        "dynamodb", endpoint_url=server_url, region_name="us-east-1",
        aws_access_key_id="t", aws_secret_access_key="t").list_tables()["TableNames"] == []
    created = up(stack, clients, echo=lines.append)
    assert summary(created) == "22 created"
    assert summary(up(stack, clients, echo=lines.append)) == "22 left alone"
    lam = clients("lambda")
    mappings = lam.list_event_source_mappings()["EventSourceMappings"]
    assert len(mappings) == 6
    replicate = next(m for m in mappings if m["FunctionArn"].endswith(":replicate"))
    assert replicate["BisectBatchOnFunctionError"] and replicate["MaximumRetryAttempts"] == 10
    assert replicate["DestinationConfig"]["OnFailure"]["Destination"].endswith(":stream-failures")
    archive = next(m for m in mappings if m["FunctionArn"].endswith(":ttl-archive"))
    assert json.loads(archive["FilterCriteria"]["Filters"][0]["Pattern"]) == {
        "userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}}
    assert clients("dynamodb").describe_time_to_live(TableName="sessions")["TimeToLiveDescription"]["AttributeName"] == "expires"

    stack.mappings[0].batch_size = 50
    stack.tables["users"].stream = "NEW_AND_OLD_IMAGES"
    stack.functions["welcome"].environment["MESSAGE_TEMPLATE"] = "Hello, {name}"
    changes = [a for a in up(stack, clients, echo=lines.append) if a.verb == "update"]
    assert sorted((a.kind, a.name) for a in changes) == [("function", "welcome"), ("mapping", "replicate <- orders"),
                                                          ("mapping", "welcome <- users"), ("table", "users")]
    assert clients("dynamodb").describe_table(TableName="users")["Table"]["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert summary(down(stack, clients, echo=lines.append)) == "22 deleted"
    assert clients("dynamodb").list_tables()["TableNames"] == []
    assert lam.list_functions()["Functions"] == []


def test_the_cli(server_url, capsys, tmp_path):
    http_json(server_url + "/moto-api/reset", {})
    assert eddy(["up", "-f", str(EXAMPLE), "--endpoint-url", server_url, "--dry-run"]) == 0
    assert "Would be: 22 created" in capsys.readouterr().out
    assert eddy(["up", "-f", str(EXAMPLE), "--endpoint-url", server_url]) == 0
    out = capsys.readouterr().out
    assert "create    table    orders (key pk, stream NEW_AND_OLD_IMAGES)" in out and out.rstrip().endswith("22 created")
    assert eddy(["down", "-f", str(EXAMPLE), "--endpoint-url", server_url]) == 0
    assert capsys.readouterr().out.rstrip().endswith("22 deleted")
    (tmp_path / "bad.yaml").write_text("tables: {t: {key: {}}}")
    assert eddy(["up", "-f", str(tmp_path / "bad.yaml"), "--endpoint-url", server_url]) == 2
    assert "tables.t.key: a key is a partition key and optionally a sort key" in capsys.readouterr().err
