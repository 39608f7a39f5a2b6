"""Stream records exactly as AWS writes them: fields, view types, region, time and SizeBytes."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest

from eddy.emulator.streams.item_size import item_size, number_size
from eddy import emulate
from eddy.emulator.streams.records import ChangeRecord, EventName, StreamViewType, image_json, lambda_dicts

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


def test_size_bytes_is_measured_when_first_read_and_for_each_view_type():
    """A record holds its images as text: SizeBytes is measured on them when first read, for the view type asked."""
    image = {"pk": {"S": "a"}, "n": {"N": "101"}, "m": {"M": {"k": {"SS": ["x", "yz"]}}}}
    assert item_size(image) == (2 + 1) + (1 + 3) + (1 + 3 + 1 + (1 + 3))
    modify = ChangeRecord(sequence_number=10 ** 20, event_id="e1", event_name=EventName.MODIFY, keys={"pk": image["pk"]},
                          old_image=image_json(image), new_image=dict(image), created_at=1.0, commit_version=2)
    assert modify.size_bytes(StreamViewType.NEW_AND_OLD_IMAGES) == 2 + 1 + 2 * item_size(image)
    assert modify.size_bytes(StreamViewType.KEYS_ONLY) == 2 + 1
    assert modify.to_dict(StreamViewType.KEYS_ONLY, "us-east-1")["dynamodb"]["SizeBytes"] == 3
    assert modify.to_dict(StreamViewType.NEW_IMAGE, "us-east-1")["dynamodb"]["SizeBytes"] == 3 + item_size(image)


def test_a_record_holds_its_images_as_their_compact_json_and_gives_each_reader_new_dicts():
    image = {"pk": {"S": "a"}, "n": {"N": "1"}}
    assert image_json(image) == '{"pk":{"S":"a"},"n":{"N":"1"}}' and image_json(None) == "null"
    record = ChangeRecord(sequence_number=1, event_id="e1", event_name=EventName.INSERT, keys={"pk": {"S": "a"}},
                          old_image=None, new_image=image, created_at=1.0, commit_version=2)
    assert (record.keys_json, record.old_json, record.new_json) == ('{"pk":{"S":"a"}}', None, image_json(image))
    first, second = record.new_image, record.new_image
    assert first == second == image and first is not second and first["pk"] is not second["pk"]
    first["n"]["N"] = "2"
    assert record.new_image == image and record.keys == {"pk": {"S": "a"}} and record.old_image is None


@pytest.mark.parametrize("view_type", list(StreamViewType))
@pytest.mark.parametrize("event_name, by_ttl", [(EventName.INSERT, False), (EventName.MODIFY, False), (EventName.REMOVE, True)])
def test_the_wire_is_get_records_dict_as_compact_json(view_type, event_name, by_ttl):
    """GetRecords' bytes are written from the record's text member by member: the same as its dict encoded."""
    old = None if event_name is EventName.INSERT else {"pk": {"S": "a"}, "text": {"S": "héllo \"☃\""}, "b": {"B": "AAE="}}
    new = None if event_name is EventName.REMOVE else {"pk": {"S": "a"}, "tags": {"SS": ["x"]}, "m": {"M": {"n": {"N": "1"}}}}
    record = ChangeRecord(sequence_number=10 ** 20, event_id="e1", event_name=event_name, keys={"pk": {"S": "a"}},
                          old_image=old, new_image=new, created_at=1_700_000_000.75, commit_version=7, by_ttl=by_ttl)
    expected = json.dumps(record.to_dict(view_type, "eu-west-1"), separators=(",", ":")).encode()
    assert record.wire(view_type, "eu-west-1") == expected
    assert record.wire_bytes_at_most() == len(expected)


@pytest.mark.parametrize("view_type", list(StreamViewType))
@pytest.mark.parametrize("event_name, by_ttl", [(EventName.INSERT, False), (EventName.MODIFY, False),
                                                (EventName.REMOVE, False), (EventName.REMOVE, True)])
def test_a_lambda_records_text_is_its_lambda_dict_as_compact_json(view_type, event_name, by_ttl):
    """A worker's event is written from the record's text member by member: the same as its Lambda dict encoded."""
    old = None if event_name is EventName.INSERT else {"pk": {"S": "a"}, "text": {"S": "héllo \"☃\""}, "b": {"B": "AAE="}}
    new = None if event_name is EventName.REMOVE else {"pk": {"S": "a"}, "tags": {"SS": ["x"]}, "m": {"M": {"n": {"N": "1"}}}}
    record = ChangeRecord(sequence_number=10 ** 20, event_id="e1", event_name=event_name, keys={"pk": {"S": "a"}},
                          old_image=old, new_image=new, created_at=1_700_000_000.75, commit_version=7, by_ttl=by_ttl)
    arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/orders/stream/2026-01-01T00:00:00.000"
    expected = json.dumps(record.to_lambda_dict(view_type, "eu-west-1", arn), separators=(",", ":"))
    assert record.lambda_json(view_type, "eu-west-1", arn) == expected
    # and Lambda's dict is GetRecords' record with eventSourceARN, the time a float, userIdentity's members lower case
    as_get_records = record.to_dict(view_type, "eu-west-1")
    as_get_records["dynamodb"]["ApproximateCreationDateTime"] = 1_700_000_000.0
    if by_ttl:
        as_get_records["userIdentity"] = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    delivered = lambda_dicts([record, record], view_type, "eu-west-1", arn)
    assert delivered == [dict(as_get_records, eventSourceARN=arn)] * 2 and delivered[0] is not delivered[1]
    assert json.dumps(delivered[0], separators=(",", ":")) == expected  # its members in the same order
    assert delivered[0]["dynamodb"]["Keys"] is not delivered[1]["dynamodb"]["Keys"]  # each record's dicts its own


def test_an_items_text_is_its_records_new_image_and_its_next_records_old_image():
    """One str per image: the item keeps its image's text on moto's Item, and it is its record's new image and the
    next change's old image, not a copy."""
    import boto3

    from eddy.emulator.moto_seam import bridge
    from eddy.emulator.moto_seam.speedups.dynamodb_puts import IMAGE

    with emulate(housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb)["LatestStreamArn"]
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}, "n": {"N": "10"}})
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}, "n": {"N": "12"}})
        [shard] = emu.streams.streams[arn].shards.values()
        insert, modify = shard.records
        [item] = bridge.find_table("123456789012", "us-east-1", "orders").all_items()
        assert insert.new_json == '{"pk":{"S":"o1"},"n":{"N":"10"}}'
        assert modify.old_json is insert.new_json and getattr(item, IMAGE) is modify.new_json
        assert modify.new_json == '{"pk":{"S":"o1"},"n":{"N":"12"}}'


