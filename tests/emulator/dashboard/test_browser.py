"""The dashboard in a real browser: `eddy serve`, tables, a split, a mapping whose function fails a batch, and
the page rendered by headless Chromium (Debian's package; `make chromium` installs it). The assertions are on
the DOM the page's JavaScript built; a screenshot is written beside it."""

from __future__ import annotations

import shutil
import subprocess
import threading
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.conftest import eddy_server, http_json
from tests.emulator.functions.test_functions import create_function
from tests.emulator.helpers import create_table
from tests.emulator.trigger_helpers import put

#: Chromium and an `eddy serve` of its own: seconds (pyproject.toml's `slow` marker)
#: one pytest-xdist worker for the module: `scene` (a server and what it shows) is made once, not once on each worker
#: that gets one of its tests
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dashboard-browser")]

REGION = "us-east-1"
SHIP = '''
def handler(event, context):
    keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"]]
    print("shipping", ", ".join(keys))
    if "bad" in keys:
        raise ValueError("cannot ship order bad")
'''
JOB = '''
def handler(event, context):
    raise RuntimeError("cannot do " + event["Records"][0]["body"])
'''

STACK = """
Resources:
  Inbox: {Type: AWS::SQS::Queue, Properties: {QueueName: shop-inbox}}
  Cache: {Type: AWS::ElastiCache::CacheCluster, DependsOn: Inbox, Properties: {Engine: redis}}
"""


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        pytest.skip("no Chromium on this machine: `make chromium` installs Debian's package")
    return found


def run_chromium(url: str, profile: Path, *options: str) -> str:
    command = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               f"--user-data-dir={profile}", "--virtual-time-budget=5000", *options, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout


class Page(HTMLParser):
    """The rendered DOM, as far as the tests look: text by element id and class, and the shard tree."""

    VOID = {"meta", "link", "br", "img", "input", "hr"}

    def __init__(self, html: str) -> None:
        super().__init__()
        self.stack: list[dict[str, Any]] = []
        self.texts: dict[str, list[str]] = {}  # "#id" or ".class" or "tag[attribute]" -> texts of such elements
        self.shard_parent: dict[str, str | None] = {}
        self.rows: dict[str, list[str]] = {}  # a table row's data- name -> the texts of its cells
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        names = [f"#{attributes['id']}"] if attributes.get("id") else []
        names += [f".{name}" for name in (attributes.get("class") or "").split()]
        names += [f"{tag}[{name}={value}]" for name, value in attributes.items() if name.startswith("data-")]
        shard = attributes.get("data-shard-id")
        if shard is not None:
            self.shard_parent[shard] = next((e["shard"] for e in reversed(self.stack) if e["shard"]), None)
        if tag not in self.VOID:
            self.stack.append({"tag": tag, "names": names, "shard": shard, "text": [], "cells": []})

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            element = self.stack.pop()
            text = "".join(element["text"])
            for name in element["names"]:
                self.texts.setdefault(name, []).append(text)
            if self.stack:
                self.stack[-1]["text"].append(text)
            if element["tag"] == "td":
                next(e for e in reversed(self.stack) if e["tag"] == "tr")["cells"].append(text)
            if element["tag"] == "tr":
                self.rows.update((name, element["cells"]) for name in element["names"])
            if element["tag"] == tag:
                return

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.stack[-1]["text"].append(data)

    def text(self, name: str) -> str:
        return "\n".join(self.texts.get(name, []))


