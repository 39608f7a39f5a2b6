"""A queue mapping's failures compared with AWS's recorded runs: LocalStack's AWS-validated test_lambda_integration_sqs.py
(test_failing_lambda_retries_after_visibility_timeout, test_redrive_policy_with_failing_lambda,
test_report_batch_item_failures_on_lambda_error, test_report_batch_item_failures_invalid_result_json_batch_fails,
test_report_batch_item_failures_empty_json_batch_succeeds; validated 2025-11-25) and its .snapshot.json: which
invocations happen, with which receive counts, and what the RedrivePolicy's dead-letter queue gets. The visibility
timeout runs on the emulator's clock. Both doors, zip functions."""

from __future__ import annotations

import json

from tests.emulator.trigger_helpers import create_zip_function, wait_idle
from tests.emulator.triggers.sqs_helpers import queue
from tests.emulator.triggers.test_sqs_recorded_answers import AWS_CREATED, delivered_answers, without_varying

#: the recorded tests' first function (its own words: lambda_sqs_integration.py): exactly one record; it fails while
#: the body's fail_attempts is at least the ApproximateReceiveCount, and sends {"error", "event"} to the body's
#: "destination" either way
ONE_RECORD = '''
import json, boto3
def handler(event, context):
    if len(event.get("Records", [])) != 1:
        raise ValueError("the payload must consist of exactly one record")
    record = event["Records"][0]
    message = json.loads(record["body"])
    error = None
    try:
        if message["fail_attempts"] >= int(record["attributes"]["ApproximateReceiveCount"]):
            raise ValueError("failed attempt")
    except Exception as e:
        error = e
        raise
    finally:
        boto3.client("sqs").send_message(QueueUrl=message["destination"],
                                         MessageBody=json.dumps({"error": None if not error else str(error), "event": event}))
'''
#: the second (lambda_sqs_batch_item_failure.py): answers OVERWRITE_RESULT when set
ANSWERING = '''
import json, os, boto3
def handler(event, context):
    result = json.loads(os.environ["OVERWRITE_RESULT"])
    boto3.client("sqs").send_message(QueueUrl=os.environ["DESTINATION_QUEUE_URL"],
                                     MessageBody=json.dumps({"event": event, "result": result}))
    return result
'''

#: the recorded tests' visibility timeouts were 2 to 5 seconds of AWS's time; the emulator's clock follows the
#: computer's, so a busy machine could let so short a timeout run out between two steps here: 300 s, advanced past
VISIBILITY = 300


def source_queue(sqs, retries: int | None, visibility: int) -> tuple[str, str, str | None]:
    """(url, arn, dead-letter queue url) of a source queue, with a RedrivePolicy when `retries` is given."""
    attributes = {"VisibilityTimeout": str(visibility)}
    dlq = None
    if retries is not None:
        dlq, dlq_arn = queue(sqs, "event-dlq")
        attributes["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": retries})
    url, arn = queue(sqs, "source-queue", **attributes)
    return url, arn, dlq


def attempts(sqs, destination: str) -> list[tuple]:
    """Each invocation the function reported: (its error or answer, [(body, ApproximateReceiveCount)])."""
    return [(answer.get("result", answer.get("error")),
             [(r["body"], r["attributes"]["ApproximateReceiveCount"]) for r in answer["event"]["Records"]])
            for answer in delivered_answers(sqs, destination)]


def dead_letters(sqs, dlq: str) -> list[tuple[str, str]]:
    return sorted((m["MessageId"], m["Body"]) for m in sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10)
                  .get("Messages", []))


def test_a_failing_function_is_retried_after_the_visibility_timeout(door):
    lam, sqs = door.client("lambda"), door.client("sqs")
    destination, _ = queue(sqs, "destination-queue")
    url, arn, _ = source_queue(sqs, None, VISIBILITY)
    create_zip_function(lam, "failing", "python", ONE_RECORD, Timeout=5)
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="failing", BatchSize=1)["UUID"]
    got = lam.get_event_source_mapping(UUID=uuid)
    assert without_varying(got, arn, "failing", 200) == dict(AWS_CREATED, BatchSize=1, State="Enabled")
    body = json.dumps({"destination": destination, "fail_attempts": 1})
    sqs.send_message(QueueUrl=url, MessageBody=body)
    assert wait_idle(door)["Idle"]
    assert attempts(sqs, destination) == [("failed attempt", [(body, "1")])]
    door.advance(VISIBILITY + 1)
    assert wait_idle(door)["Idle"]
    assert attempts(sqs, destination) == [(None, [(body, "2")])]
    assert sqs.receive_message(QueueUrl=url).get("Messages", []) == []  # deleted after the success


