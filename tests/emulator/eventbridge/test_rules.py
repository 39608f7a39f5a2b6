"""EventBridge rules through both doors: PutEvents on the default and a custom bus reaches Lambda (Python and
Node.js) and SQS targets as EventBridge delivers the event, only when the rule's pattern matches; disabled rules and
other patterns deliver nothing; Input, InputPath and InputTransformer shape what a target receives."""

from __future__ import annotations

import calendar
import json
import time

import pytest

from tests.emulator.pipes.pipe_helpers import messages, queue
from tests.emulator.trigger_helpers import create_zip_function, wait_idle

RUNTIMES = ["python", "node"]

FORWARD = '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
'''

NODE_FORWARD = """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event) }));
};
"""

ORDER_PLACED = {"Source": "shop.orders", "DetailType": "OrderPlaced", "Detail": json.dumps({"order": "o-1", "total": 42})}


def forwarder(door, runtime: str) -> tuple[str, str]:
    """A function that sends each event it gets to a queue "forwarded": (its ARN, the queue's URL)."""
    url, _ = queue(door.client("sqs"), "forwarded")
    created = create_zip_function(door.client("lambda"), "forward", runtime, FORWARD if runtime == "python" else NODE_FORWARD,
                                  Environment={"Variables": {"QUEUE_URL": url}}, Timeout=10)
    return created["FunctionArn"], url


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_rule_on_the_default_bus_delivers_to_lambda_and_sqs_as_eventbridge_does(door, runtime):
    events, sqs = door.client("events"), door.client("sqs")
    function_arn, forwarded = forwarder(door, runtime)
    queue_url, queue_arn = queue(sqs, "orders-events")
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop.orders"], "detail": {"total": [{"numeric": [">", 10]}]}}))
    events.put_targets(Rule="orders", Targets=[{"Id": "function", "Arn": function_arn}, {"Id": "queue", "Arn": queue_arn}])
    before = door.now()
    put = events.put_events(Entries=[ORDER_PLACED, dict(ORDER_PLACED, Detail=json.dumps({"order": "o-2", "total": 5})),
                                     dict(ORDER_PLACED, Source="shop.returns")])
    assert put["FailedEntryCount"] == 0
    assert wait_idle(door)["Idle"]
    [by_function] = messages(sqs, forwarded)
    [by_queue] = messages(sqs, queue_url)
    assert by_function == by_queue
    assert list(by_queue) == ["version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"]
    assert by_queue == {"version": "0", "id": put["Entries"][0]["EventId"], "detail-type": "OrderPlaced",
                        "source": "shop.orders", "account": "123456789012", "time": by_queue["time"],
                        "region": "us-east-1", "resources": [], "detail": {"order": "o-1", "total": 42}}
    assert int(before) <= calendar.timegm(time.strptime(by_queue["time"], "%Y-%m-%dT%H:%M:%SZ")) <= before + 60


def test_a_rule_on_a_custom_bus_and_what_does_not_deliver(door):
    events, sqs = door.client("events"), door.client("sqs")
    events.create_event_bus(Name="shop")
    url, arn = queue(sqs, "shop-events")
    events.put_rule(Name="on-shop", EventBusName="shop", EventPattern=json.dumps({"detail-type": ["OrderPlaced"]}))
    events.put_targets(Rule="on-shop", EventBusName="shop", Targets=[
        {"Id": "whole", "Arn": arn}, {"Id": "constant", "Arn": arn, "Input": json.dumps({"fixed": True})},
        {"Id": "path", "Arn": arn, "InputPath": "$.detail"},
        {"Id": "shaped", "Arn": arn, "InputTransformer": {"InputPathsMap": {"order": "$.detail.order"},
                                                          "InputTemplate": '{"placed": "<order>"}'}}])
    events.put_rule(Name="off", EventBusName="shop", EventPattern=json.dumps({"source": ["shop.orders"]}), State="DISABLED")
    events.put_targets(Rule="off", EventBusName="shop", Targets=[{"Id": "q", "Arn": arn}])
    events.put_events(Entries=[ORDER_PLACED])  # the default bus: no rule of "shop" sees it
    assert wait_idle(door)["Idle"]
    assert messages(sqs, url) == []
    events.put_events(Entries=[dict(ORDER_PLACED, EventBusName="shop")])
    assert wait_idle(door)["Idle"]
    received = messages(sqs, url)
    assert len(received) == 4  # the disabled rule delivered nothing
    assert received[0]["detail-type"] == "OrderPlaced"
    assert received[1:] == [{"fixed": True}, {"order": "o-1", "total": 42}, {"placed": "o-1"}]
