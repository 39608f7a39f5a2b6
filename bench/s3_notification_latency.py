"""S3 event notifications, in-process: the latency from PutObject (before the call) to the start of the function it
notifies, p50 and p95 over sequential puts, for a function destination (invoked asynchronously) and for S3 -> SQS
-> a queue mapping (BatchSize 1). A registered no-op handler notes when it starts.

    .venv/bin/python bench/s3_notification_latency.py [--puts 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time

import boto3

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def latencies(puts: int, through_queue: bool) -> list[float]:
    from eddy import emulate

    with emulate(housekeeping_interval=None) as emu:
        s3, sqs = boto3.client("s3", region_name="us-east-1"), boto3.client("sqs", region_name="us-east-1")
        lam = boto3.client("lambda", region_name="us-east-1")
        s3.create_bucket(Bucket="images")
        started, arrived = threading.Condition(), []

        def handler(event, context):
            with started:
                arrived.append(time.perf_counter())
                started.notify_all()

        function_arn = emu.register_function("thumbnails", handler)
        if through_queue:
            url = sqs.create_queue(QueueName="uploads")["QueueUrl"]
            arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            configuration = {"QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]}
            s3.put_bucket_notification_configuration(Bucket="images", NotificationConfiguration=configuration)
            sqs.purge_queue(QueueUrl=url)  # S3's s3:TestEvent message
            lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="thumbnails", BatchSize=1)
        else:
            configuration = {"LambdaFunctionConfigurations": [{"LambdaFunctionArn": function_arn,
                                                                "Events": ["s3:ObjectCreated:*"]}]}
            s3.put_bucket_notification_configuration(Bucket="images", NotificationConfiguration=configuration)
        measured = []
        for i in range(puts):
            before = time.perf_counter()
            s3.put_object(Bucket="images", Key=f"raw/{i}.jpg", Body=b"jpeg")
            with started:
                assert started.wait_for(lambda: len(arrived) > i, timeout=60), f"put {i} never started the function"
            measured.append(arrived[i] - before)
        return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puts", type=int, default=200)
    args = parser.parse_args()
    for through_queue, name in ((False, "function destination"), (True, "S3 -> SQS -> queue mapping")):
        values = sorted(latencies(args.puts, through_queue))
        p95 = values[int(len(values) * 0.95) - 1]
        print(f"S3 put -> function start, {name:<27}: p50 {statistics.median(values) * 1000:6.2f} ms, "
              f"p95 {p95 * 1000:6.2f} ms ({args.puts} puts, in-process)")


if __name__ == "__main__":
    main()