def test_the_queue_moves_a_message_to_its_dead_letter_queue_after_max_receive_count(door):
    lam, sqs = door.client("lambda"), door.client("sqs")
    destination, _ = queue(sqs, "destination-queue")
    url, arn, dlq = source_queue(sqs, 2, VISIBILITY)
    create_zip_function(lam, "failing", "python", ONE_RECORD, Timeout=5)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="failing", BatchSize=1)
    body = json.dumps({"destination": destination, "fail_attempts": 2})
    message_id = sqs.send_message(QueueUrl=url, MessageBody=body)["MessageId"]
    assert wait_idle(door)["Idle"]
    assert attempts(sqs, destination) == [("failed attempt", [(body, "1")])]
    assert dead_letters(sqs, dlq) == []  # not earlier
    door.advance(VISIBILITY + 1)
    assert wait_idle(door)["Idle"]
    assert attempts(sqs, destination) == [("failed attempt", [(body, "2")])]
    door.advance(VISIBILITY + 1)
    assert wait_idle(door)["Idle"]
    assert attempts(sqs, destination) == []  # the third receive moves it instead of invoking
    assert dead_letters(sqs, dlq) == [(message_id, body)]


def test_a_function_error_fails_the_whole_batch_even_with_batch_item_failures(door):
    """test_report_batch_item_failures_on_lambda_error: a batch of two (one body not JSON) fails whole; both reach
    the dead-letter queue after two receives."""
    lam, sqs = door.client("lambda"), door.client("sqs")
    url, arn, dlq = source_queue(sqs, 2, VISIBILITY)
    create_zip_function(lam, "failing", "python", ONE_RECORD, Timeout=2)
    sent = sqs.send_message_batch(QueueUrl=url, Entries=[
        {"Id": "message-1", "MessageBody": "{not a json body"},
        {"Id": "message-2", "MessageBody": json.dumps({"message": 2, "fail_attempts": 0})}])["Successful"]
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="failing",
                                    FunctionResponseTypes=["ReportBatchItemFailures"])
    for _ in range(2):
        assert wait_idle(door)["Idle"]
        assert dead_letters(sqs, dlq) == []
        door.advance(VISIBILITY + 1)
    assert wait_idle(door)["Idle"]
    ids = {entry["Id"]: entry["MessageId"] for entry in sent}
    assert dead_letters(sqs, dlq) == sorted([(ids["message-1"], "{not a json body"),
                                             (ids["message-2"], '{"message": 2, "fail_attempts": 0}')])


def test_an_answer_naming_no_item_fails_the_batch_and_an_empty_one_succeeds(door):
    lam, sqs = door.client("lambda"), door.client("sqs")
    destination, _ = queue(sqs, "destination-queue")
    url, arn, dlq = source_queue(sqs, 2, VISIBILITY)
    invalid = '{"batchItemFailures": [{"foo":"notvalid"}]}'
    create_zip_function(lam, "invalid", "python", ANSWERING, Timeout=4,
                        Environment={"Variables": {"DESTINATION_QUEUE_URL": destination, "OVERWRITE_RESULT": invalid}})
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="invalid", BatchSize=10,
                                    MaximumBatchingWindowInSeconds=0, FunctionResponseTypes=["ReportBatchItemFailures"])
    body = json.dumps({"message": 1, "fail_attempts": 0})
    message_id = sqs.send_message(QueueUrl=url, MessageBody=body)["MessageId"]
    for count in ("1", "2"):  # test_report_batch_item_failures_invalid_result_json_batch_fails
        assert wait_idle(door)["Idle"]
        assert attempts(sqs, destination) == [(json.loads(invalid), [(body, count)])]
        door.advance(VISIBILITY + 1)
    assert wait_idle(door)["Idle"]
    assert attempts(sqs, destination) == [] and dead_letters(sqs, dlq) == [(message_id, body)]

    other_url, other_arn = queue(sqs, "empty-answers", VisibilityTimeout=str(VISIBILITY), RedrivePolicy=json.dumps(
        {"deadLetterTargetArn": sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"], "maxReceiveCount": 1}))
    create_zip_function(lam, "empty", "python", ANSWERING, Timeout=4,
                        Environment={"Variables": {"DESTINATION_QUEUE_URL": destination, "OVERWRITE_RESULT": "{}"}})
    lam.create_event_source_mapping(EventSourceArn=other_arn, FunctionName="empty", BatchSize=10,
                                    MaximumBatchingWindowInSeconds=0, FunctionResponseTypes=["ReportBatchItemFailures"])
    sqs.send_message(QueueUrl=other_url, MessageBody=body)
    assert wait_idle(door)["Idle"]  # test_report_batch_item_failures_empty_json_batch_succeeds
    assert attempts(sqs, destination) == [({}, [(body, "1")])]
    door.advance(VISIBILITY + 1)
    assert wait_idle(door)["Idle"]
    assert dead_letters(sqs, dlq) == [(message_id, body)]  # nothing more: the empty answer deleted its message
