"""Instructions to make a registered callable's event from stream records (DynamoDBStreamSource.lambda_records: a
batch of 100 MODIFY records of bench/common.py's item, both images), counted by valgrind's callgrind: the script run
with N batches and with none after the same warm-up, the difference over N x 100 records. Instruction counts do not
move with the machine's load, as CPU seconds do (issue 39).

    .venv/bin/python bench/event_instructions.py [--batches 50]
    PYTHONPATH=<a package of another tree's links> .venv/bin/python bench/event_instructions.py   # another commit
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent


def make(batches: int) -> None:
    """In this process: a warm-up batch, then `batches` more (the collector off: what is counted is the event's)."""
    sys.path.insert(0, str(HERE))
    from common import item

    from eddy.emulator.streams.records import ChangeRecord, EventName, StreamViewType
    from eddy.emulator.triggers.pollers.sources import DynamoDBStreamSource

    view_type = StreamViewType.NEW_AND_OLD_IMAGES
    records = [
        ChangeRecord(sequence_number=10**20 + n, event_id=f"{n:032x}", event_name=EventName.MODIFY,
                     keys={"pk": {"S": f"user#{n}"}}, old_image=dict(item(n), pk={"S": f"user#{n}"}),
                     new_image=dict(item(n + 1), pk={"S": f"user#{n}"}), created_at=1.7e9 + n, commit_version=n)
        for n in range(100)
    ]  # fmt: skip
    for record in records:
        record.sized(view_type, 10, 100, 100)  # as Stream.prepare keeps it at commit
    arn = "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2026-01-01T00:00:00.000"
    source = DynamoDBStreamSource(SimpleNamespace(view_type=view_type, region="us-east-1", arn=arn))
    source.lambda_records(records, "shardId-1")
    gc.disable()
    for _ in range(batches):
        source.lambda_records(records, "shardId-1")


def counted(batches: int) -> int:
    answer = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__, "--make",
         str(batches)],
        env={**os.environ, "PYTHONHASHSEED": "0"}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return int(re.search(r"Collected : (\d+)", answer.stderr).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--make", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make is not None:
        make(args.make)
        return
    per_record = (counted(args.batches) - counted(0)) / (args.batches * 100)
    print(f"bench/event_instructions.py --batches {args.batches}: {per_record:,.0f} instructions a record")


if __name__ == "__main__":
    main()
