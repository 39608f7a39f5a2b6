"""SQS event source mappings, in-process: the message rate a no-op handler receives through a mapping on a standard
queue that already holds the messages (sent beforehand with SendMessageBatch, not timed), from CreateEventSourceMapping
until wait_idle() and an empty queue. Measured at BatchSize 10 (the default) and 10,000 (with a 1 s batching window,
which a full queue never waits for). Target (issue 29): >= 20,000 messages/s in-process.

    .venv/bin/python bench/sqs_mapping.py [--messages 20000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import time

import boto3

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def drain_rate(messages: int, batch_size: int) -> float:
    from eddy import emulate

    with emulate(housekeeping_interval=None) as emu:
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        for start in range(0, messages, 10):
            sqs.send_message_batch(QueueUrl=url, Entries=[
                {"Id": str(i), "MessageBody": f'{{"order": {i}, "status": "placed"}}'}
                for i in range(start, min(start + 10, messages))])
        received = [0]

        def handler(event, context):
            received[0] += len(event["Records"])

        emu.register_function("noop", handler)
        window = {"MaximumBatchingWindowInSeconds": 1} if batch_size > 10 else {}
        started = time.perf_counter()
        boto3.client("lambda", region_name="us-east-1").create_event_source_mapping(
            EventSourceArn=arn, FunctionName="noop", BatchSize=batch_size, **window)
        report = emu.wait_idle(600)
        elapsed = time.perf_counter() - started
        left = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        assert report["Idle"] and received[0] == messages, (report, received[0])
        assert left["ApproximateNumberOfMessages"] == left["ApproximateNumberOfMessagesNotVisible"] == "0", left
        return messages / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for batch_size in (10, 10_000):
        best = max(drain_rate(args.messages, batch_size) for _ in range(args.rounds))
        print(f"SQS mapping, BatchSize {batch_size:>6}: {best:>10,.0f} messages/s (best of {args.rounds}, "
              f"{args.messages:,} messages, no-op handler, in-process)")


if __name__ == "__main__":
    main()