@pytest.fixture(scope="module")
def scene():
    """A server with three tables, a split shard and a mapping whose function failed a batch; a queue mapping whose
    message went to its dead-letter queue, an SNS subscription, an S3 notification, a rule and a pipe."""
    with eddy_server("--housekeeping-interval", "0", "--in-memory") as (url, process):
        threading.Thread(target=process.stdout.read, daemon=True).start()  # the server logs every batch
        clients = {name: boto3.client(name, region_name=REGION, endpoint_url=url, aws_access_key_id="testing",
                                      aws_secret_access_key="testing")
                   for name in ("dynamodb", "dynamodbstreams", "lambda", "sqs", "sns", "s3", "events", "pipes",
                                "cloudformation")}
        dynamodb, lam, sqs = clients["dynamodb"], clients["lambda"], clients["sqs"]
        triggers = pipeline_triggers(url, clients)
        stream_arn = create_table(dynamodb, "orders")["LatestStreamArn"]
        create_table(dynamodb, "customers", "KEYS_ONLY")
        create_table(dynamodb, "audit", None)
        queue_url = sqs.create_queue(QueueName="failures")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        create_function(lam, "ship", SHIP, Timeout=10)
        put(dynamodb, "good")
        put(dynamodb, "bad")
        uuid = lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="ship",
                                               StartingPosition="TRIM_HORIZON", BatchSize=10, MaximumRetryAttempts=1,
                                               DestinationConfig={"OnFailure": {"Destination": queue_arn}})["UUID"]
        root = clients["dynamodbstreams"].describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0]["ShardId"]
        children = http_json(url + "/_eddy/shards/split", {"StreamArn": stream_arn, "ShardId": root})["ChildShardIds"]
        for i in range(6):
            put(dynamodb, f"order-{i}", i)
        put(dynamodb, "ada", table="customers")
        create_table(dynamodb, "scores")  # a global table whose replica in eu-west-1 is cut off: writes wait for it
        dynamodb.update_table(TableName="scores", ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
        http_json(url + "/_eddy/replication", {"Pause": "eu-west-1"})
        put(dynamodb, "s1", table="scores")
        put(dynamodb, "s2", table="scores")
        clients["cloudformation"].create_stack(StackName="shop", TemplateBody=STACK)  # rolled back: ElastiCache
        assert http_json(url + "/_eddy/idle", {"timeout": 30})["Idle"]
        # an asynchronous invocation that fails: wait_idle answers once its first attempt failed (its retry waits
        # a minute on the clock, so it is pending and not waited for)
        lam.invoke(FunctionName="jobs", InvocationType="Event", Payload=b'{"Records": [{"body": "later"}]}')
        pending = http_json(url + "/_eddy/idle", {"timeout": 30})["Pending"]
        assert [entry.get("State") for entry in pending] == ["WaitingForRetry"], pending
        yield {"url": url, "stream_arn": stream_arn, "root": root, "children": children, "uuid": uuid,
               **triggers}


def pipeline_triggers(url: str, clients: dict[str, Any]) -> str:
    """A queue mapping that fails until its message is in the dead-letter queue, a topic's subscriptions (one filtering
    a message out, one to a queue that is gone), a bucket's notification that delivered once, a rule and a pipe;
    answers the queue mapping's UUID and the subscriptions' ARNs."""
    sqs, lam = clients["sqs"], clients["lambda"]
    arn_of = lambda queue_url: sqs.get_queue_attributes(
        QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    dlq_arn = arn_of(sqs.create_queue(QueueName="jobs-dlq")["QueueUrl"])
    jobs_url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "30", "RedrivePolicy": (
        f'{{"deadLetterTargetArn": "{dlq_arn}", "maxReceiveCount": "1"}}')})["QueueUrl"]
    function_arn = create_function(lam, "jobs", JOB)["FunctionArn"]
    uuid = lam.create_event_source_mapping(EventSourceArn=arn_of(jobs_url), FunctionName="jobs", BatchSize=1)["UUID"]
    sqs.send_message(QueueUrl=jobs_url, MessageBody="first")
    assert http_json(url + "/_eddy/idle", {"timeout": 30})["Idle"]
    http_json(url + "/_eddy/clock", {"advance": 31})  # visible again: the next receive moves it to the DLQ
    assert http_json(url + "/_eddy/idle", {"timeout": 30})["Idle"]
    topic = clients["sns"].create_topic(Name="orders")["TopicArn"]
    to_jobs = clients["sns"].subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function_arn, ReturnSubscriptionArn=True,
                                       Attributes={"FilterPolicy": '{"kind": ["big"]}'})["SubscriptionArn"]
    gone_url = sqs.create_queue(QueueName="orders-gone")["QueueUrl"]
    gone_arn = arn_of(gone_url)
    to_gone = clients["sns"].subscribe(TopicArn=topic, Protocol="sqs", Endpoint=gone_arn,
                                       ReturnSubscriptionArn=True)["SubscriptionArn"]
    sqs.delete_queue(QueueUrl=gone_url)
    clients["sns"].publish(TopicArn=topic, Message="small", MessageAttributes={
        "kind": {"DataType": "String", "StringValue": "small"}})
    clients["s3"].create_bucket(Bucket="uploads")
    clients["s3"].put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
        "QueueConfigurations": [{"Id": "to-jobs-dlq", "QueueArn": dlq_arn, "Events": ["s3:ObjectCreated:*"],
                                 "Filter": {"Key": {"FilterRules": [{"Name": "suffix", "Value": ".png"}]}}}]})
    clients["s3"].put_object(Bucket="uploads", Key="cat.png", Body=b"png")
    clients["events"].put_rule(Name="big-orders", EventPattern='{"source": ["shop"]}')
    clients["events"].put_targets(Rule="big-orders", Targets=[{"Id": "jobs", "Arn": function_arn}])
    source_arn = arn_of(sqs.create_queue(QueueName="pipe-source")["QueueUrl"])
    clients["pipes"].create_pipe(Name="forward", Source=source_arn, Target=dlq_arn,
                                 RoleArn="arn:aws:iam::123456789012:role/pipes")
    return {"queue_mapping": uuid, "to_jobs": to_jobs, "to_gone": to_gone, "gone_arn": gone_arn}


