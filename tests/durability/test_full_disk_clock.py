"""The emulator's clock on a full disk whose reserve is used: an advance is all or nothing.

Advancing the clock (POST /_eddy/clock, Clock.advance) is a change like any other: its log entry is written before the
clock moves, without the log's reserve (nothing is applied yet), so an advance the disk refuses is not made at all: a
500 InternalServerError (Eddy's controls answer DynamoDB's JSON error; botocore's model lists InternalServerError for
every DynamoDB operation), the clock where it was, clock.json as it was, and nothing of what time fires (TTL's
deletions, retention trims, rollovers, retries). With room again the same advance succeeds and time's consequences
follow, and a kill -9 then keeps exactly the advances that were answered.

The disk is a real tmpfs of 8 MB (tests/durability/small_disk.py, skipped where it cannot be mounted), filled to its
last byte; the log's reserve is gone (as after an earlier entry used it), and advances of 0 seconds take what is left
of the log's last page (a tmpfs file's last page has room the filler cannot take), until the disk refuses one: an
advance of 100 seconds, whose entry is longer, is then refused by the filesystem itself. Both doors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.durability.small_disk import SmallDisk
from tests.durability.test_disk_full import KEY, Eddy, refused, running, stream_records
from tests.durability.test_small_disk import disk, door  # noqa: F401  (the fixtures: a real tmpfs, both doors)

pytestmark = pytest.mark.slow


def held(eddy: Eddy, state: Path) -> dict[str, object]:
    """The clock's offset (GET /_eddy/clock), the file other processes read it from, the items and their records."""
    ddb = eddy.client("dynamodb")
    return {"offset": eddy.control("/_eddy/clock", {})["Offset"],
            "clock.json": json.loads((state / "clock.json").read_text())["offset"],
            "items": sorted(item["pk"]["S"] for item in ddb.scan(TableName="orders")["Items"]),
            "records": stream_records(eddy, "orders")}


def test_an_advance_the_disk_refuses_moves_nothing_and_its_retry_with_room_moves_everything(
        door: str, disk: SmallDisk) -> None:  # noqa: F811  (the fixtures imported above)
    state = disk.mount_point / "state"
    with running(door, state) as eddy:
        ddb = eddy.client("dynamodb")
        ddb.create_table(TableName="orders", StreamSpecification={"StreamEnabled": True,
                                                                  "StreamViewType": "NEW_AND_OLD_IMAGES"}, **KEY)
        ddb.update_time_to_live(TableName="orders",
                                TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
        expires = int(eddy.control("/_eddy/clock", {})["Now"]) + 50
        ddb.put_item(TableName="orders", Item={"pk": {"S": "e"}, "expires": {"N": str(expires)}})
        ddb.put_item(TableName="orders", Item={"pk": {"S": "keep"}})
        before = held(eddy, state)
        assert before == {"offset": 0.0, "clock.json": 0.0, "items": ["e", "keep"],
                          "records": [("INSERT", "e"), ("INSERT", "keep")]}
        (state / "disk.reserve").unlink()  # used by an earlier entry
        disk.fill()
        for _ in range(200):  # the log's last page taken by moves of nothing, until the disk refuses one
            if refused(lambda: eddy.control("/_eddy/clock", {"advance": 0}), "control"):
                break
        else:
            pytest.fail("the disk took 200 advances of 0 seconds")
        assert refused(lambda: eddy.control("/_eddy/clock", {"advance": 100}), "control")
        assert eddy.control("/_eddy/ttl/sweep", {}) == {"Deleted": 0}  # nothing expired: the clock did not move
        assert held(eddy, state) == before
        disk.room()
        assert eddy.control("/_eddy/clock", {"advance": 100})["Offset"] == 100.0  # the retry, with room
        assert eddy.control("/_eddy/ttl/sweep", {}) == {"Deleted": 1}
        after = {"offset": 100.0, "clock.json": 100.0, "items": ["keep"],
                 "records": [("INSERT", "e"), ("INSERT", "keep"), ("REMOVE", "e")]}
        assert held(eddy, state) == after
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert held(eddy, state) == after
