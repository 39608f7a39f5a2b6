"""SQS's batch answers: no Failed when nothing failed, as AWS answers (moto answered "Failed": []).

AWS's recorded answers: LocalStack's AWS-validated snapshots (localstack/localstack at 8b9a79f05846): tests/aws/services/
lambda_/event_source_mapping/test_lambda_integration_sqs.snapshot.json, test_sqs_event_source_mapping_batch_size,
"send-message-batch-result-10": {"Successful": [{"Id", "MD5OfMessageBody", "MessageId"}, ...]} and nothing else;
tests/aws/services/sqs/test_sqs.snapshot.json, test_send_batch_message_size: a failed entry in "Failed" beside
"Successful" (moto refuses that batch whole: it is not the case tested here).
"""

from __future__ import annotations

import hashlib


def _answer(response: dict) -> dict:
    return {key: value for key, value in response.items() if key != "ResponseMetadata"}


def test_batches_that_all_succeed_answer_no_failed(door):
    sqs = door.client("sqs")
    queue = sqs.create_queue(QueueName="batches")["QueueUrl"]
    sent = sqs.send_message_batch(QueueUrl=queue, Entries=[{"Id": str(n), "MessageBody": f"m{n}"} for n in range(3)])
    assert _answer(sent) == {"Successful": [
        {"Id": str(n), "MessageId": entry["MessageId"], "MD5OfMessageBody": hashlib.md5(f"m{n}".encode()).hexdigest()}
        for n, entry in enumerate(sent["Successful"])]}
    received = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    handles = [{"Id": str(n), "ReceiptHandle": message["ReceiptHandle"]} for n, message in enumerate(received)]
    changed = sqs.change_message_visibility_batch(
        QueueUrl=queue, Entries=[{**handle, "VisibilityTimeout": 60} for handle in handles])
    assert _answer(changed) == {"Successful": [{"Id": handle["Id"]} for handle in handles]}
    assert _answer(sqs.delete_message_batch(QueueUrl=queue, Entries=handles)) == {
        "Successful": [{"Id": handle["Id"]} for handle in handles]}


def test_a_batch_with_a_failed_entry_answers_it_in_failed(door):
    """A receipt handle no message has: that entry in Failed, the others in Successful (Failed kept when not empty)."""
    sqs = door.client("sqs")
    queue = sqs.create_queue(QueueName="partly")["QueueUrl"]
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    handle = sqs.receive_message(QueueUrl=queue)["Messages"][0]["ReceiptHandle"]
    answer = sqs.change_message_visibility_batch(QueueUrl=queue, Entries=[
        {"Id": "known", "ReceiptHandle": handle, "VisibilityTimeout": 60},
        {"Id": "unknown", "ReceiptHandle": "not-a-handle", "VisibilityTimeout": 60}])
    assert answer["Successful"] == [{"Id": "known"}]
    assert [(entry["Id"], entry["SenderFault"]) for entry in answer["Failed"]] == [("unknown", True)]
