"""SQS event source mappings' answers compared whole with AWS's, as AWS recorded them.

The expected answers are the ones LocalStack's AWS-validated snapshot tests captured against AWS (validated
2025-03-03 to 2025-11-25): tests/aws/services/lambda_/event_source_mapping/test_lambda_integration_sqs.py and its
.snapshot.json (localstack/localstack). Values that differ from run to run (ids, ARNs, receipt handles, times) are
placeholders there; here they are taken from the run itself and their format is checked. Both doors, functions made
through boto3 as zip packages.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest
from botocore.exceptions import ClientError

from tests.emulator.trigger_helpers import create_zip_function, wait_idle
from tests.emulator.triggers.sqs_helpers import REPORTER, delivered, queue, queue_with_reporter

ACCOUNT = "123456789012"
VARYING = {"UUID", "EventSourceArn", "EventSourceMappingArn", "FunctionArn", "LastModified", "ResponseMetadata"}
#: CreateEventSourceMapping of a queue with the defaults, as AWS answered it (test_event_source_mapping_default_batch_size)
AWS_CREATED = {"BatchSize": 10, "FunctionResponseTypes": [], "MaximumBatchingWindowInSeconds": 0, "State": "Creating",
               "StateTransitionReason": "USER_INITIATED"}
#: AWS's answer to BatchSize 11 without a batching window, at create and at update (the same test)
AWS_WINDOW_NEEDED = ("InvalidParameterValueException",
                     "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10")


def without_varying(answer: dict, queue_arn: str, function: str, status: int = 202) -> dict:
    """The answer with its varying values checked and removed."""
    uuid = answer["UUID"]
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", uuid)
    assert answer["EventSourceMappingArn"] == f"arn:aws:lambda:us-east-1:{ACCOUNT}:event-source-mapping:{uuid}"
    assert answer["FunctionArn"] == f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{function}"
    assert answer["EventSourceArn"] == queue_arn and isinstance(answer["LastModified"], datetime)
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == status
    return {name: value for name, value in answer.items() if name not in VARYING}


def refusal(call, **params) -> dict:
    """The error as botocore reads it: Error, Lambda's Type and message, the status."""
    with pytest.raises(ClientError) as raised:
        call(**params)
    response = raised.value.response
    return {"Error": response["Error"], "Type": response.get("Type"), "message": response.get("message"),
            "HTTPStatusCode": response["ResponseMetadata"]["HTTPStatusCode"]}


def aws_error(code: str, message: str, status: int = 400) -> dict:
    return {"Error": {"Code": code, "Message": message}, "Type": "User", "message": message, "HTTPStatusCode": status}


def test_the_default_batch_size_and_a_batch_over_ten_without_a_window(door):
    env = queue_with_reporter(door)
    lam, sqs = env["lambda"], env["sqs"]
    created = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")
    assert without_varying(created, env["arn"], "reporter") == AWS_CREATED
    refused = aws_error(*AWS_WINDOW_NEEDED)
    assert refusal(lam.update_event_source_mapping, UUID=created["UUID"], FunctionName="reporter", BatchSize=11) == refused
    _, other_arn = queue(sqs, "other")
    assert refusal(lam.create_event_source_mapping, EventSourceArn=other_arn, FunctionName="reporter",
                   BatchSize=11) == refused
    assert lam.list_event_source_mappings(EventSourceArn=other_arn)["EventSourceMappings"] == []


def test_a_queue_that_does_not_exist(door):
    env = queue_with_reporter(door)
    missing = f"arn:aws:sqs:us-east-1:{ACCOUNT}:not-existing-queue"
    assert refusal(env["lambda"].create_event_source_mapping, EventSourceArn=missing, FunctionName="reporter",
                   BatchSize=1) == aws_error(
        "InvalidParameterValueException",
        "Error occurred while ReceiveMessage. SQS Error Code: AWS.SimpleQueueService.NonExistentQueue. "
        "SQS Error Message: The specified queue does not exist.")  # test_esm_with_not_existing_sqs_queue


def test_a_duplicate_mapping(door):
    env = queue_with_reporter(door)
    lam = env["lambda"]
    created = lam.create_event_source_mapping(FunctionName="reporter", EventSourceArn=env["arn"])
    assert without_varying(created, env["arn"], "reporter") == AWS_CREATED
    assert refusal(lam.create_event_source_mapping, FunctionName="reporter", EventSourceArn=env["arn"]) == aws_error(
        "ResourceConflictException",
        f'An event source mapping with SQS arn (" {env["arn"]} ") and function (" reporter ") already exists. '
        f"Please update or delete the existing mapping with UUID {created['UUID']}", 409)  # test_duplicate_event_source_mappings
    create_zip_function(lam, "second", "python", REPORTER, Environment={"Variables": {"QUEUE_URL": env["deliveries"]}})
    second = lam.create_event_source_mapping(FunctionName="second", EventSourceArn=env["arn"])  # another function: fine
    assert without_varying(second, env["arn"], "second") == AWS_CREATED


