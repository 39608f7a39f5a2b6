"""kill -9 in the middle of a mixed workload (DynamoDB puts and batch writes, S3 puts and deletes, SQS sends,
receives and deletes, SNS subscribes and publishes, layer publishes) loses nothing acknowledged: both doors (the
server killed under a client, and a process running emulate() killed in the middle of its own workload)."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import textwrap
from collections import defaultdict

import pytest

from tests.conftest import eddy_server
from tests.durability.killed_workloads import workload_command
from tests.durability.service_listings import running

WORKLOAD = textwrap.dedent('''
    import io, zipfile

    def workload(client):
        ddb, s3, sqs, sns, lam = (client(n) for n in ("dynamodb", "s3", "sqs", "sns", "lambda"))
        ddb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        s3.create_bucket(Bucket="photos")
        work = sqs.create_queue(QueueName="work")["QueueUrl"]
        topic = sns.create_topic(Name="events")["TopicArn"]
        print("READY", flush=True)
        live = []
        for i in range(100000):
            step = i % 8
            if step == 0:
                ddb.put_item(TableName="orders", Item={"pk": {"S": "k%d" % i}})
                print("ACK item k%d" % i, flush=True)
            elif step == 1:
                keys = ["b%d-%d" % (i, n) for n in range(3)]
                ddb.batch_write_item(RequestItems={"orders": [{"PutRequest": {"Item": {"pk": {"S": k}}}} for k in keys]})
                print("ACK item " + " ".join(keys), flush=True)
            elif step == 2:
                s3.put_object(Bucket="photos", Key="o%d" % i, Body=b"x" * (i % 3000))
                live.append("o%d" % i)
                print("ACK object o%d" % i, flush=True)
            elif step == 3 and len(live) > 1:
                key = live.pop(0)
                print("TRY deleted %s" % key, flush=True)  # done but not acknowledged if the kill lands here
                s3.delete_object(Bucket="photos", Key=key)
                print("ACK deleted %s" % key, flush=True)
            elif step == 4:
                print("ACK sent " + sqs.send_message(QueueUrl=work, MessageBody="m%d" % i)["MessageId"], flush=True)
            elif step == 5:
                for message in sqs.receive_message(QueueUrl=work, VisibilityTimeout=3600).get("Messages", []):
                    print("TRY removed " + message["MessageId"], flush=True)
                    sqs.delete_message(QueueUrl=work, ReceiptHandle=message["ReceiptHandle"])
                    print("ACK removed " + message["MessageId"], flush=True)
            elif step == 6:
                if i % 48 == 6:
                    name = "fan%d" % i
                    sqs.create_queue(QueueName=name)
                    arn = sns.subscribe(TopicArn=topic, Protocol="sqs",
                                        Endpoint="arn:aws:sqs:us-east-1:123456789012:" + name)["SubscriptionArn"]
                    print("ACK subscribed %s %s" % (name, arn), flush=True)
                print("ACK published " + sns.publish(TopicArn=topic, Message="p%d" % i)["MessageId"], flush=True)
            elif step == 7 and i % 40 == 7:
                buffer = io.BytesIO()
                with zipfile.ZipFile(buffer, "w") as archive:
                    archive.writestr("python/v.py", "V = %d\\n" % i)
                version = lam.publish_layer_version(LayerName="shared", Content={"ZipFile": buffer.getvalue()})
                print("ACK layer %d" % version["Version"], flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(workload, attempts=1, server_killed_under_it=True, kill_itself=False)
''')


def _run_until_killed(command: list[str], kill, acks_before_kill: int,
                      tried: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Run the workload, kill -9 (`kill`) after `acks_before_kill` acknowledgements; the acknowledged, in order.
    `tried` gets the deletes begun (TRY lines): one begun just before the kill may be done without its ACK."""
    writer = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    acknowledged: list[tuple[str, str]] = []
    for line in writer.stdout:
        if line.startswith("TRY "):
            kind, value = line.split()[1:]
            tried[kind].add(value)
        if line.startswith("ACK "):
            kind, *values = line.split()[1:]
            acknowledged.append((kind, " ".join(values)))
            if len(acknowledged) == acks_before_kill:
                kill(writer)
    writer.wait(timeout=120)
    assert len(acknowledged) >= acks_before_kill, "the workload stopped before it was killed"
    return acknowledged


def _drain(sqs, url: str) -> dict[str, str]:
    """Every message a queue holds (visible once the clock has moved past any visibility timeout): id -> body."""
    messages: dict[str, str] = {}
    while True:
        batch = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=7200).get("Messages", [])
        if not batch:
            return messages
        messages.update((message["MessageId"], message["Body"]) for message in batch)


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_kill_9_during_a_mixed_workload_loses_nothing_acknowledged(kind, tmp_path):
    state = str(tmp_path / "state")
    kill_after = random.Random(7).randrange(150, 300)
    tried: dict[str, set[str]] = defaultdict(set)
    if kind == "server":
        with eddy_server("--state-dir", state, "--housekeeping-interval", "0") as (url, server):
            in_order = _run_until_killed(workload_command(WORKLOAD, "server", url),
                                             lambda writer: server.send_signal(signal.SIGKILL), kill_after, tried)
    else:
        in_order = _run_until_killed(workload_command(WORKLOAD, "inprocess", state),
                                     lambda writer: writer.send_signal(signal.SIGKILL), kill_after, tried)
    acknowledged: dict[str, list[str]] = defaultdict(list)
    for ack_kind, values in in_order:
        acknowledged[ack_kind].append(values)
    assert acknowledged["object"] and acknowledged["deleted"] and acknowledged["sent"] and acknowledged["removed"]
    assert acknowledged["published"] and acknowledged["subscribed"] and acknowledged["layer"]
    with running(kind, state) as door:
        ddb, s3, sqs, sns, lam = (door.client(n) for n in ("dynamodb", "s3", "sqs", "sns", "lambda"))
        items = {item["pk"]["S"] for item in ddb.scan(TableName="orders")["Items"]}
        assert {key for keys in acknowledged["item"] for key in keys.split()} <= items
        objects = {entry["Key"] for entry in s3.list_objects_v2(Bucket="photos").get("Contents", [])}
        deleted = set(acknowledged["deleted"])
        assert len(tried["deleted"] - deleted) <= 1  # at most the one the kill interrupted: gone or not
        assert set(acknowledged["object"]) - tried["deleted"] <= objects
        assert not deleted & objects
        door.advance(3601)  # messages received and not yet deleted when the process died are visible again
        work = _drain(sqs, sqs.get_queue_url(QueueName="work")["QueueUrl"])
        removed = set(acknowledged["removed"])
        assert len(tried["removed"] - removed) <= 1
        assert set(acknowledged["sent"]) - tried["removed"] <= set(work)
        assert not removed & set(work)
        subscriptions = {s["SubscriptionArn"] for s in sns.list_subscriptions()["Subscriptions"]}
        for position, (ack_kind, values) in enumerate(in_order):
            if ack_kind == "subscribed":  # every publish acknowledged after it reached its queue
                queue_name, arn = values.split()
                assert arn in subscriptions
                delivered = _drain(sqs, sqs.get_queue_url(QueueName=queue_name)["QueueUrl"]).values()
                later = {message_id for later_kind, message_id in in_order[position:] if later_kind == "published"}
                assert {json.loads(body)["MessageId"] for body in delivered} >= later
        versions = {v["Version"] for v in lam.list_layer_versions(LayerName="shared")["LayerVersions"]}
        assert {int(version) for version in acknowledged["layer"]} <= versions

