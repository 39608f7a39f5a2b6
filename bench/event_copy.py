"""A mapping's event for a registered callable, made two ways in the same run: as before issue 39's change (the
records built sharing the stream's images, then the whole event copied by marshal) and as now (the records made new,
their images copied in one marshal pass: the source's lambda_records, an OwnEvent not copied again). Both give the
handler an event that shares nothing with the stream; this measures what that isolation costs. The step alone also
a third way, issue 39's lead for the drain: each record's Lambda JSON text made once beforehand (at commit; not timed
here), a batch's event those texts joined and read by one json.loads, as Lambda's runtime reads its event; and
the other ways a copy could be made in one pass that were measured against it (issue 39, 2026-11-28 22:30 UTC): the
records built sharing the stream's images and the whole event copied by pickle (protocol 5) instead of marshal. (A
fourth, the images copied by Python code sharing their strings, was measured then too; since 7f2f9d5 a record's images
are decoded from its text, which makes new strings whichever way, and it is gone.)

    .venv/bin/python bench/event_copy.py [--records 10000] [--rounds 6] [--step-only]

Prints the step alone (a batch of 100 MODIFY records, both images) and a no-op handler's drain per CPU second, the
two ways alternating in one process, medians.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import statistics
import time
import timeit

import boto3
from common import create_table, fill_table, item

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def built_then_copied(self, lane, records, *, final=False, terminated_early=False):
    """BatchProcessor.event as it was: a plain dict the Invoker copies whole (functions/invocation.py own_copy)."""
    source, shard_id = self.source, lane.shard.shard_id
    event = {"Records": [source.lambda_record(r, shard_id) for r in records]}
    if self.mapping.tumbling_window_in_seconds and lane.window is not None:
        event.update(lane.window.event_fields(shard_id, source.arn, final=final, terminated_early=terminated_early))
    return event


def step(rounds: int) -> dict[str, float]:
    """Microseconds to make one batch's event as the handler gets it."""
    from eddy.emulator.functions.invocation_events import OwnEvent, own_copy
    from eddy.emulator.streams.records import ChangeRecord, EventName, StreamViewType, compact_json
    from eddy.emulator.triggers.pollers.sources import DynamoDBStreamSource

    class Fields:  # what DynamoDBStreamSource.lambda_record(s) read of a stream
        view_type, region, arn = StreamViewType.NEW_AND_OLD_IMAGES, "us-east-1", "arn:aws:dynamodb:us-east-1:1:table/t"

    stream = DynamoDBStreamSource(Fields())
    records = [ChangeRecord(sequence_number=i, event_id="e" * 32, event_name=EventName.MODIFY,
                            keys={"pk": {"S": f"user#{i}"}}, old_image=dict(item(i + 1), pk={"S": f"user#{i}"}),
                            new_image=dict(item(i), pk={"S": f"user#{i}"}), created_at=1.0, commit_version=i)
               for i in range(100)]
    texts = [compact_json(stream.lambda_record(r, "s")) for r in records]  # made at commit in that design
    ways = {"before": lambda: own_copy({"Records": [stream.lambda_record(r, "s") for r in records]}),
            "now": lambda: dict(OwnEvent(Records=stream.lambda_records(records, "s"))),
            "joined JSON": lambda: {"Records": json.loads(f"[{','.join(texts)}]")},
            "pickle 5": lambda: pickle.loads(pickle.dumps({"Records": [stream.lambda_record(r, "s") for r in records]}, 5))}
    made = [way() for way in ways.values()]
    assert all(event == made[0] for event in made)
    samples: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, way in ways.items():
            samples[name].append(timeit.timeit(way, number=100) * 1e4)
    return {name: statistics.median(values) for name, values in samples.items()}


def drains(records: int, rounds: int) -> dict[str, float]:
    """Records per CPU second of a no-op handler's drain (BatchSize 100), each way on a table of its own."""
    from eddy.emulator.triggers.pollers import batch_processor

    from eddy import emulate

    ways = {"before": built_then_copied, "now": batch_processor.BatchProcessor.event}
    samples: dict[str, list[float]] = {name: [] for name in ways}
    received = [0]

    def handler(event, context):
        received[0] += len(event["Records"])

    with emulate(housekeeping_interval=None, split_records_per_second=None) as emu:
        dynamodb, lam = boto3.client("dynamodb", region_name="us-east-1"), boto3.client("lambda", region_name="us-east-1")
        emu.register_function("noop", handler)
        made = 0
        for round_ in range(rounds + 1):  # the first round warms up (moto's CloudWatch Logs loads) and is not kept
            for name, way in ways.items():
                batch_processor.BatchProcessor.event = way
                made += 1
                arn = create_table(dynamodb, f"table{made}", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
                fill_table(dynamodb, records, f"table{made}")
                gc.collect()
                received[0] = 0
                started = time.process_time()
                mapping = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="noop",
                                                          StartingPosition="TRIM_HORIZON", BatchSize=100)["UUID"]
                assert emu.wait_idle(600)["Idle"] and received[0] == records
                if round_:
                    samples[name].append(records / (time.process_time() - started))
                lam.delete_event_source_mapping(UUID=mapping)
                dynamodb.delete_table(TableName=f"table{made}")
        batch_processor.BatchProcessor.event = ways["now"]
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--step-only", action="store_true", help="the step alone, not the drains")
    args = parser.parse_args()
    made = step(15)
    print(f"a batch of 100 MODIFY records made into the handler's own event: now {made['now']:,.0f} us; "
          + "; ".join(f"{name} {spent:,.0f} us ({spent / made['now']:.2f}x of now)"
                      for name, spent in made.items() if name != "now")
          + f"; load average {os.getloadavg()[0]:.1f}")
    if args.step_only:
        return
    rates = drains(args.records, args.rounds)
    print(f"no-op handler's drain, BatchSize 100, {args.records} records: before {rates['before']:,.0f} records/CPU-s,"
          f" now {rates['now']:,.0f} records/CPU-s ({rates['now'] / rates['before']:.2f}x);"
          f" load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