def test_an_update_items_old_image_is_the_text_the_item_held_before_it():
    """moto's UpdateItem (a transaction's Update too) copies the stored item before it changes it in place, and the
    copy is the MODIFY record's old image: the copy shares the item's text (moto_seam/speedups/dynamodb_reads.py's
    item_deepcopy), so the old image is the str the item held, not its image encoded again; and a refused update
    (put back from such a copy) leaves the item's text as it was, the next record's old image."""
    import boto3

    from eddy.emulator.moto_seam import bridge
    from eddy.emulator.moto_seam.speedups.dynamodb_puts import IMAGE

    with emulate(housekeeping_interval=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb)["LatestStreamArn"]
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}, "n": {"N": "10"}})
        dynamodb.update_item(TableName="orders", Key={"pk": {"S": "o1"}}, UpdateExpression="SET n = n + :one",
                             ExpressionAttributeValues={":one": {"N": "1"}})
        with pytest.raises(dynamodb.exceptions.ClientError):  # over 400 KB: refused, the item put back
            dynamodb.update_item(TableName="orders", Key={"pk": {"S": "o1"}}, UpdateExpression="SET big = :big",
                                 ExpressionAttributeValues={":big": {"S": "x" * 410_000}})
        dynamodb.transact_write_items(TransactItems=[{"Update": {
            "TableName": "orders", "Key": {"pk": {"S": "o1"}}, "UpdateExpression": "SET s = :s",
            "ExpressionAttributeValues": {":s": {"S": "é"}}}}])
        [shard] = emu.streams.streams[arn].shards.values()
        insert, update, transacted = shard.records
        [item] = bridge.find_table("123456789012", "us-east-1", "orders").all_items()
        assert (insert.new_json, update.new_json, transacted.new_json) == (
            '{"pk":{"S":"o1"},"n":{"N":"10"}}', '{"pk":{"S":"o1"},"n":{"N":"11"}}',
            '{"pk":{"S":"o1"},"n":{"N":"11"},"s":{"S":"\\u00e9"}}')
        assert update.old_json is insert.new_json and transacted.old_json is update.new_json
        assert getattr(item, IMAGE) is transacted.new_json

def test_size_bytes_of_each_event_counts_the_images_its_item_kept(door):
    """SizeBytes is kept at commit from the sizes an item keeps with its image's text: a put replacing an item, an
    UpdateItem (whose old image moto copies) and a delete each count the old image as the previous write left it."""
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "1"}})  # (2 + 1) + (1 + 2) = 6
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "22"}})  # 6
    dynamodb.update_item(TableName="orders", Key={"pk": {"S": "a"}}, UpdateExpression="SET s = :s",
                         ExpressionAttributeValues={":s": {"S": "xyz"}})  # 6 + (1 + 3) = 10
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "a"}})
    sizes = [(r["eventName"], r["dynamodb"]["SizeBytes"]) for r in read_stream(streams, arn)]
    assert sizes == [("INSERT", 3 + 6), ("MODIFY", 3 + 6 + 6), ("MODIFY", 3 + 10 + 6), ("REMOVE", 3 + 10)]
