"""Stream records exactly as AWS writes them: fields, view types, region, time and SizeBytes."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest

from eddy.emulator.streams.item_size import item_size, number_size
from eddy import emulate
from eddy.emulator.streams import records
from eddy.emulator.streams.records import ChangeRecord, EventName, StreamViewType, image_json

from tests.emulator.helpers import create_table, read_stream


def test_aws_documentation_examples_of_size_bytes():
    """The DynamoDB Streams developer guide's sample records: INSERT of SizeBytes 26, MODIFY of 59."""
    keys = {"Id": {"N": "101"}}
    insert = ChangeRecord(sequence_number=111, event_id="e", event_name=EventName.INSERT, keys=keys, old_image=None,
                          new_image={"Message": {"S": "New item!"}, "Id": {"N": "101"}}, created_at=0, commit_version=1)
    modify = ChangeRecord(sequence_number=222, event_id="e", event_name=EventName.MODIFY, keys=keys,
                          old_image={"Message": {"S": "New item!"}, "Id": {"N": "101"}},
                          new_image={"Message": {"S": "This item has changed"}, "Id": {"N": "101"}}, created_at=0,
                          commit_version=2)
    view = StreamViewType.NEW_AND_OLD_IMAGES
    assert insert.to_dict(view, "us-west-2")["dynamodb"]["SizeBytes"] == 26
    assert modify.to_dict(view, "us-west-2")["dynamodb"]["SizeBytes"] == 59
    assert modify.to_dict(StreamViewType.KEYS_ONLY, "us-west-2")["dynamodb"]["SizeBytes"] == 5


@pytest.mark.parametrize("value, size", [
    ({"S": "héllo"}, 6), ({"N": "0"}, 2), ({"N": "-12.3400"}, 3), ({"N": "1E+10"}, 2), ({"BOOL": True}, 1),
    ({"NULL": True}, 1), ({"B": "AAEC"}, 3), ({"SS": ["a", "bc"]}, 3), ({"SS": ["é", "bc"]}, 4), ({"NS": ["1", "22"]}, 4),
    ({"L": [{"S": "ab"}, {"N": "1"}]}, 3 + 3 + 3), ({"M": {"k": {"S": "v"}}}, 3 + 1 + 1 + 1), ({"L": []}, 3),
    ({"M": {"é": {"M": {"k": {"N": "12"}}}, "l": {"L": [{"SS": ["é"]}]}}}, 3 + (1 + 2 + 3 + 1 + 1 + 2) + (1 + 1 + 3 + 1 + 2)),
])
def test_item_size_rules(value, size):
    assert item_size({"a": value}) == 1 + size


@pytest.mark.parametrize("text", ["0", "-0", "7", "-7", "10", "100200", "0012", "1.5", "-12.3400", "0.000123",
                                  "123456789012345678901234567890123456789", ".5", "5.", "-.25", "1E+10", "1.5e-3"])
def test_number_size_is_one_byte_per_two_significant_digits_plus_one(text):
    """Plain numbers are measured without Decimal: the same sizes as Decimal's significant digits give."""
    digits = "".join(map(str, Decimal(text).as_tuple().digits)).strip("0") or "0"
    assert number_size(text) == (len(digits) + 1) // 2 + 1
    assert item_size({"n": {"N": text}}) == 1 + number_size(text)  # item_size counts plain integers itself


