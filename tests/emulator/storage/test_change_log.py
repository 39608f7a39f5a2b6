"""The change log on disk: the documented layout spark_batch reads."""

from __future__ import annotations

import json

import boto3

from eddy import emulate

from tests.emulator.helpers import create_table


def test_segment_files_layout_and_lines(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name="eu-west-1")
        description = create_table(dynamodb, "orders", view_type="KEYS_ONLY")
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "2"}})
        shard_id = boto3.client("dynamodbstreams", region_name="eu-west-1").describe_stream(
            StreamArn=description["LatestStreamArn"])["StreamDescription"]["Shards"][0]["ShardId"]
        [segment] = list(tmp_path.rglob("*.jsonl"))
        label = description["LatestStreamLabel"].replace(":", "-")
        assert segment.parent == tmp_path / "streams" / "123456789012" / "eu-west-1" / "orders" / label / shard_id
        first, second = [json.loads(line) for line in segment.read_text().splitlines()]
        assert segment.name == f"{first['sequence_number']}.jsonl"
        assert set(first) == {"table", "shard", "sequence_number", "commit_version", "commit_timestamp", "commit_records",
                              "event_id", "event_name", "keys", "old_image", "new_image", "user_identity"}
        assert first["commit_records"] == 1
        # beside the shards, what a reader needs to know of the stream
        stream = json.loads((segment.parent.parent / "stream.json").read_text())
        assert (stream["table"], stream["label"], stream["status"], stream["table_deleted"]) == (
            "orders", description["LatestStreamLabel"], "ENABLED", False)
        assert stream["key_schema"] == [{"AttributeName": "pk", "KeyType": "HASH", "AttributeType": "S"}]
        # the log keeps both full images whatever the stream's view type
        assert (second["event_name"], second["old_image"], second["new_image"]) == (
            "MODIFY", {"pk": {"S": "a"}, "n": {"N": "1"}}, {"pk": {"S": "a"}, "n": {"N": "2"}})
        assert (first["table"], first["shard"], first["commit_version"], second["commit_version"]) == ("orders", shard_id, 3, 4)
        assert int(second["sequence_number"]) > int(first["sequence_number"])
