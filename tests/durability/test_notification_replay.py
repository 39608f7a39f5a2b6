"""S3 notifications, SNS subscriptions and EventBridge rules across a kill -9: replaying the services' log rebuilds what they sent to
queues and topics exactly (the same message, S3's record with its eventTime and sequencer), never invokes a function
a second time (its asynchronous queue keeps its own entries), and a key's sequencer keeps growing after the restart.
Both doors: the server killed under its client, and a process running emulate() killed after its work."""

from __future__ import annotations

import json
import signal
import subprocess
import textwrap

import pytest

from tests.conftest import eddy_server
from tests.durability.killed_workloads import run_here, workload_command
from tests.durability.service_listings import drain, running

WORKLOAD = textwrap.dedent('''
    import io, json, zipfile

    SEEN = """
    import boto3
    def handler(event, context):
        sqs = boto3.client("sqs")
        record = (event.get("Records") or [event])[0]
        source = record.get("eventSource") or record.get("EventSource") or "events:" + record["source"]
        sqs.send_message(QueueUrl=sqs.get_queue_url(QueueName="seen")["QueueUrl"],
                         MessageBody=source + " " + context.aws_request_id)
    """

    def workload(client, wait_idle):
        s3, sqs, sns, lam, events = (client(n) for n in ("s3", "sqs", "sns", "lambda", "events"))
        sqs.create_queue(QueueName="seen")
        uploads = sqs.create_queue(QueueName="uploads")["QueueUrl"]
        sqs.create_queue(QueueName="fanout")
        sqs.create_queue(QueueName="copies")
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("app.py", SEEN)
        function = lam.create_function(FunctionName="seen", Runtime="python3.11", Handler="app.handler",
                                       Role="arn:aws:iam::123456789012:role/r", Code={"ZipFile": buffer.getvalue()},
                                       Timeout=30)["FunctionArn"]
        lam.get_waiter("function_active").wait(FunctionName="seen")  # Active before it is used
        s3.create_bucket(Bucket="uploads")
        s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
            "LambdaFunctionConfigurations": [{"LambdaFunctionArn": function, "Events": ["s3:ObjectCreated:*"],
                "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "fn/"}]}}}],
            "QueueConfigurations": [{"QueueArn": "arn:aws:sqs:us-east-1:123456789012:uploads",
                "Events": ["s3:ObjectCreated:*"], "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "q/"}]}}}]})
        sqs.receive_message(QueueUrl=uploads, WaitTimeSeconds=0)  # S3's TestEvent, taken away
        topic = sns.create_topic(Name="news")["TopicArn"]
        sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function)
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint="arn:aws:sqs:us-east-1:123456789012:fanout")
        s3.put_object(Bucket="uploads", Key="fn/a.txt", Body=b"to the function")
        s3.put_object(Bucket="uploads", Key="q/a.txt", Body=b"to the queue")
        sns.publish(TopicArn=topic, Message="hello")
        events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
        events.put_targets(Rule="orders", Targets=[
            {"Id": "function", "Arn": function}, {"Id": "queue", "Arn": "arn:aws:sqs:us-east-1:123456789012:copies"}])
        events.put_events(Entries=[{"Source": "shop", "DetailType": "order placed", "Detail": "{}"}])
        wait_idle()
        [message] = sqs.receive_message(QueueUrl=uploads, VisibilityTimeout=0)["Messages"]
        print("UPLOAD " + json.dumps({"MessageId": message["MessageId"], "Body": message["Body"]}), flush=True)
        print("DONE", flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(workload, delivered=True)
''')


def _run(command: list[str]) -> dict:
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    return _upload(done.stdout, done.stderr)


def _upload(printed: str, errors: str = "") -> dict:
    lines = printed.splitlines()
    assert "DONE" in lines, printed[-2000:] + errors[-3000:]
    return json.loads(next(line for line in lines if line.startswith("UPLOAD "))[len("UPLOAD "):])


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_pushes_are_replayed_as_sent_and_functions_are_not_invoked_again(kind, tmp_path):
    state = str(tmp_path / "state")
    if kind == "server":
        with eddy_server("--state-dir", state, "--housekeeping-interval", "0") as (url, server):
            upload = _upload(run_here(WORKLOAD, "server", url))  # the server's client: in this process
            server.send_signal(signal.SIGKILL)
    else:
        upload = _run(workload_command(WORKLOAD, "inprocess", state))

    with running(kind, state) as door:  # recovery replays S3's puts and SNS's publish through moto
        door.wait_idle(60)
        s3, sqs = door.client("s3"), door.client("sqs")
        seen = sorted(body.split()[0] for body in drain(sqs, "seen"))
        assert seen == ["aws:s3", "aws:sns", "events:shop"]  # each event reached the function once, before the kill
        assert len(drain(sqs, "fanout")) == 1
        [copy] = drain(sqs, "copies")  # the rule's queue target: delivered once
        assert json.loads(copy)["detail-type"] == "order placed"
        url = sqs.get_queue_url(QueueName="uploads")["QueueUrl"]
        [message] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=600)["Messages"]
        assert (message["MessageId"], message["Body"]) == (upload["MessageId"], upload["Body"])
        before = json.loads(upload["Body"])["Records"][0]
        assert before["eventName"] == "ObjectCreated:Put" and before["s3"]["object"]["key"] == "q/a.txt"

        s3.put_object(Bucket="uploads", Key="q/a.txt", Body=b"again")
        [again] = sqs.receive_message(QueueUrl=url, VisibilityTimeout=600, WaitTimeSeconds=10)["Messages"]
        after = json.loads(again["Body"])["Records"][0]
        assert after["s3"]["object"]["sequencer"] > before["s3"]["object"]["sequencer"]  # S3's order per key