def test_record_fields(door):
    dynamodb, streams = door.client("dynamodb", region="ap-southeast-2"), door.client("dynamodbstreams", region="ap-southeast-2")
    arn = create_table(dynamodb)["LatestStreamArn"]
    before = int(door.now())
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    [record] = read_stream(streams, arn)
    assert set(record) == {"eventID", "eventName", "eventVersion", "eventSource", "awsRegion", "dynamodb"}
    assert re.match(r"^[0-9a-f]{32}$", record["eventID"])
    assert (record["eventName"], record["eventVersion"], record["eventSource"], record["awsRegion"]) == (
        "INSERT", "1.1", "aws:dynamodb", "ap-southeast-2")
    created = record["dynamodb"]["ApproximateCreationDateTime"]
    assert created.microsecond == 0 and before <= created.timestamp() <= int(door.now()) + 1
    assert record["dynamodb"]["Keys"] == {"pk": {"S": "a"}}
    assert record["dynamodb"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert record["dynamodb"]["SizeBytes"] == item_size({"pk": {"S": "a"}}) + item_size({"pk": {"S": "a"}, "n": {"N": "1"}})


@pytest.mark.parametrize("view_type, insert, modify, remove", [
    ("KEYS_ONLY", set(), set(), set()),
    ("NEW_IMAGE", {"NewImage"}, {"NewImage"}, set()),
    ("OLD_IMAGE", set(), {"OldImage"}, {"OldImage"}),
    ("NEW_AND_OLD_IMAGES", {"NewImage"}, {"NewImage", "OldImage"}, {"OldImage"}),
])
def test_view_types_project_images(door, view_type, insert, modify, remove):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, view_type=view_type)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "2"}})
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "a"}})
    images = [set(r["dynamodb"]) & {"NewImage", "OldImage"} for r in read_stream(streams, arn)]
    assert images == [insert, modify, remove]


def test_every_attribute_type_round_trips(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, range_key=True)["LatestStreamArn"]
    item = {"pk": {"S": "a"}, "sk": {"S": "1"}, "s": {"S": "text"}, "n": {"N": "12.5"}, "b": {"B": b"\x00\x01"},
            "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", "2"]}, "bs": {"BS": [b"\x02"]}, "t": {"BOOL": True},
            "z": {"NULL": True}, "l": {"L": [{"S": "e"}, {"N": "3"}, {"B": b"\x03"}]}, "m": {"M": {"in": {"M": {"x": {"S": "y"}}}}}}
    dynamodb.put_item(TableName="orders", Item=item)
    [record] = read_stream(streams, arn)
    assert record["dynamodb"]["Keys"] == {"pk": {"S": "a"}, "sk": {"S": "1"}}
    new = record["dynamodb"]["NewImage"]
    assert {k: v for k, v in new.items() if k not in ("ss", "ns")} == {k: v for k, v in item.items() if k not in ("ss", "ns")}
    assert sorted(new["ss"]["SS"]) == ["x", "y"] and sorted(new["ns"]["NS"]) == ["1", "2"]


def test_a_record_is_not_changed_by_later_writes(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "tags": {"SS": ["x"]}, "m": {"M": {"k": {"N": "1"}}}})
    dynamodb.update_item(TableName="orders", Key={"pk": {"S": "a"}}, UpdateExpression="ADD tags :t SET m.k = :v",
                         ExpressionAttributeValues={":t": {"SS": ["y"]}, ":v": {"N": "2"}})
    first, second = read_stream(streams, arn)
    assert first["dynamodb"]["NewImage"]["tags"] == {"SS": ["x"]}
    assert first["dynamodb"]["NewImage"]["m"] == {"M": {"k": {"N": "1"}}}
    assert second["dynamodb"]["OldImage"]["tags"] == {"SS": ["x"]}
    assert sorted(second["dynamodb"]["NewImage"]["tags"]["SS"]) == ["x", "y"]



def test_what_a_put_leaves_as_it_was_is_changed_by_a_later_update_in_the_item_only(door):
    """A BatchWriteItem put keeps the replaced item's values of the attributes it does not change (speedups/dynamodb_puts.py):
    an UpdateItem that changes a kept map and set in place afterwards changes the item and its own record only."""
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    item = {"pk": {"S": "a"}, "tags": {"SS": ["x"]}, "m": {"M": {"k": {"N": "1"}}}}
    for version in ("1", "2"):
        dynamodb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": dict(item, v={"N": version})}}]})
    dynamodb.update_item(TableName="orders", Key={"pk": {"S": "a"}}, UpdateExpression="ADD tags :t SET m.k = :v",
                         ExpressionAttributeValues={":t": {"SS": ["y"]}, ":v": {"N": "2"}})
    _, modify, update = read_stream(streams, arn)
    assert modify["dynamodb"]["OldImage"] == dict(item, v={"N": "1"})
    assert modify["dynamodb"]["NewImage"] == dict(item, v={"N": "2"})
    assert update["dynamodb"]["OldImage"] == dict(item, v={"N": "2"})
    assert update["dynamodb"]["NewImage"]["m"] == {"M": {"k": {"N": "2"}}}
    stored = dynamodb.get_item(TableName="orders", Key={"pk": {"S": "a"}})["Item"]
    assert (stored["m"], sorted(stored["tags"]["SS"]), stored["v"]) == ({"M": {"k": {"N": "2"}}}, ["x", "y"], {"N": "2"})

