"""Columnar copies of sealed segments: written once a segment is sealed, gone with it, never stale."""

from __future__ import annotations

import json

import boto3
import pyarrow.parquet as pq

from eddy import emulate
from eddy.emulator.storage import columnar_segments
from eddy.emulator.storage.columnar_segments import copier, write_columnar_copy

from tests.emulator.helpers import create_table


def put(dynamodb, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}, "l": {"L": [{"N": str(i)}]}})


def copies(tmp_path) -> list[str]:
    return sorted(p.stem for p in tmp_path.rglob("*.parquet"))


def test_sealed_segments_get_a_copy_holding_their_lines(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None, segment_max_bytes=1,
                 columnar_copy_min_bytes=0) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        arn = create_table(dynamodb)["LatestStreamArn"]
        put(dynamodb, 3)
        copier.wait()
        segments = sorted(p.stem for p in tmp_path.rglob("*.jsonl"))
        assert len(segments) == 3 and copies(tmp_path) == segments[:2]  # the newest takes appends: no copy
        first = min(tmp_path.rglob("*.jsonl"))
        [line] = [json.loads(text) for text in first.read_text().splitlines()]
        [row] = pq.read_table(first.with_suffix(".parquet")).to_pylist()
        texts = first.read_text().split('"keys":')[1]  # keys and images as the line spells them
        assert {name: row[name] for name in line} == {**line, "keys": texts.split(',"old_image":')[0],
                                                       "old_image": None, "new_image": json.dumps(line["new_image"], separators=(",", ":"))}
        assert row["new_image"] == '{"pk":{"S":"k0"},"l":{"L":[{"N":"0"}]}}' and row["old_image_attributes"] is None
        assert [(name, {tag: member for tag, member in value.items() if member is not None})
                for name, value in row["new_image_attributes"]] == [("pk", {"S": "k0"}), ("l", {"L": '[{"N":"0"}]'})]

        [shard] = emu.streams.streams[arn].shards  # a closed shard's last segment is sealed too
        emu.split_shard(arn, shard)
        copier.wait()
        assert copies(tmp_path) == segments

        emu.clock.advance(24 * 3600 + 1)  # trimming deletes a segment's copy with it
        emu.housekeeping()
        assert not list(tmp_path.rglob("*.jsonl")) and copies(tmp_path) == []


def test_small_segments_get_no_copy(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None, segment_max_bytes=1):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb)
        put(dynamodb, 3)
        copier.wait()
        assert len(list(tmp_path.rglob("*.jsonl"))) == 3 and copies(tmp_path) == []


def test_a_restart_copies_what_it_finds_sealed_and_drops_stale_copies(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None, columnar_copy_min_bytes=0):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb)
        put(dynamodb, 2)
    [segment] = list(tmp_path.rglob("*.jsonl"))
    assert copies(tmp_path) == []  # shutting down seals nothing
    leftover = segment.with_name(f".{segment.stem}.parquet.0123")
    leftover.write_bytes(b"half a copy")
    with emulate(state_dir=tmp_path, housekeeping_interval=None, columnar_copy_min_bytes=0):
        copier.wait()
        assert copies(tmp_path) == [segment.stem] and not leftover.exists()
        assert pq.read_table(segment.with_suffix(".parquet")).num_rows == 2


def test_a_segment_cut_at_start_up_loses_its_copy(tmp_path):
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb)
        put(dynamodb, 2)
    [segment] = list(tmp_path.rglob("*.jsonl"))
    with open(segment, "ab") as torn:
        torn.write(b'{"table":"orders","shard":"torn')  # a crash mid-write
    assert write_columnar_copy(segment) is None  # a line that is not a record: no copy
    lines = segment.read_bytes()
    segment.write_bytes(lines[:lines.rindex(b"{")])
    write_columnar_copy(segment)
    segment.write_bytes(lines)
    with emulate(state_dir=tmp_path, housekeeping_interval=None, columnar_copy_min_bytes=None):
        assert not segment.with_suffix(".parquet").exists()
    assert columnar_segments.copy_path(segment) == segment.with_suffix(".parquet")
