"""The seams Eddy uses inside moto. If a moto upgrade moves one, these fail first, and loudly."""

from __future__ import annotations

import inspect
from importlib.metadata import version

import moto.dynamodb.models as backend_models
import pytest
from botocore.exceptions import ClientError
from moto.core.botocore_stubber import BotocoreStubber
from moto.dynamodb.comparisons import FuncSize
from moto.dynamodb.models.table import Table
from moto.dynamodb.parsing.validators import UpdateExpressionFunctionEvaluator
from moto.dynamodb.responses import DynamoHandler

from eddy.emulator.moto_seam import botocore_hook, bridge as moto_bridge
from tests.emulator.helpers import create_table


def test_moto_is_in_the_pinned_range():
    major, minor, *_ = (int(part) for part in version("moto").split(".")[:3])
    assert (major, minor) == (5, 2), "emulator/moto_seam/bridge.py is tested against moto 5.2.x; re-check its seams"


def test_moto_reports_every_item_write_to_stream_shard():
    assert "self.stream_shard.add(current, item)" in inspect.getsource(Table.put_item)
    assert "self.stream_shard.add(item, None)" in inspect.getsource(Table.delete_item)
    assert "table.stream_shard.add(orig_item, item)" in inspect.getsource(backend_models.DynamoDBBackend.update_item)


def test_moto_s_put_item_action_checks_a_plain_put_as_puts_py_does():
    """moto_seam/tables/puts.py answers a put without a condition as moto's action does: the same three checks, then
    the backend's put_item; a moto that checks more (or otherwise) fails here."""
    source = inspect.getsource(DynamoHandler.put_item)
    checks = ["validate_put_has_empty_keys(item, table)", "validate_put_has_empty_attrs(item, table)",
              "validate_put_has_gsi_keys_set_to_none(item, table)", "self.dynamodb_backend.put_item("]
    assert [source.index(check) for check in checks] == sorted(source.index(check) for check in checks)
    assert source.count("validate_") == 4  # the three, and validate_attributes_used of the condition's names


def test_the_patches_are_in_place(emu):
    assert isinstance(Table.__dict__["stream_shard"], property)
    assert BotocoreStubber.process_request is botocore_hook._process_request
    assert callable(DynamoHandler.setup_class) and callable(DynamoHandler.call_action)
    assert UpdateExpressionFunctionEvaluator.get_list_from_ddb_typed_value.__func__ is moto_bridge._list_operand
    assert FuncSize.expr is moto_bridge._size


def test_list_append_of_a_missing_attribute_is_a_validation_error(door):
    """moto checked only list_append's first operand; a missing second one failed an assert (a 400 naming a
    request id instead of AWS's message)."""
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "orders", view_type=None)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "p1"}, "l": {"L": []}})
    for expression in ("SET l = list_append(l, absent)", "SET l = list_append(l, gone[1])",
                       "SET l = list_append(absent, l)"):
        with pytest.raises(ClientError) as caught:
            dynamodb.update_item(TableName="orders", Key={"pk": {"S": "p1"}}, UpdateExpression=expression)
        assert caught.value.response["Error"] == {
            "Code": "ValidationException",
            "Message": "The provided expression refers to an attribute that does not exist in the item"}
    dynamodb.update_item(TableName="orders", Key={"pk": {"S": "p1"}}, UpdateExpression="SET l = list_append(l, l)")


def test_transactions_roll_back_by_restoring_tables():
    source = inspect.getsource(backend_models.DynamoDBBackend.transact_write_items)
    assert "original_table_state" in source  # capture diffs against the restored state, so rollbacks write nothing