@pytest.mark.parametrize("event_name, by_ttl", [(EventName.MODIFY, False), (EventName.REMOVE, True), (EventName.INSERT, False)])
def test_a_log_line_is_the_records_compact_json(event_name, by_ttl):
    keys = {"pk": {"S": "a"}}
    old = None if event_name is EventName.INSERT else {"pk": {"S": "a"}, "text": {"S": "héllo \"☃\""}, "b": {"B": "AAE="}}
    new = None if event_name is EventName.REMOVE else {"pk": {"S": "a"}, "tags": {"SS": ["x"]}, "m": {"M": {"n": {"N": "1"}}}}
    record = ChangeRecord(sequence_number=10 ** 20, event_id="e1", event_name=event_name, keys=keys, old_image=old,
                          new_image=new, created_at=1_700_000_000.25, commit_version=7, by_ttl=by_ttl)
    assert record.to_log_line("orders", "shardId-1", 3) == json.dumps({
        "table": "orders", "shard": "shardId-1", "sequence_number": str(10 ** 20), "commit_version": 7,
        "commit_timestamp": 1_700_000_000.25, "commit_records": 3, "event_id": "e1", "event_name": event_name.value,
        "keys": keys, "old_image": old, "new_image": new,
        "user_identity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"} if by_ttl else None,
    }, separators=(",", ":")).encode() + b"\n"


def test_an_image_is_measured_once_for_all_its_records():
    """SizeBytes is measured at commit; an image image_json holds (a MODIFY's old image is the item's previous new
    image, the same object) keeps its size with its text, so a later record does not measure it again, while an
    equal image not held is measured on its own."""
    image = {"pk": {"S": "a"}, "n": {"N": "101"}, "m": {"M": {"k": {"SS": ["x", "yz"]}}}}
    image_json(image)
    assert records.image_size(image) == item_size(image) == (2 + 1) + (1 + 3) + (1 + 3 + 1 + (1 + 3))
    assert records._sizes[id(image)] == item_size(image)
    other = dict(image)
    assert records.image_size(other) == item_size(image) and id(other) not in records._sizes
    assert records.image_size(None) == 0
    modify = ChangeRecord(sequence_number=10 ** 20, event_id="e1", event_name=EventName.MODIFY, keys={"pk": image["pk"]},
                          old_image=image, new_image=other, created_at=1.0, commit_version=2)
    assert modify.size_bytes(StreamViewType.NEW_AND_OLD_IMAGES) == 2 + 1 + 2 * item_size(image)
    assert modify.size_bytes(StreamViewType.KEYS_ONLY) == 2 + 1
    assert modify.to_dict(StreamViewType.KEYS_ONLY, "us-east-1")["dynamodb"]["SizeBytes"] == 3


def test_an_image_is_encoded_once():
    """A MODIFY's old image is the item's previous new image, the same object: its text is found, not made again."""
    image = {"pk": {"S": "a"}, "n": {"N": "1"}}
    text = image_json(image)
    assert text == '{"pk":{"S":"a"},"n":{"N":"1"}}'
    assert image_json(image) is text
    assert image_json(dict(image)) == text and image_json(None) == "null"


def test_the_images_an_emulator_encoded_are_not_held_once_it_closes():
    """image_json's memo holds each image it encoded: an emulator's records' images go with the emulator (a test
    session runs many), not when the memo is next full."""
    import boto3

    with emulate(housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb)
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}, "total": {"N": "10"}})
        held = [image for image in records._held.values() if image.get("pk") == {"S": "o1"}]
        assert held == [{"pk": {"S": "o1"}, "total": {"N": "10"}}]
    assert not any(image is held[0] for image in records._held.values()) and not records._encoded
