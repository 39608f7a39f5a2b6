"""Sealed segments' columnar copies: whatever reads the change log reads the same from a copy as from the lines."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from pyspark.sql import DataFrame
from pyspark.testing import assertDataFrameEqual

from eddy.emulator.storage.columnar_segments import write_columnar_copy
from eddy.spark_batch import io
from eddy.spark_batch.jobs import aggregate, ttl_archive

from .segments import ChangeLog, insert, modify, remove

#: every type of AttributeValue, nested ones, names a JSON string must escape, text beyond ASCII
EVERYTHING = {
    "pk": {"S": "order-1"}, "amount": {"N": "12.50"}, "blob": {"B": "aGVsbG8="}, "paid": {"BOOL": False},
    "gone": {"NULL": True}, "tags": {"SS": ["a", "b"]}, "sizes": {"NS": ["1", "2.5"]}, "blobs": {"BS": ["AA=="]},
    "lines": {"L": [{"S": "x"}, {"M": {"n": {"N": "1"}}}, {"L": []}]}, "address": {"M": {"city": {"S": "Zürich"}}},
    'say "hi"': {"S": "back\\slash"}, "dotted.name": {"S": "✓ ok"}, "empty": {"M": {}},
}


def write_log(state: Path) -> list[Path]:
    orders = ChangeLog(state, "orders")
    orders.commit(1, "2025-05-01 10:00:00.250", insert(EVERYTHING, {"pk": EVERYTHING["pk"]}))
    orders.commit(2, "2025-05-01 10:00:01.000", modify(EVERYTHING, {"pk": {"S": "order-1"}, "amount": {"N": "3"}},
                                                       {"pk": EVERYTHING["pk"]}))
    orders.commit(3, "2025-05-01 10:01:30.000", insert({"pk": {"S": "order-2"}, "amount": {"N": "7"}},
                                                       {"pk": {"S": "order-2"}}))
    sealed = orders.path
    later = ChangeLog(state, "orders", first_sequence_number=100000000000000000004)
    later.commit(4, "2025-05-01 10:02:00.000", remove({"pk": {"S": "order-2"}, "amount": {"N": "7"}},
                                                      {"pk": {"S": "order-2"}}, ttl=True))
    later.commit(5, "2025-05-01 10:02:10.000", remove({"pk": {"S": "order-1"}, "amount": {"N": "3"}},
                                                      {"pk": {"S": "order-1"}}))
    return [sealed, later.path]


def decoded(log: DataFrame) -> list[dict]:
    """Rows with their JSON text parsed: a copy writes text beyond ASCII as itself, the lines as \\u escapes."""
    return sorted(({name: json.loads(value) if name in ("keys", "old_image", "new_image") and value else value
                    for name, value in row.asDict(recursive=True).items()} for row in log.collect()),
                  key=lambda row: row["sequence_number"])


def test_a_copy_reads_as_its_lines_text_attributes_and_ttl_candidates(spark, tmp_path: Path) -> None:
    segments = write_log(tmp_path)
    from_lines = decoded(io.read_change_log(spark, tmp_path))
    by_attribute = io.read_change_log(spark, tmp_path, attributes=["amount", "lines", "paid", "missing"]).collect()
    candidates = io.read_ttl_deletion_candidates(spark, tmp_path).collect()
    assert len(from_lines) == 5 and len(candidates) == 1

    assert write_columnar_copy(segments[0]) == segments[0].with_suffix(".parquet")  # one copied, one not
    assert decoded(io.read_change_log(spark, tmp_path)) == from_lines
    assertDataFrameEqual(io.read_change_log(spark, tmp_path, attributes=["amount", "lines", "paid", "missing"]),
                         by_attribute)
    write_columnar_copy(segments[1])
    assert sorted(Path(f).suffix for f in io.read_change_log(spark, tmp_path).inputFiles()) == [".parquet"] * 2
    assert decoded(io.read_change_log(spark, tmp_path)) == from_lines
    assertDataFrameEqual(io.read_ttl_deletion_candidates(spark, tmp_path), candidates)
    # an image with no nested value is written whole, byte for byte as the line has it
    assert io.read_change_log(spark, tmp_path).where("commit_version = 3").first()["new_image"] == \
        '{"pk":{"S":"order-2"},"amount":{"N":"7"}}'


def test_a_copy_whose_segment_is_gone_is_not_read(spark, tmp_path: Path) -> None:
    segments = write_log(tmp_path)
    write_columnar_copy(segments[0])
    segments[0].unlink()  # trimmed between the emulator's two deletions
    assert [row["commit_version"] for row in io.read_change_log(spark, tmp_path).collect()] == [4, 5]


def test_jobs_give_the_same_output_from_copies(spark, tmp_path: Path) -> None:
    state = tmp_path / "state"
    segments = write_log(state)

    def outputs(name: str) -> tuple[list, list]:
        metrics, archive = tmp_path / f"metrics-{name}", tmp_path / f"archive-{name}"
        aggregate.run(spark, SimpleNamespace(state_dir=str(state), out=str(metrics), window=60, numbers="amount",
                                             group_by="", tables="", scale=6, dynamodb_table=None, endpoint_url=None,
                                             region=None))
        summary = ttl_archive.run(spark, SimpleNamespace(state_dir=str(state), out=str(archive), tables=""))
        assert summary.rows_in == 5 and summary.rows_out == 1
        return (sorted(io.read_parquet(spark, str(metrics)).collect()),
                sorted(io.read_parquet(spark, str(archive)).collect()))

    from_lines = outputs("lines")
    for segment in segments:
        write_columnar_copy(segment)
    assert outputs("copies") == from_lines
    assert len(from_lines[0]) == 3 and from_lines[0][0]["records"] == 2