def test_size_of_a_missing_attribute_matches_nothing_instead_of_failing(door):
    """A filter or condition on size(l) skips the items without l (moto failed the whole Scan, Query or write)."""
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "orders")
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "l": {"L": [{"N": "1"}, {"N": "2"}]}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
    found = dynamodb.scan(TableName="orders", FilterExpression="size(l) > :one",
                          ExpressionAttributeValues={":one": {"N": "1"}})["Items"]
    assert [item["pk"]["S"] for item in found] == ["a"]
    selected = dynamodb.execute_statement(Statement="SELECT pk FROM orders WHERE size(l) >= 1")["Items"]
    assert selected == [{"pk": {"S": "a"}}]
    with pytest.raises(ClientError) as refused:
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}, "v": {"N": "1"}},
                          ConditionExpression="size(l) = :zero", ExpressionAttributeValues={":zero": {"N": "0"}})
    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"


def test_each_old_image_is_the_item_as_the_previous_write_left_it(emu):
    """An item keeps the image its last write left (moto_bridge._IMAGE) and hands it to the next change as that
    change's old image: writes that change the item in place (UpdateItem, PartiQL UPDATE, a transaction), that
    fail or change nothing, and writes of other kinds in between must all leave the next old image right."""
    import boto3

    dynamodb = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")
    create_table(dynamodb, "orders")
    key = {"pk": {"S": "p1"}}
    states = []

    def state() -> None:
        states.append(dynamodb.get_item(TableName="orders", Key=key, ConsistentRead=True).get("Item"))

    def refused(call, **params) -> None:
        with pytest.raises(ClientError):
            call(**params)

    writes = [
        lambda: dynamodb.put_item(TableName="orders", Item={**key, "v": {"N": "1"}, "l": {"L": [{"S": "a"}]}}),
        lambda: dynamodb.update_item(TableName="orders", Key=key, UpdateExpression="SET v = v + :one, m = :m",
                                     ExpressionAttributeValues={":one": {"N": "1"}, ":m": {"M": {"x": {"SS": ["a"]}}}}),
        lambda: refused(dynamodb.update_item, TableName="orders", Key=key, UpdateExpression="SET v = :v",
                        ConditionExpression="attribute_not_exists(pk)", ExpressionAttributeValues={":v": {"N": "9"}}),
        lambda: dynamodb.update_item(TableName="orders", Key=key, UpdateExpression="ADD m.x :b REMOVE l",
                                     ExpressionAttributeValues={":b": {"SS": ["b"]}}),
        lambda: dynamodb.put_item(TableName="orders", Item={**key, "v": {"N": "3"}}, ReturnValues="ALL_OLD"),
        lambda: dynamodb.put_item(TableName="orders", Item={**key, "v": {"N": "3"}}),  # no change: no record
        lambda: dynamodb.execute_statement(Statement="UPDATE orders SET w = 'x' WHERE pk = 'p1'"),
        lambda: dynamodb.transact_write_items(TransactItems=[{"Update": {
            "TableName": "orders", "Key": key, "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "4"}}}}]),
        lambda: refused(dynamodb.transact_write_items, TransactItems=[
            {"Update": {"TableName": "orders", "Key": key, "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": {"N": "5"}}}},
            {"ConditionCheck": {"TableName": "orders", "Key": {"pk": {"S": "absent"}},
                                "ConditionExpression": "attribute_exists(pk)"}}]),
        lambda: dynamodb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": {**key, "v": {"N": "6"}}}}]}),
        lambda: dynamodb.delete_item(TableName="orders", Key=key),
        lambda: dynamodb.update_item(TableName="orders", Key=key, UpdateExpression="SET v = :v",
                                     ExpressionAttributeValues={":v": {"N": "7"}}),
    ]
    state()
    for write in writes:
        write()
        state()
    changed = [after for before, after in zip(states, states[1:]) if before != after]
    records = [record for stream in emu.streams.list("123456789012", "us-east-1", "orders")
               for shard in stream.shards.values() for record in shard.records]
    assert [record.new_image for record in records] == changed
    assert [record.old_image for record in records] == [states[0]] + changed[:-1]
    assert [record.event_name.value for record in records] == (
        ["INSERT"] + ["MODIFY"] * 6 + ["REMOVE", "INSERT"])
