"""UpdateItem on an item that is not there, as AWS answers it (moto_seam/all_or_nothing.py), stream records included.

Source: the AWS-recorded suite of issue 37: `UpdateExpression='REMOVE g'` on a missing item creates nothing and
streams nothing; an UpdateItem with only a Key creates the key-only item and streams an INSERT, then an update of it
a MODIFY whose OldImage is that item (DynamoDB API reference, UpdateItem: "Edits an existing item's attributes, or
adds a new item to the table if it does not already exist")."""

from __future__ import annotations

from tests.emulator.helpers import N, S, create_table, read_stream


def test_remove_on_a_missing_item_creates_nothing_and_an_update_of_the_key_alone_creates_it(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    stream_arn = create_table(dynamodb)["LatestStreamArn"]
    assert "Attributes" not in dynamodb.update_item(TableName="orders", Key={"pk": S("gone")},
                                                    UpdateExpression="REMOVE g, h")
    assert "Item" not in dynamodb.get_item(TableName="orders", Key={"pk": S("gone")})
    assert "Attributes" not in dynamodb.update_item(TableName="orders", Key={"pk": S("k")})
    assert dynamodb.get_item(TableName="orders", Key={"pk": S("k")})["Item"] == {"pk": S("k")}
    dynamodb.update_item(TableName="orders", Key={"pk": S("k")}, UpdateExpression="SET n = :n",
                         ExpressionAttributeValues={":n": N("1")})
    records = read_stream(streams, stream_arn)
    assert [(r["eventName"], r["dynamodb"]["Keys"], r["dynamodb"].get("OldImage"), r["dynamodb"]["NewImage"])
            for r in records] == [("INSERT", {"pk": S("k")}, None, {"pk": S("k")}),
                                  ("MODIFY", {"pk": S("k")}, {"pk": S("k")}, {"pk": S("k"), "n": N("1")})]
