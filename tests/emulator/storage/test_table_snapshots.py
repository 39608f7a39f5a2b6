"""A snapshot's table items are written from the text their images are kept in (streams/durable.py's TablesChannel,
the items' text joined, nothing decoded): the file is byte for byte the one its entries give written as dicts, as
every snapshot was written before (storage/snapshots.py: json.dumps with compact separators), and a restart reads
the items back as they were; after that restart (the items put back from the snapshot) the next snapshot is again
the same bytes."""

from __future__ import annotations

import boto3

from eddy import emulate
from eddy.emulator.storage.snapshots import read_snapshot, write_snapshot

from tests.emulator.helpers import create_table


def items(count: int) -> list[dict]:
    """Items of every attribute type, text that JSON escapes (quotes, backslashes, non-ASCII, control characters)."""
    return [
        {"pk": {"S": f"k{n}"}, "sk": {"S": f"é\"\\\n{n}"}, "n": {"N": f"-{n}.50"}, "b": {"B": bytes([n % 256, 0])},
         "ss": {"SS": ["x", "ключ"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": [b"\x00", b"\xff"]},
         "m": {"M": {"l": {"L": [{"BOOL": n % 2 == 0}, {"NULL": True}, {"S": "☃"}]}, "e": {"M": {}}}}}
        for n in range(count)
    ]  # fmt: skip


def written_as_dicts(snapshot, into) -> bytes:
    """The snapshot's entries written again each as its dict: the bytes the way before wrote."""
    generation = int(snapshot.name.split(".")[0])
    return write_snapshot(into, generation, list(read_snapshot(snapshot))).read_bytes()


def scanned(dynamodb, table: str) -> list[dict]:
    return sorted(dynamodb.scan(TableName=table)["Items"], key=lambda item: (item["pk"]["S"], item["sk"]["S"]))


def test_a_snapshots_table_items_are_the_bytes_their_dicts_give(tmp_path):
    state = tmp_path / "state"
    with emulate(state_dir=state, housekeeping_interval=None, snapshot_every=10**9) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "orders", range_key=True)  # a stream
        create_table(dynamodb, "plain", view_type=None, range_key=True)
        made = items(1_203)  # three lines of items (500 a line) for the first table
        for table, kept in (("orders", made), ("plain", made[:40])):
            for start in range(0, len(kept), 25):
                dynamodb.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": item}}
                                                                for item in kept[start : start + 25]]})
        dynamodb.update_item(TableName="orders", Key={"pk": {"S": "k1"}, "sk": made[1]["sk"]},
                             UpdateExpression="SET added = :a REMOVE ns", ExpressionAttributeValues={":a": {"S": "\t"}})
        dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "k2"}, "sk": made[2]["sk"]})
        before = {table: scanned(dynamodb, table) for table in ("orders", "plain")}
        first = emu.persistence.snapshot()
        text = first.read_bytes()
        assert text == written_as_dicts(first, tmp_path / "first")
        item_lines = [line for line in text.splitlines() if line.startswith(b'{"kind":"items"')]
        assert len(item_lines) == 4  # orders: 1,202 items, 500 a line; plain: 40
    with emulate(state_dir=state, housekeeping_interval=None, snapshot_every=10**9) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        assert {table: scanned(dynamodb, table) for table in ("orders", "plain")} == before
        again = emu.persistence.snapshot()
        assert again.read_bytes() == written_as_dicts(again, tmp_path / "again")
        assert [line for line in again.read_bytes().splitlines() if line.startswith(b'{"kind":"items"')] == item_lines
