"""What happens when a rule's delivery fails (both doors): a Lambda target's function error is Lambda's to retry
(its asynchronous invocation queue, event invoke config and OnFailure destination apply: Python and Node.js); a
target that cannot take the event (a function or queue that does not exist, a message the queue refuses) sends it
to the target's dead-letter queue with EventBridge's message attributes, without retries, and the wait reports it
once; an API Gateway target's event, which Eddy cannot deliver, goes to its dead-letter queue."""

from __future__ import annotations

import json

import pytest

from tests.emulator.eventbridge.test_rules import ORDER_PLACED
from tests.emulator.functions.test_async_invocations import ATTEMPTS, NODE_ATTEMPTS
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.recorded_snapshots import assert_recorded
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.triggers.sqs_helpers import queue

ACCOUNT = "123456789012"


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_failing_lambda_target_is_retried_by_lambda_and_its_record_goes_to_on_failure(door, runtime):
    events, sqs, lam = door.client("events"), door.client("sqs"), door.client("lambda")
    attempts, _ = queue(sqs, "attempts")
    outcomes, outcomes_arn = queue(sqs, "outcomes")
    function_arn = create_zip_function(lam, "worker", runtime, ATTEMPTS if runtime == "python" else NODE_ATTEMPTS,
                                       Environment={"Variables": {"QUEUE_URL": attempts}}, Timeout=10)["FunctionArn"]
    lam.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=1,
                                         DestinationConfig={"OnFailure": {"Destination": outcomes_arn}})
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop.orders"]}))
    events.put_targets(Rule="orders", Targets=[{"Id": "worker", "Arn": function_arn, "Input": json.dumps({"fail": True})}])
    events.put_events(Entries=[ORDER_PLACED])
    assert wait_for_messages(sqs, attempts, 1) == [{"fail": True}]
    report = door.wait_idle(60)
    while any(entry.get("State") in ("Queued", "Running") for entry in report["Pending"]):
        report = door.wait_idle(60)
    [pending] = report["Pending"]
    assert (pending["Source"], pending["Attempts"]) == (f"arn:aws:events:us-east-1:{ACCOUNT}:rule/orders", 1)
    door.advance(61)  # Lambda's retry a minute later
    assert wait_for_messages(sqs, attempts, 1) == [{"fail": True}]
    [record] = wait_for_messages(sqs, outcomes, 1)
    assert record["requestContext"]["condition"] == "RetriesExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 2
    assert record["requestContext"]["requestId"] == pending["RequestId"]
    assert record["requestPayload"] == {"fail": True}
    [failure] = door.wait_idle(60)["Failures"]
    assert (failure["RequestId"], failure["EventSource"]) == (pending["RequestId"], pending["Source"])


