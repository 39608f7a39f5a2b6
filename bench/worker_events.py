"""A function with code (a worker subprocess) on a stream mapping: its batch's event written as JSON from the records'
text (a WrittenEvent: FunctionSender.serializes) against made as a registered callable's own copy and then encoded for
the worker (the way a batch would go without it), alternating in one process: records per CPU second of Eddy's process
over a drain of a no-op Python handler (BatchSize 100; the worker's own CPU is its process's, not counted), and the
CPU of making the event and writing the worker's request line (BatchProcessor.sent_event and invocation.request_line).

    .venv/bin/python bench/worker_events.py [--records 5000] [--rounds 3]

For a before and after across commits, run this script of each tree in turn (each tree's own script: the parts it
times are that tree's); the records per CPU second compare across trees.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import statistics
import time
import zipfile
from typing import Any, Callable

import boto3

from common import create_table, fill_table

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def timed(spent: list[int], function: Callable[..., Any]) -> Callable[..., Any]:
    def measured(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time_ns()
        try:
            return function(*args, **kwargs)
        finally:
            spent[0] += time.thread_time_ns() - started

    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from eddy import emulate
    from eddy.emulator.functions import invocation
    from eddy.emulator.triggers import senders
    from eddy.emulator.triggers.pollers import batch_processor

    written, sent_event = senders.FunctionSender.serializes, batch_processor.BatchProcessor.sent_event
    request_line = invocation.request_line
    spent = [0]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\n    return None\n")
    ways = {"copied, then encoded": lambda self: False, "written (now)": written}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    batch_processor.BatchProcessor.sent_event = timed(spent, sent_event)
    invocation.request_line = timed(spent, request_line)
    try:
        with emulate(housekeeping_interval=None, split_records_per_second=None) as emu:
            dynamodb, lam = (boto3.client(name, region_name="us-east-1") for name in ("dynamodb", "lambda"))
            lam.create_function(FunctionName="noop", Runtime="python3.11", Handler="app.handler",
                                Role="arn:aws:iam::123456789012:role/bench", Code={"ZipFile": code.getvalue()})
            made = 0
            for round_ in range(args.rounds + 1):  # the first round warms up (the worker starts) and is not kept
                for name, way in ways.items():
                    senders.FunctionSender.serializes = way
                    made += 1
                    arn = create_table(dynamodb, f"table{made}", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
                    fill_table(dynamodb, args.records, f"table{made}")
                    gc.collect()
                    spent[0] = 0
                    started = time.process_time()
                    mapping = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="noop", BatchSize=100,
                                                              StartingPosition="TRIM_HORIZON")["UUID"]
                    assert emu.wait_idle(600)["Idle"]
                    if round_:
                        cpu = time.process_time() - started
                        samples[name].append((args.records / cpu, spent[0] / args.records / 1000))
                    lam.delete_event_source_mapping(UUID=mapping)
                    dynamodb.delete_table(TableName=f"table{made}")
    finally:
        senders.FunctionSender.serializes, batch_processor.BatchProcessor.sent_event = written, sent_event
        invocation.request_line = request_line
    print(f"bench/worker_events.py --records {args.records} --rounds {args.rounds}, load average {os.getloadavg()[0]:.1f}")
    for name, runs in samples.items():
        print(f"{name}: {statistics.median(r for r, _ in runs):,.0f} records per CPU-s of Eddy's process; the event "
              f"made and written {statistics.median(e for _, e in runs):.2f} us a record")


if __name__ == "__main__":
    main()
