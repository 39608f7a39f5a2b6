"""A table deleted and created again gets a new stream, whose label and ARN no earlier stream of the table had,
even within one millisecond (a clock that stands still): its change-log folder is its own too."""

from __future__ import annotations

from datetime import datetime, timezone

import boto3

from eddy import Clock, emulate
from tests.emulator.helpers import create_table

JUNE = datetime(2025, 6, 1, 12, tzinfo=timezone.utc).timestamp()


def test_a_table_created_again_at_the_same_moment_has_a_new_stream(tmp_path) -> None:
    with emulate(state_dir=tmp_path / "state", clock=Clock(source=lambda: JUNE), housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        first = create_table(dynamodb, "books")["LatestStreamArn"]
        dynamodb.delete_table(TableName="books")
        second = create_table(dynamodb, "books")["LatestStreamArn"]
        assert (first.rsplit("/", 1)[1], second.rsplit("/", 1)[1]) == ("2025-06-01T12:00:00.000", "2025-06-01T12:00:00.001")
        streams = boto3.client("dynamodbstreams", region_name="us-east-1")
        assert streams.describe_stream(StreamArn=first)["StreamDescription"]["StreamStatus"] == "DISABLED"
        assert streams.describe_stream(StreamArn=second)["StreamDescription"]["StreamStatus"] == "ENABLED"
        folders = sorted(path.name for path in (tmp_path / "state" / "streams").glob("*/*/books/*"))
        assert folders == ["2025-06-01T12-00-00.000", "2025-06-01T12-00-00.001"]