def test_targets_that_do_not_exist_send_the_event_to_their_dead_letter_queues(door):
    events, sqs = door.client("events"), door.client("sqs")
    dlq, dlq_arn = queue(sqs, "rule-dlq")
    missing_function = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:gone"
    missing_queue = f"arn:aws:sqs:us-east-1:{ACCOUNT}:gone"
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop.orders"]}))
    events.put_targets(Rule="orders", Targets=[
        {"Id": "function", "Arn": missing_function, "DeadLetterConfig": {"Arn": dlq_arn},
         "RetryPolicy": {"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 600}},
        {"Id": "queue", "Arn": missing_queue, "DeadLetterConfig": {"Arn": dlq_arn}},
        {"Id": "dropped", "Arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:also-gone"}])
    put = events.put_events(Entries=[ORDER_PLACED])
    report = door.wait_idle(60)
    assert (report["Idle"], report["Delivered"]) == (True, False)
    failures = {failure["TargetArn"]: failure for failure in report["Failures"]}
    assert set(failures) == {missing_function, missing_queue, f"arn:aws:sqs:us-east-1:{ACCOUNT}:also-gone"}
    assert failures[missing_function]["DeadLetterQueue"] == dlq_arn
    assert failures[f"arn:aws:sqs:us-east-1:{ACCOUNT}:also-gone"]["DeadLetterQueue"] is None
    assert door.wait_idle(60)["Failures"] == []  # once
    received = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10, MessageAttributeNames=["All"],
                                   WaitTimeSeconds=1)["Messages"]
    assert len(received) == 2
    rule_arn = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/orders"
    by_target = {m["MessageAttributes"]["TARGET_ARN"]["StringValue"]: m for m in received}
    for target_arn, message in by_target.items():
        body = json.loads(message["Body"])
        assert (body["id"], body["source"], body["detail"]) == (put["Entries"][0]["EventId"], "shop.orders",
                                                                 {"order": "o-1", "total": 42})
        attributes = {name: value["StringValue"] for name, value in message["MessageAttributes"].items()}
        assert {name: value["DataType"] for name, value in message["MessageAttributes"].items()} == dict.fromkeys(
            attributes, "String")
        assert attributes == {"RULE_ARN": rule_arn, "TARGET_ARN": target_arn, "ERROR_CODE": "NO_RESOURCE",
                              "ERROR_MESSAGE": attributes["ERROR_MESSAGE"],
                              "EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts", "RETRY_ATTEMPTS": "0"}
    assert by_target[missing_function]["MessageAttributes"]["ERROR_MESSAGE"]["StringValue"] == (
        f"Function not found: {missing_function}")
    assert "does not exist" in by_target[missing_queue]["MessageAttributes"]["ERROR_MESSAGE"]["StringValue"]


def test_a_message_the_target_queue_refuses_goes_to_the_dead_letter_queue_without_retries(door):
    """SQS's 400 is not a failure EventBridge retries (only 429 and 5xx are): straight to the dead-letter queue."""
    events, sqs = door.client("events"), door.client("sqs")
    dlq, dlq_arn = queue(sqs, "rule-dlq")
    sqs.create_queue(QueueName="orders.fifo", Attributes={"FifoQueue": "true"})  # no ContentBasedDeduplication
    fifo_arn = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders.fifo"
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop.orders"]}))
    events.put_targets(Rule="orders", Targets=[
        {"Id": "fifo", "Arn": fifo_arn, "SqsParameters": {"MessageGroupId": "orders"},
         "DeadLetterConfig": {"Arn": dlq_arn}, "RetryPolicy": {"MaximumRetryAttempts": 5}}])
    put = events.put_events(Entries=[ORDER_PLACED])
    [failure] = door.wait_idle(60)["Failures"]
    assert (failure["TargetArn"], failure["ErrorCode"], failure["DeadLetterQueue"]) == (
        fifo_arn, "SDK_CLIENT_ERROR", dlq_arn)
    [message] = sqs.receive_message(QueueUrl=dlq, MessageAttributeNames=["All"], WaitTimeSeconds=1)["Messages"]
    assert json.loads(message["Body"])["id"] == put["Entries"][0]["EventId"]
    attributes = {name: value["StringValue"] for name, value in message["MessageAttributes"].items()}
    assert attributes == {
        "RULE_ARN": f"arn:aws:events:us-east-1:{ACCOUNT}:rule/orders", "TARGET_ARN": fifo_arn,
        "ERROR_CODE": "SDK_CLIENT_ERROR", "EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts", "RETRY_ATTEMPTS": "0",
        "ERROR_MESSAGE": "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId "
                         "provided explicitly"}
    fifo = sqs.get_queue_url(QueueName="orders.fifo")["QueueUrl"]
    assert sqs.receive_message(QueueUrl=fifo).get("Messages", []) == []


def test_an_api_gateway_target_takes_put_events_as_aws_answered_and_its_event_is_dead_lettered(door):
    """LocalStack's AWS-validated test_events_targets.snapshot.json (8b9a79f05846), TestEventsTargetApiGateway::
    test_put_events_with_target_api_gateway: PutTargets and PutEvents answered as recorded (moto failed the whole
    PutEvents). Eddy does not run a REST API's integrations (aws-differences.md): the event goes to the target's
    dead-letter queue as undeliverable (CONNECTION_FAILURE), the rule's other targets get theirs."""
    events, sqs = door.client("events"), door.client("sqs")
    dlq, dlq_arn = queue(sqs, "api-dlq")
    inbox, inbox_arn = queue(sqs, "inbox")
    events.create_event_bus(Name="test-bus")
    events.put_rule(Name="test-rule", EventBusName="test-bus",
                    EventPattern=json.dumps({"source": ["test.source"], "detail-type": ["test.detail.type"]}))
    api_arn = f"arn:aws:execute-api:us-east-1:{ACCOUNT}:a1b2c3d4e5/test/POST/test"
    put_targets = events.put_targets(Rule="test-rule", EventBusName="test-bus", Targets=[
        {"Id": "api", "Arn": api_arn, "RoleArn": f"arn:aws:iam::{ACCOUNT}:role/events-invoke-api",
         "Input": json.dumps({"message": "Hello from EventBridge"}), "RetryPolicy": {"MaximumRetryAttempts": 0},
         "DeadLetterConfig": {"Arn": dlq_arn}},
        {"Id": "queue", "Arn": inbox_arn}])
    put_events = events.put_events(Entries=[{"EventBusName": "test-bus", "Source": "test.source",
                                             "DetailType": "test.detail.type",
                                             "Detail": json.dumps({"message": "Hello from EventBridge"})}])
    metadata = {"HTTPHeaders": {}, "HTTPStatusCode": 200}
    assert_recorded({name: {**answer, "ResponseMetadata": metadata}
                     for name, answer in (("put_targets_response", put_targets), ("put_events_response", put_events))},
                    {"put_targets_response": {"FailedEntries": [], "FailedEntryCount": 0, "ResponseMetadata": metadata},
                     "put_events_response": {"Entries": [{"EventId": "<uuid:1>"}], "FailedEntryCount": 0,
                                             "ResponseMetadata": metadata}})
    event_id = put_events["Entries"][0]["EventId"]
    [failure] = door.wait_idle(60)["Failures"]
    rule_arn = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/test-bus/test-rule"
    reason = f"Eddy does not run API Gateway REST APIs' integrations: the event was not sent to {api_arn}"
    assert {name: failure[name] for name in ("Rule", "TargetArn", "EventId", "ErrorCode", "LastError",
                                             "DeadLetterQueue")} == {
        "Rule": rule_arn, "TargetArn": api_arn, "EventId": event_id, "ErrorCode": "CONNECTION_FAILURE",
        "LastError": f"CONNECTION_FAILURE: {reason}", "DeadLetterQueue": dlq_arn}
    [message] = sqs.receive_message(QueueUrl=dlq, MessageAttributeNames=["All"], WaitTimeSeconds=1)["Messages"]
    attributes = {name: value["StringValue"] for name, value in message["MessageAttributes"].items()}
    assert (json.loads(message["Body"])["id"], attributes) == (
        event_id, {"RULE_ARN": rule_arn, "TARGET_ARN": api_arn, "ERROR_CODE": "CONNECTION_FAILURE",
                   "ERROR_MESSAGE": reason, "EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts",
                   "RETRY_ATTEMPTS": "0"})
    [delivered] = wait_for_messages(sqs, inbox, 1)
    assert (delivered["id"], delivered["detail"]) == (event_id, {"message": "Hello from EventBridge"})


def test_a_state_machine_target_starts_an_execution_and_a_missing_one_is_dead_lettered(door):
    """A Step Functions target (moto failed PutEvents on one): each event an execution of the machine, named after the
    event's id, the event its input; a machine that does not exist sends the event to the dead-letter queue."""
    events, sqs, stepfunctions = door.client("events"), door.client("sqs"), door.client("stepfunctions")
    dlq, dlq_arn = queue(sqs, "machine-dlq")
    machine = stepfunctions.create_state_machine(
        name="orders", roleArn=f"arn:aws:iam::{ACCOUNT}:role/machine",
        definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}))["stateMachineArn"]
    gone = machine.replace(":orders", ":gone")
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop.orders"]}))
    events.put_targets(Rule="orders", Targets=[
        {"Id": "machine", "Arn": machine, "RoleArn": f"arn:aws:iam::{ACCOUNT}:role/events"},
        {"Id": "gone", "Arn": gone, "RoleArn": f"arn:aws:iam::{ACCOUNT}:role/events",
         "DeadLetterConfig": {"Arn": dlq_arn}}])
    event_id = events.put_events(Entries=[ORDER_PLACED])["Entries"][0]["EventId"]
    [failure] = door.wait_idle(60)["Failures"]
    assert (failure["TargetArn"], failure["ErrorCode"], failure["DeadLetterQueue"]) == (gone, "NO_RESOURCE", dlq_arn)
    [message] = sqs.receive_message(QueueUrl=dlq, MessageAttributeNames=["All"], WaitTimeSeconds=1)["Messages"]
    assert (json.loads(message["Body"])["id"], message["MessageAttributes"]["ERROR_CODE"]["StringValue"]) == (
        event_id, "NO_RESOURCE")
    [execution] = stepfunctions.list_executions(stateMachineArn=machine)["executions"]
    assert execution["name"].startswith(f"{event_id}_") and len(execution["name"]) <= 80
    started = json.loads(stepfunctions.describe_execution(executionArn=execution["executionArn"])["input"])
    assert (started["id"], started["source"], started["detail"]) == (
        event_id, "shop.orders", {"order": "o-1", "total": 42})
