"""moto_seam/tables/write_hook.py: moto's item writes reach the capture the engine passed in, from the engine's start
(after recovery, whose restored items are not new changes) to its close, and no other time."""

from __future__ import annotations

import boto3
from moto import mock_aws
from moto.dynamodb.models.table import Table

from eddy.emulator.engine import Emulator
from eddy.emulator.moto_seam.tables import write_hook

TABLE = ("123456789012", "us-east-1", "orders")


def _put(dynamodb, key: str) -> None:
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}})


@mock_aws
def test_moto_writes_reach_the_engines_capture_from_its_start_to_its_close():
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")  # moto's own door: no emulator routes it
    dynamodb.create_table(
        TableName="orders",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    emu = Emulator(housekeeping_interval=None)
    try:
        _put(dynamodb, "before start")  # moto patched, no capture yet: not a change of Eddy's
        assert TABLE not in emu.commit_versions
        emu.start()
        _put(dynamodb, "a")
        first = emu.commit_versions[TABLE]
        _put(dynamodb, "b")
        assert emu.commit_versions[TABLE] == first + 1  # each write its own commit
        seen = []

        class Recorder:
            def touched(self, key, make_touch):
                seen.append(make_touch().old_image)  # its text and item size, as the item keeps them

        with write_hook.writes_to(Recorder()):  # for the block, then the engine's capture again
            _put(dynamodb, "b")
        assert seen == [('{"pk":{"S":"b"}}', 3)]  # and its item size
        assert emu.commit_versions[TABLE] == first + 1
        _put(dynamodb, "c")
        assert emu.commit_versions[TABLE] == first + 2
    finally:
        emu.close()
    assert "stream_shard" not in vars(Table)  # moto as it ships once the last emulator closed
    _put(dynamodb, "after close")
