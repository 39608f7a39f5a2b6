"""Where a no-op handler's drain spends its CPU, record by record, without a profiler (issue 39).

The drain of bench/triggers.py (a TRIM_HORIZON mapping at BatchSize 100 on one shard of NEW_AND_OLD_IMAGES records of
bench/common.py's item, a no-op Python handler), after a first mapping has been drained in the same emulator so that
what loads with the first invocation (moto's CloudWatch Logs) is not timed. Each stage's own CPU time is read around
it (put_item_parts._timed: time.thread_time_ns), per record delivered; the garbage collector's time is read with
gc.callbacks, whichever thread its collections fell on. Stages (an indented one is part of the one above it):

    the process, every thread       process CPU over the drain
    taking batches                  ShardLane._take: the lane's wait loop and its batches' bounds (the poller thread)
      pending                       ShardLane.pending: a batch's records, lane, window and 6 MB bounds
    processing batches              BatchProcessor.process: the rest of the poller thread's work
      the event                     BatchProcessor.event: Lambda's records made as the handler's own copy (their
                                    SizeBytes was measured at commit: ChangeRecord.size_bytes, not timed here)
      the invocation                BatchProcessor.invoke: the hand-over to the invocation thread and back
        function logs               FunctionLogs.write: START, END and REPORT in moto's CloudWatch Logs
    garbage collections             gc.callbacks' start to stop (the CPU of the thread a collection fell on), every
                                    generation, with how many of each fell in the drain

    .venv/bin/python bench/drain_parts.py [--records 20000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from typing import Any

import boto3

from common import create_table, drain_rate, fill_table
from put_item_parts import _timed

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def _collections(spent: dict[str, int]) -> Any:
    """A gc callback adding each collection's CPU time (on the thread it fell on) to spent["garbage collections"],
    and counting each generation's collections in spent["generation N collections"]."""
    started = [0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.thread_time_ns()
        else:
            spent["garbage collections"] = spent.get("garbage collections", 0) + time.thread_time_ns() - started[0]
            counted = f"generation {info['generation']} collections"
            spent[counted] = spent.get(counted, 0) + 1

    return callback


def one_round(records: int) -> dict[str, float]:
    from eddy import emulate
    from eddy.emulator.functions.logs import log_groups
    from eddy.emulator.triggers.pollers import batch_processor, lanes

    spent: dict[str, int] = {}
    patched = [(lanes.ShardLane, "_take", "taking batches"), (lanes.ShardLane, "pending", "  pending"),
               (batch_processor.BatchProcessor, "process", "processing batches"),
               (batch_processor.BatchProcessor, "event", "  the event"),
               (batch_processor.BatchProcessor, "invoke", "  the invocation"),
               (log_groups.FunctionLogs, "write", "    function logs")]
    originals = [(owner, name, vars(owner)[name]) for owner, name, _ in patched]
    with emulate(housekeeping_interval=None, split_records_per_second=None) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        first = create_table(dynamodb, "first", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
        fill_table(dynamodb, 100, name="first")
        drain_rate(emu, first, 100)  # what loads with the first invocation, loaded
        arn = create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
        fill_table(dynamodb, records)
        gc.collect()
        callback = _collections(spent)
        try:
            for owner, name, label in patched:
                _timed(owner, name, label, spent)
            gc.callbacks.append(callback)
            started = time.process_time_ns()
            rate = drain_rate(emu, arn, records)
            process = time.process_time_ns() - started
        finally:
            gc.callbacks.remove(callback)
            for owner, name, original in originals:
                setattr(owner, name, original)
    figures = {"records/s (wall clock)": rate, "the process, every thread": process / records / 1000}
    figures.update((label, spent.get(label, 0) / records / 1000) for _, _, label in patched)
    figures["garbage collections"] = spent.get("garbage collections", 0) / records / 1000
    figures["collections (young, middle, full)"] = tuple(spent.get(f"generation {n} collections", 0) for n in range(3))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds = [one_round(args.records) for _ in range(args.rounds)]
    with open("/proc/loadavg") as loadavg:
        load = loadavg.read().split()[0]
    print(f"bench/drain_parts.py --records {args.records} --rounds {args.rounds}: CPU microseconds per record "
          f"delivered, medians, load average {load}")
    rate = statistics.median(run.pop("records/s (wall clock)") for run in rounds)
    collections = [run.pop("collections (young, middle, full)") for run in rounds]
    total = statistics.median(run["the process, every thread"] for run in rounds)
    print(f"wall clock: {rate:,.0f} records/s; CPU: {1e6 / total:,.0f} records/CPU-s\n"
          "| stage | us per record | share of the process's |\n|---|---|---|")
    order = ["the process, every thread", "taking batches", "  pending", "processing batches", "  the event",
             "  the invocation", "    function logs", "garbage collections"]
    for label in order:
        value = statistics.median(run[label] for run in rounds)
        print(f"| {label.replace('  ', '&nbsp;&nbsp;')} | {value:.2f} | {value / total:.0%} |")
    print("collections during each round's drain (young, middle, full):", ", ".join(map(str, collections)))


if __name__ == "__main__":
    main()
