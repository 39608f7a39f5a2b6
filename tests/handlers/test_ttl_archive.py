"""eddy.handlers.ttl_archive: items TTL deleted, archived to S3 as JSON lines under a deterministic key."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import boto3
import pytest

from eddy.handlers import ttl_archive

from ..emulator.helpers import create_table
from .events import stream_records


@pytest.fixture
def s3(emu: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    client = boto3.client("s3", region_name="us-east-1")
    client.create_bucket(Bucket="archive")
    monkeypatch.setenv("ARCHIVE_BUCKET", "archive")
    return client


@pytest.fixture
def sessions(dynamodb: Any, emu: Any) -> str:
    """Table "sessions" with TTL on `expires`: a and b have expired, c has not, d is deleted by its user."""
    arn = create_table(dynamodb, "sessions")["LatestStreamArn"]
    dynamodb.update_time_to_live(TableName="sessions",
                                 TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    now = int(emu.clock.now())
    for pk, expires in [("a", now - 100), ("b", now - 1), ("c", now + 3600), ("d", now + 3600)]:
        dynamodb.put_item(TableName="sessions", Item={"pk": {"S": pk}, "user": {"S": f"user-{pk}"},
                                                      "expires": {"N": str(expires)}})
    dynamodb.delete_item(TableName="sessions", Key={"pk": {"S": "d"}})
    assert emu.sweep_ttl() == 2
    return arn


def objects(s3: Any) -> dict[str, list[dict]]:
    listed = s3.list_objects_v2(Bucket="archive").get("Contents", [])
    return {o["Key"]: [json.loads(line) for line in
                       s3.get_object(Bucket="archive", Key=o["Key"])["Body"].read().decode().splitlines()]
            for o in listed}


def test_ttl_deletions_are_archived_and_user_deletes_are_not(streams: Any, sessions: str, s3: Any) -> None:
    records = stream_records(streams, sessions)
    ttl_removes = [r for r in records if r.get("userIdentity")]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in ttl_removes] == ["a", "b"]
    assert ttl_removes[0]["userIdentity"] == {"type": "Service", "principalId": "dynamodb.amazonaws.com"}

    ttl_archive.handler({"Records": records}, None)

    first, last = (r["dynamodb"] for r in ttl_removes)
    day = datetime.fromtimestamp(first["ApproximateCreationDateTime"], timezone.utc)
    key = f"ttl-archive/sessions/{day:%Y/%m/%d}/{first['SequenceNumber']}-{last['SequenceNumber']}.jsonl"
    assert objects(s3) == {key: [
        {"keys": r["dynamodb"]["Keys"], "item": r["dynamodb"]["OldImage"],
         "deleted_at": r["dynamodb"]["ApproximateCreationDateTime"], "sequence_number": r["dynamodb"]["SequenceNumber"]}
        for r in ttl_removes]}
    assert objects(s3)[key][0]["item"]["user"] == {"S": "user-a"}


def test_redelivery_writes_the_same_object_again(streams: Any, sessions: str, s3: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARCHIVE_PREFIX", "expired/")
    event = {"Records": stream_records(streams, sessions)}
    ttl_archive.handler(event, None)
    archived = objects(s3)
    ttl_archive.handler(event, None)
    assert objects(s3) == archived
    assert len(archived) == 1 and next(iter(archived)).startswith("expired/sessions/")


def test_a_batch_without_ttl_deletions_writes_nothing(streams: Any, sessions: str, s3: Any) -> None:
    records = [r for r in stream_records(streams, sessions) if not r.get("userIdentity")]
    assert {r["eventName"] for r in records} == {"INSERT", "REMOVE"}
    ttl_archive.handler({"Records": records}, None)
    assert objects(s3) == {}