def test_the_page_shows_tables_lineage_mappings_functions_and_a_tail(scene, tmp_path):
    page = Page(run_chromium(scene["url"] + "/_eddy/ui?tail=orders", tmp_path / "profile", "--dump-dom"))

    assert page.text("#status").startswith("live")
    assert [name for name in ("audit", "customers", "orders") if page.texts.get(f"article[data-table={name}]")] == \
        ["audit", "customers", "orders"]
    orders = page.text("article[data-table=orders]")
    assert "NEW_AND_OLD_IMAGES" in orders and "enabled" in orders and "8 records retained" in orders
    assert "No stream." in page.text("article[data-table=audit]")
    root, (left, right) = scene["root"], scene["children"]
    assert page.shard_parent[root] is None
    assert (page.shard_parent[left], page.shard_parent[right]) == (root, root)
    assert "closed" in page.text(f"li[data-shard-id={root}]")

    function, source, state, batch_size, invocations, errors, retries, to_destination, age, positions, last_error = \
        page.rows[f"tr[data-uuid={scene['uuid']}]"]
    assert (function, source, state, batch_size) == ("ship", scene["stream_arn"].split(":", 5)[-1], "Enabled", "10")
    assert (errors, retries, to_destination, last_error) == ("2", "1", "2", "ValueError: cannot ship order bad")
    assert int(invocations) >= 3 and age.endswith(" ms") or age.endswith(" s")
    for shard_id in (root, left, right):
        assert f"{shard_id}: finished at " in positions or f"{shard_id}: processing at " in positions

    functions = page.text("#functions")
    assert "ship" in functions and "python3.11" in functions and "Failed: ValueError: cannot ship order bad" in functions
    log = page.text("#log")  # the newest failed invocation's log, chosen by default: the asynchronous one's
    assert log.startswith("START RequestId: ") and "[ERROR] RuntimeError: cannot do later" in log
    assert "REPORT RequestId: " in log

    assert page.rows["tr[data-replica=scores/us-east-1]"] == ["scores", "us-east-1", "ACTIVE", "0", "flowing"]
    table, region, status, pending, flow = page.rows["tr[data-replica=scores/eu-west-1]"]
    assert (table, region, pending, flow) == ("scores", "eu-west-1", "2", "paused")
    assert status in ("CREATING", "ACTIVE")  # CREATING for 30 s of the server's clock

    *_, queue_positions, queue_error = page.rows[f"tr[data-uuid={scene['queue_mapping']}]"]
    assert queue_error == "RuntimeError: cannot do first"
    assert "0 available, 0 in flight, 0 delayed" in queue_positions and "dead-letter queue jobs-dlq: " in queue_positions
    assert page.rows["tr[data-queue=jobs]"] == ["jobs", "0", "0", "0", "jobs-dlq: 3 messages (after 1 receives)"]
    # the dead-lettered message, S3's TestEvent and its record of cat.png
    assert page.rows["tr[data-queue=jobs-dlq]"][:2] == ["jobs-dlq", "3"]
    topic, protocol, endpoint, policy, delivered, failed, filtered, destination, error = \
        page.rows[f"tr[data-subscription={scene['to_jobs']}]"]
    assert (topic, protocol, endpoint, policy) == ("orders", "lambda", "function:jobs",
                                                   'MessageAttributes: {"kind": ["big"]}')
    assert (delivered, failed, filtered, error) == ("0", "0", "1", "")  # the small one filtered out
    assert destination.startswith("1 event pending, ")  # the function's asynchronous event waiting for its retry
    *described, delivered, failed, filtered, destination, error = page.rows[f"tr[data-subscription={scene['to_gone']}]"]
    assert described == ["orders", "sqs", "orders-gone", ""] and (delivered, failed, filtered, destination) == (
        "0", "1", "0", "")
    moment, words = error.split(" ", 1)
    assert len(moment) == 8 and words == f"The destination queue does not exist: {scene['gone_arn']}"
    assert page.rows["tr[data-notification=uploads/to-jobs-dlq]"] == [
        "uploads", "s3:ObjectCreated:*", "suffix .png", "jobs-dlq", "1", "0", "3 available, 0 in flight, 0 delayed", ""]
    assert page.rows["tr[data-rule=big-orders]"] == ["big-orders", "default", "ENABLED", '{"source": ["shop"]}',
                                                    "function:jobs"]
    assert page.rows["tr[data-pipe=forward]"] == ["forward", "RUNNING", "pipe-source", "jobs-dlq", "0", "0", "0", ""]

    asynchronous = page.text("div[data-async-function=jobs]")
    assert "Asynchronous: 1 invocation, 1 error" in asynchronous or "Asynchronous: 2 invocations, 2 errors" in asynchronous
    assert "last error: RuntimeError: cannot do later" in asynchronous
    assert "WaitingForRetry" in asynchronous or "Running" in asynchronous  # its retry is due a minute later

    shop = page.text("article[data-stack=shop]")  # the stack's status, resources and last events
    assert "ROLLBACK_COMPLETE" in shop and "The following resource(s) failed to create: [Cache]." in shop
    logical, kind, physical, status, reason = page.rows["tr[data-resource=shop/Inbox]"]
    assert (logical, kind, physical.rsplit("/", 1)[-1], status, reason) == (
        "Inbox", "AWS::SQS::Queue", "shop-inbox", "DELETE_COMPLETE", "")
    assert page.rows["tr[data-resource=shop/Cache]"][3] == "DELETE_COMPLETE"
    events = page.texts[".stack-event"]
    assert len(events) == 10 and "ROLLBACK_COMPLETE" in events[0] and "  shop  AWS::CloudFormation::Stack" in events[0]

    tail = page.texts[".line"]
    assert len(tail) == 8 and "INSERT  pk='good'  +v=0" in tail[0] and "INSERT  pk='order-5'  +v=5" in tail[-1]


def test_a_screenshot_of_the_page(scene, tmp_path):
    screenshot = tmp_path / "dashboard.png"
    run_chromium(scene["url"] + "/_eddy/ui?tail=orders", tmp_path / "profile", f"--screenshot={screenshot}",
                 "--window-size=1400,1000", "--hide-scrollbars")
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert screenshot.stat().st_size > 20_000