def test_created_disabled_then_enabled(door):
    """test_fifo_message_group_parallelism: Disabled at create, Enabling at the update, Enabled after."""
    env = queue_with_reporter(door, name="work.fifo", FifoQueue="true", ContentBasedDeduplication="true",
                              VisibilityTimeout="60")
    lam, sqs = env["lambda"], env["sqs"]
    created = lam.create_event_source_mapping(FunctionName="reporter", EventSourceArn=env["arn"], Enabled=False,
                                              BatchSize=1)
    expected = dict(AWS_CREATED, BatchSize=1, State="Disabled")
    assert without_varying(created, env["arn"], "reporter") == expected
    for i in range(5):
        sqs.send_message(QueueUrl=env["url"], MessageBody=f"message-{i}", MessageGroupId="fixed-message-group-id-test")
    assert wait_idle(door)["Idle"] and delivered(sqs, env["deliveries"]) == []
    enabling = lam.update_event_source_mapping(UUID=created["UUID"], Enabled=True)
    assert without_varying(enabling, env["arn"], "reporter") == dict(expected, State="Enabling")
    enabled = lam.get_event_source_mapping(UUID=created["UUID"])
    assert without_varying(enabled, env["arn"], "reporter", 200) == dict(expected, State="Enabled")
    assert wait_idle(door)["Idle"]
    # one group, one message a batch: in order, one after the other
    assert [[r["body"] for r in records] for records in delivered(sqs, env["deliveries"])] == [
        [f"message-{i}"] for i in range(5)]


def test_the_record_carries_the_message_attributes_and_their_digest(door):
    """test_message_body_and_attributes_passed_correctly: AWS's record, md5OfMessageAttributes included."""
    env = queue_with_reporter(door, VisibilityTimeout="10")
    lam, sqs = env["lambda"], env["sqs"]
    lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter", BatchSize=1)
    body = '{"fail_attempts": 0}'
    sent = sqs.send_message(QueueUrl=env["url"], MessageBody=body, MessageAttributes={
        "Title": {"DataType": "String", "StringValue": "The Whistler"},
        "Author": {"DataType": "String", "StringValue": "John Grisham"},
        "WeeksOn": {"DataType": "Number", "StringValue": "6"}})
    assert wait_idle(door)["Idle"]
    [[record]] = delivered(sqs, env["deliveries"])
    attributes = record["attributes"]
    assert list(attributes) == ["ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp"]
    assert record == {
        "messageId": sent["MessageId"], "receiptHandle": record["receiptHandle"], "body": body,
        "attributes": dict(attributes, ApproximateReceiveCount="1"),
        "messageAttributes": {
            "WeeksOn": {"stringValue": "6", "stringListValues": [], "binaryListValues": [], "dataType": "Number"},
            "Author": {"stringValue": "John Grisham", "stringListValues": [], "binaryListValues": [], "dataType": "String"},
            "Title": {"stringValue": "The Whistler", "stringListValues": [], "binaryListValues": [], "dataType": "String"}},
        "md5OfMessageAttributes": "d25a6aea97eb8f585bfa92d314504a92",  # AWS's digest of these three attributes
        "md5OfBody": sent["MD5OfMessageBody"], "eventSource": "aws:sqs", "eventSourceARN": env["arn"],
        "awsRegion": "us-east-1"}
    assert list(record) == ["messageId", "receiptHandle", "body", "attributes", "messageAttributes",
                            "md5OfMessageAttributes", "md5OfBody", "eventSource", "eventSourceARN", "awsRegion"]


def test_a_record_without_message_attributes_has_a_null_digest(door):
    """test_sqs_event_source_mapping_batch_size: "messageAttributes": {}, "md5OfMessageAttributes": null."""
    env = queue_with_reporter(door)
    env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")
    env["sqs"].send_message(QueueUrl=env["url"], MessageBody="0-0-message-0")
    assert wait_idle(door)["Idle"]
    [[record]] = delivered(env["sqs"], env["deliveries"])
    assert (record["messageAttributes"], record["md5OfMessageAttributes"]) == ({}, None)


#: the recorded test's function (its own words: lambda_sqs_batch_item_failure.py): a record fails while its
#: fail_attempts is at least its ApproximateReceiveCount; each event and answer is sent to DESTINATION_QUEUE_URL
BATCH_ITEM_FAILURE = '''
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    failed = [r["messageId"] for r in event["Records"]
              if json.loads(r["body"])["fail_attempts"] >= int(r["attributes"]["ApproximateReceiveCount"])]
    result = {"batchItemFailures": [{"itemIdentifier": i} for i in failed]}
    sqs.send_message(QueueUrl=os.environ["DESTINATION_QUEUE_URL"], MessageBody=json.dumps({"event": event, "result": result}))
    return result
'''


