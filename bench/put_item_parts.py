"""Where Eddy's share of an in-process PutItem goes, without a profiler (issue 39).

cProfile's cost per Python call weighs the many small functions of a request several times over; here each stage's
own CPU time is read around it instead (time.thread_time_ns, a few hundred nanoseconds a reading), per put, over
PutItems of new keys on a NEW_AND_OLD_IMAGES table, beside boto3's client floor (inprocess_floor.floor_client: a
client whose transport answers at once) in the same run. Stages (outer to inner; an indented one is part of the one
above it):

    moto's stubber and below     everything under botocore's before-send event: Eddy's whole server-side share
      door                       the DynamoDB door: body decoded once, validated, DynamoDB's rules, answered
        parse_body               the body's JSON decoded
        validation               botocore's model walked over the request (api/validation.py)
        DynamoDB's rules         api/dynamodb/rules/ (before any table is read)
        fast path                moto's action called directly (moto_seam/actions.py) and its answer shaped
          moto's action          moto_seam/actions.run: PutItem's action (moto_seam/tables/puts.py, moto's own
                                 DynamoHandler.put_item for a put with a condition) and the item store below it
            the item built       dynamodb_puts.item_to_put (a plain put's, puts.py)
            the item stored      dynamodb_puts.store_item: into moto's table, its write told to change capture
        capture's end            the stream records built and committed (stream, change log, write-ahead log)

The client's own hooks that emulate() adds (before-sign, before-send) are the rest of the difference between
"with Eddy" and the floor.

    .venv/bin/python bench/put_item_parts.py [--puts 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import boto3

from inprocess_floor import create_streamed, floor_client
from peer_servers import item

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def _timed(owner: Any, name: str, label: str, spent: dict[str, int]) -> None:
    """`owner.name` replaced by a wrapper adding its calls' own CPU time to spent[label]."""
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time_ns()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0) + time.thread_time_ns() - started

    setattr(owner, name, wrapper)


def _puts(dynamodb, count: int, prefix: str) -> float:
    """Microseconds of this thread's CPU per PutItem of a new key."""
    started = time.thread_time_ns()
    for i in range(count):
        dynamodb.put_item(TableName="bench", Item=dict(item(i), pk={"S": f"{prefix}{i}"}))
    return (time.thread_time_ns() - started) / count / 1000


def one_round(count: int, number: int) -> dict[str, float]:
    from moto.core.botocore_stubber import BotocoreStubber

    from eddy import emulate
    from eddy.emulator.api import validation
    from eddy.emulator.api.dynamodb import door
    from eddy.emulator.dynamodb import fast_path
    from eddy.emulator.moto_seam import actions
    from eddy.emulator.moto_seam.tables import puts
    from eddy.emulator.streams import capture

    floor = floor_client()
    _puts(floor, 300, "warm")
    figures = {"boto3's client floor": _puts(floor, count, f"r{number}-")}
    spent: dict[str, int] = {}
    patched = [(BotocoreStubber, "__call__", "moto's stubber and below (Eddy's share)"),
               (door, "handle", "  door"), (door, "parse_body", "    parse_body"),
               (validation, "validate", "    validation (botocore's model)"),
               (door.dynamodb_rules, "check", "    DynamoDB's rules"), (fast_path, "answer", "    fast path"),
               (actions, "run", "      moto's action (its item store included)"),
               (puts, "item_to_put", "        the item built (item_to_put)"),
               (puts, "store_item", "        the item stored, its write captured (store_item)"),
               (capture.Capture, "end", "    capture's end (stream records, commit)")]
    originals = [(owner, name, vars(owner)[name]) for owner, name, _ in patched]
    with emulate(housekeeping_interval=None, split_records_per_second=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_streamed(dynamodb)
        _puts(dynamodb, 300, "warm")
        try:
            for owner, name, label in patched:
                _timed(owner, name, label, spent)
            figures["with Eddy"] = _puts(dynamodb, count, f"r{number}-")
        finally:
            for owner, name, original in originals:
                setattr(owner, name, original)
    figures["Eddy's share (with Eddy - floor)"] = figures["with Eddy"] - figures["boto3's client floor"]
    figures.update((label, spent.get(label, 0) / count / 1000) for _, _, label in patched)  # outer to inner
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puts", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds = [one_round(args.puts, number) for number in range(args.rounds)]
    with open("/proc/loadavg") as loadavg:
        load = loadavg.read().split()[0]
    print(f"bench/put_item_parts.py --puts {args.puts} --rounds {args.rounds}: CPU microseconds per PutItem, medians, "
          f"load average {load}")
    print("| stage | us per put | share of Eddy's |\n|---|---|---|")
    share = statistics.median(run["Eddy's share (with Eddy - floor)"] for run in rounds)
    for number, label in enumerate(rounds[0]):
        value = statistics.median(run[label] for run in rounds)
        part = f"{value / share:.0%}" if number >= 2 else ""
        print(f"| {label.replace('  ', '&nbsp;&nbsp;')} | {value:,.0f} | {part} |")


if __name__ == "__main__":
    main()
