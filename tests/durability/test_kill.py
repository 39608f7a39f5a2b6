"""kill -9 in the middle of a workload: every acknowledged write and its stream records survive, and a
replica kept by the replicate handler converges to the source once Eddy is back."""

from __future__ import annotations

import io
import os
import random
import signal
import subprocess
import sys
import textwrap
import zipfile

import boto3

from tests.conftest import eddy_server, http_json
from tests.emulator.functions.test_functions import ROLE

WRITER = textwrap.dedent('''
    import random, sys, boto3
    from botocore.config import Config
    url, seed = sys.argv[1], int(sys.argv[2])
    dynamodb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="k",
                            aws_secret_access_key="s", config=Config(retries={"total_max_attempts": 1}))
    rng = random.Random(seed)
    for i in range(100000):
        key = "k%d" % rng.randrange(40)
        op = "delete" if rng.random() < 0.2 else "put"
        print("SEND", i, op, key, flush=True)
        try:
            if op == "put":
                dynamodb.put_item(TableName="orders", Item={"pk": {"S": key}, "n": {"N": str(i)}})
            else:
                dynamodb.delete_item(TableName="orders", Key={"pk": {"S": key}})
        except Exception:
            sys.exit(0)
        print("ACK", i, op, key, flush=True)
''')


def client(service: str, url: str):
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s")


def package() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # the handler itself comes from the installed handlers package
        archive.writestr("app.py", "from eddy.handlers.replicate import handler\n")
    return buffer.getvalue()


def scan(dynamodb, table: str) -> dict[str, str | None]:
    return {item["pk"]["S"]: item["n"]["N"] for item in dynamodb.scan(TableName=table)["Items"]}


def test_kill_9_loses_no_acknowledged_write(tmp_path):
    state = str(tmp_path / "state")
    args = ("--state-dir", state, "--housekeeping-interval", "0")
    with eddy_server(*args) as (url, server):
        dynamodb = client("dynamodb", url)
        for name, stream in (("orders", True), ("replica", False)):
            params = dict(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
            if stream:
                params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
            dynamodb.create_table(**params)
        stream_arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
        lam = client("lambda", url)
        lam.create_function(FunctionName="replicate", Runtime="python3.11", Role=ROLE, Handler="app.handler",
                            Code={"ZipFile": package()}, Environment={"Variables": {"REPLICA_TABLE": "replica"}})
        lam.get_waiter("function_active").wait(FunctionName="replicate")  # Active before it is used
        lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="replicate",
                                        StartingPosition="TRIM_HORIZON", BatchSize=20)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, url, "11"], stdout=subprocess.PIPE, text=True)
        acknowledged = 0
        lines = []
        kill_after = random.Random(5).randrange(150, 300)
        for line in writer.stdout:
            lines.append(line.split())
            if line.startswith("ACK"):
                acknowledged += 1
                if acknowledged == kill_after:
                    os.kill(server.pid, signal.SIGKILL)  # whatever is in flight now is not acknowledged
        writer.wait(timeout=60)
        server.wait(timeout=10)

    expected: dict[str, str | None] = {}
    in_flight = None
    for word, number, op, key in lines:
        if word == "SEND":
            in_flight = (number, op, key)
        else:
            expected[key] = number if op == "put" else None
            in_flight = None

    with eddy_server(*args) as (url, _):
        dynamodb = client("dynamodb", url)
        actual = scan(dynamodb, "orders")
        for key, value in expected.items():
            if in_flight and key == in_flight[2]:
                continue  # the write in flight at the kill may or may not have happened
            assert actual.get(key) == value, key
        assert acknowledged >= kill_after
        # the stream agrees with the table: each key's last record is its current state
        streams = client("dynamodbstreams", url)
        latest: dict[str, str | None] = {}
        numbers = []
        description = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]
        for shard in description["Shards"]:
            iterator = streams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard["ShardId"],
                                                  ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            while iterator:
                page = streams.get_records(ShardIterator=iterator)
                for record in page["Records"]:
                    numbers.append(int(record["dynamodb"]["SequenceNumber"]))
                    image = record["dynamodb"].get("NewImage")
                    latest[record["dynamodb"]["Keys"]["pk"]["S"]] = image["n"]["N"] if image else None
                if not page["Records"]:
                    break
                iterator = page.get("NextShardIterator")
        assert len(numbers) == len(set(numbers))
        assert {k: v for k, v in latest.items() if v is not None} == actual
        # the replica catches up from its checkpoint
        assert http_json(url + "/_eddy/idle", {"timeout": 60})["Idle"]
        assert scan(dynamodb, "replica") == actual