def test_partial_batch_failures_on_a_fifo_queue_and_its_dead_letter_queue(door):
    """test_report_batch_item_failures: four messages of one group; the first invocation has all four and fails 2, 3
    and 4, the second has those three (received twice) and fails 4, which the next receive moves to the FIFO
    dead-letter queue (maxReceiveCount 2): no third invocation."""
    lam, sqs = door.client("lambda"), door.client("sqs")
    destination, _ = queue(sqs, "destination")
    dlq, dlq_arn = queue(sqs, "event-dlq.fifo", FifoQueue="true")
    # (the recorded test's VisibilityTimeout was 8 s; 300 here, advanced past, so a busy machine cannot let it run out
    # between two steps: the emulator's clock follows the computer's)
    url, arn = queue(sqs, "source.fifo", FifoQueue="true", VisibilityTimeout="300",
                     RedrivePolicy=f'{{"deadLetterTargetArn": "{dlq_arn}", "maxReceiveCount": 2}}')
    create_zip_function(lam, "failing", "python", BATCH_ITEM_FAILURE, Timeout=6,
                        Environment={"Variables": {"DESTINATION_QUEUE_URL": destination}})
    sent = sqs.send_message_batch(QueueUrl=url, Entries=[
        {"Id": f"message-{i}", "MessageBody": f'{{"message": {i}, "fail_attempts": {attempts}}}', "MessageGroupId": "1",
         "MessageDeduplicationId": f"dedup-{i}"} for i, attempts in [(1, 0), (2, 1), (3, 1), (4, 2)]])["Successful"]
    ids = {entry["Id"]: entry["MessageId"] for entry in sent}
    created = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="failing", BatchSize=10,
                                              MaximumBatchingWindowInSeconds=0,
                                              FunctionResponseTypes=["ReportBatchItemFailures"])
    assert without_varying(created, arn, "failing") == dict(AWS_CREATED, FunctionResponseTypes=["ReportBatchItemFailures"])

    def invocations() -> list[tuple[list[tuple[int, str, str]], list[str]]]:
        """Each invocation's records (message, receive count, group) and the messageIds its answer failed."""
        return [([(json.loads(r["body"])["message"], r["attributes"]["ApproximateReceiveCount"],
                   r["attributes"]["MessageGroupId"]) for r in answer["event"]["Records"]],
                 [f["itemIdentifier"] for f in answer["result"]["batchItemFailures"]])
                for answer in delivered_answers(sqs, destination)]

    assert wait_idle(door)["Idle"]
    assert invocations() == [([(1, "1", "1"), (2, "1", "1"), (3, "1", "1"), (4, "1", "1")],
                              [ids["message-2"], ids["message-3"], ids["message-4"]])]
    assert sqs.receive_message(QueueUrl=dlq).get("Messages", []) == []
    door.advance(301)
    assert wait_idle(door)["Idle"]
    assert invocations() == [([(2, "2", "1"), (3, "2", "1"), (4, "2", "1")], [ids["message-4"]])]
    door.advance(301)
    assert wait_idle(door)["Idle"]
    assert invocations() == []
    [moved] = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10)["Messages"]
    assert (moved["MessageId"], moved["Body"]) == (ids["message-4"], '{"message": 4, "fail_attempts": 2}')


def delivered_answers(sqs, url: str) -> list[dict]:
    """The messages the function sent, oldest first, read and deleted."""
    answers = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in messages:
            answers.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return answers


def test_an_update_to_another_function_answers_updating_then_runs_it(door):
    """test_sqs_event_source_mapping_update: the update answers State Updating with the new FunctionArn (202), the
    mapping reads Enabled (200), and the next message goes to the new function only. (AWS's test moves the mapping
    between two published versions; Eddy's functions have $LATEST only, so here it moves between two functions.)"""
    env = queue_with_reporter(door)
    lam, sqs = env["lambda"], env["sqs"]
    second, _ = queue(sqs, "second-deliveries")
    create_zip_function(lam, "second", "python", REPORTER, Environment={"Variables": {"QUEUE_URL": second}})
    created = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter",
                                              MaximumBatchingWindowInSeconds=1)
    expected = dict(AWS_CREATED, MaximumBatchingWindowInSeconds=1)
    assert without_varying(created, env["arn"], "reporter") == expected
    sqs.send_message(QueueUrl=env["url"], MessageBody='{"foo": "bar"}')
    door.advance(2)
    assert wait_idle(door)["Idle"]
    assert [[r["body"] for r in records] for records in delivered(sqs, env["deliveries"])] == [['{"foo": "bar"}']]
    updated = lam.update_event_source_mapping(UUID=created["UUID"], FunctionName="second")
    assert without_varying(updated, env["arn"], "second") == dict(expected, State="Updating")
    got = lam.get_event_source_mapping(UUID=created["UUID"])
    assert without_varying(got, env["arn"], "second", 200) == dict(expected, State="Enabled")
    sqs.send_message(QueueUrl=env["url"], MessageBody='{"foo": "bar2"}')
    door.advance(2)
    assert wait_idle(door)["Idle"]
    assert delivered(sqs, env["deliveries"]) == []
    assert [[r["body"] for r in records] for records in delivered(sqs, second)] == [['{"foo": "bar2"}']]
    assert sqs.receive_message(QueueUrl=env["url"]).get("Messages", []) == []
