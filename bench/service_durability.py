"""Durable moto services: restart time with 1 million stream records, 10,000 S3 objects and 100,000 SQS messages
after a clean stop (a snapshot), and after kill -9 with 10,000 S3 puts and 1,000 SQS sends to replay from the log
(the queue filled with SendMessageBatch, as a user fills it); and PutItem throughput with the services'
journal against another tree (today's main), in alternation, each in a fresh process, counted per CPU second
of the process (on a shared machine, wall time measures the other processes as much as this one).

    .venv/bin/python bench/service_durability.py [--records 1000000] [--objects 10000] [--messages 100000]
                                                 [--replayed-objects 10000] [--replayed-messages 1000]
                                                 [--baseline-tree DIR] [--items 3000] [--rounds 5]

DIR is a checkout of the code to compare with (e.g. `git archive main | tar -x -C DIR`); it runs with this
tree's virtualenv, its own code first on the path. Each PutItem process collects its garbage before it starts
counting: a full collection there costs about 0.12 s (a heap of some 190,000 objects), 6% of 2,000 puts, and it
falls in one tree's window and not in another's according to how many objects the tree's start-up left pending
(the same in every run of a tree, so it skews the ratio instead of averaging out); past the window both trees pay
full collections at the same rate per put, as each put keeps as many objects. The restart is timed in a fresh
process, from the start of the interpreter to the end of recovery (imports included), as `eddy serve` would spend it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

FILL = '''
import os, sys, time, boto3
sys.path.insert(0, {bench!r})
from durability import fill
from eddy import emulate
state, records, objects, messages, clean = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "clean"
fill(state, records)
with emulate(state_dir=state, housekeeping_interval=None):
    started = time.perf_counter()
    s3, sqs = boto3.client("s3", region_name="us-east-1"), boto3.client("sqs", region_name="us-east-1")
    s3.create_bucket(Bucket="objects")
    for i in range(objects):
        s3.put_object(Bucket="objects", Key="o/%06d" % i, Body=b"x" * (100 + i % 2000))
    queue = sqs.create_queue(QueueName="messages")["QueueUrl"]
    for start in range(0, messages, 10):  # as a user fills a queue (SendMessage is O(1) in Eddy: bench/sqs_send.py)
        sqs.send_message_batch(QueueUrl=queue, Entries=[{{"Id": str(n), "MessageBody": "message %d" % (start + n)}}
                                                        for n in range(min(10, messages - start))])
    print("  wrote %d objects and %d messages in %.0f s" % (objects, messages, time.perf_counter() - started), flush=True)
    if not clean:
        os._exit(0)  # as kill -9 would: no final snapshot, the log holds the services' requests
'''

RESTART = '''
import logging, sys, time
started = time.perf_counter()
from moto import mock_aws
from eddy import Emulator
logging.basicConfig(level=logging.INFO, format="  %(message)s", stream=sys.stdout)
logging.getLogger("botocore").setLevel(logging.WARNING)
with mock_aws():
    emu = Emulator(state_dir=sys.argv[1], housekeeping_interval=None)
    emu.recover()
    print("  restart: %.2f s" % (time.perf_counter() - started), flush=True)
    emu.close(keep_state=True)
'''

PUT_ITEM = '''
import gc, os, sys, time, tempfile, boto3
os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench"); os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
sys.path.insert(0, {bench!r})
from common import create_table, item
from eddy import emulate
count = int(sys.argv[1])
with tempfile.TemporaryDirectory() as state, emulate(state_dir=state, housekeeping_interval=None):
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")
    for i in range(200):
        dynamodb.put_item(TableName="orders", Item=item(i))
    gc.collect()  # every tree starts from the same collector state (the docstring says why)
    started = time.process_time()  # CPU seconds: what else the machine runs meanwhile does not count
    for i in range(count):
        dynamodb.put_item(TableName="orders", Item=item(i))
    print(count / (time.process_time() - started))
'''


def restart(records: int, objects: int, messages: int, clean: bool) -> None:
    """Fill a state directory (in another process), then time a fresh process's recovery of it."""
    env = dict(os.environ, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as state:
        how = "after a clean stop (snapshot)" if clean else "after kill -9 (services replayed from the log)"
        print(f"{records:,} stream records, {objects:,} S3 objects, {messages:,} SQS messages, {how}:", flush=True)
        subprocess.run([sys.executable, "-c", FILL.format(bench=str(HERE)), state, str(records), str(objects),
                        str(messages), "clean" if clean else "kill"], check=True, env=env)
        subprocess.run([sys.executable, "-c", RESTART, state], check=True, env=env)


def put_rate(tree: Path, count: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", PUT_ITEM.format(bench=str(HERE)), str(count)], check=True,
                         capture_output=True, text=True, cwd=tree, env=env).stdout
    return float(out.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--replayed-objects", type=int, default=10_000, help="S3 puts in the log after kill -9")
    parser.add_argument("--replayed-messages", type=int, default=1_000, help="SQS sends in the log after kill -9")
    parser.add_argument("--baseline-tree", type=Path, default=None)
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-restart", action="store_true")
    parser.add_argument("--clean-only", action="store_true", help="only the restart after a clean stop")
    args = parser.parse_args()
    if args.baseline_tree is not None:
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(put_rate(ROOT, args.items))
            theirs.append(put_rate(args.baseline_tree.resolve(), args.items))
        mine, base = statistics.median(ours), statistics.median(theirs)
        rounds = sorted(a / b for a, b in zip(ours, theirs))  # each round's two runs met the same load
        print(f"PutItem, in-process, durable state directory, {args.items} items x {args.rounds} rounds in alternation "
              "(median, puts per CPU second of the process)")
        print(f"  this tree:     {mine:8.0f} puts/CPU-s")
        print(f"  baseline tree: {base:8.0f} puts/CPU-s")
        print(f"  ratio: {mine / base:.3f}x (target >= 0.95x); median of the rounds' ratios "
              f"{statistics.median(rounds):.3f}x ({rounds[0]:.3f}x to {rounds[-1]:.3f}x)", flush=True)
    if not args.skip_restart:
        restart(args.records, args.objects, args.messages, clean=True)
        if not args.clean_only:
            restart(args.records, args.replayed_objects, args.replayed_messages, clean=False)


if __name__ == "__main__":
    main()
