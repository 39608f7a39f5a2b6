"""SQS sends, in-process: SendMessage and SendMessageBatch (10 entries) per second into a standard queue that already
holds 0, 10,000 or 100,000 messages, and ReceiveMessage (10 at a time, each deleted) from it. The queue is filled
beforehand by putting moto's messages into it directly (not timed: with moto's own SendMessage, filling it was
the slow part), then each operation runs for `--sends` calls through boto3, as a user's code calls it.

    .venv/bin/python bench/sqs_send.py [--depths 0,10000,100000] [--sends 1000]
"""

from __future__ import annotations

import argparse
import os
import time

import boto3

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def prefill(depth: int) -> None:
    """`depth` messages in the queue "work", as moto's send_message leaves them (sent now, visible)."""
    from moto.sqs.models import Message, sqs_backends

    queue = sqs_backends["123456789012"]["us-east-1"].queues["work"]
    for n in range(depth):
        message = Message(f"m-{n:08d}", f"message {n}")
        message.mark_sent()
        queue._messages.append(message)


def rates(depth: int, sends: int) -> dict[str, float]:
    from eddy import emulate

    with emulate(housekeeping_interval=None):
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        prefill(depth)
        answers: dict[str, float] = {}
        started = time.perf_counter()
        for n in range(sends):
            sqs.send_message(QueueUrl=url, MessageBody=f'{{"order": {n}}}')
        answers["SendMessage"] = sends / (time.perf_counter() - started)
        started = time.perf_counter()
        for n in range(sends // 10):
            sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f'{{"order": {n}.{i}}}'}
                                                          for i in range(10)])
        answers["SendMessageBatch (messages)"] = (sends // 10) * 10 / (time.perf_counter() - started)
        started = time.perf_counter()
        received = 0
        for _ in range(sends // 10):
            messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
            received += len(messages)
            sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                                                            for i, m in enumerate(messages)])
        answers["ReceiveMessage + DeleteMessageBatch (messages)"] = received / (time.perf_counter() - started)
        return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="0,10000,100000")
    parser.add_argument("--sends", type=int, default=1000)
    args = parser.parse_args()
    for depth in (int(d) for d in args.depths.split(",")):
        for name, rate in rates(depth, args.sends).items():
            print(f"queue of {depth:>7,} messages: {name:<46} {rate:>8,.0f} /s", flush=True)


if __name__ == "__main__":
    main()
