"""moto_seam/speedups/sqs.py pinned against moto's own SQS: DeleteMessage found by its receipt handle answers what
moto's walk of the queue answers (old handles, deleted handles, invalid ones), Queue.messages read lazily holds
what moto's list holds, and both are moto's own again once the emulator closes."""

from __future__ import annotations

import contextlib

import boto3
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.sqs.models import Message, Queue

from eddy import emulate
from eddy.emulator.moto_seam.speedups import sqs as sqs_speedups
from tests.conftest import QUIET

REGION = "us-east-1"


def _story(sqs) -> list:
    """Sends, receives and deletes of every kind: what each step answers."""
    url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "0"})["QueueUrl"]
    for n in range(6):
        sqs.send_message(QueueUrl=url, MessageBody=f"m{n}")
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=900)
    steps: list = []

    def step(call):
        try:
            steps.append(call())
        except ClientError as error:
            steps.append(error.response["Error"]["Code"])

    first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=3)["Messages"]
    again = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"]  # visible again at once: m0
    steps.append([m["Body"] for m in first + again])
    step(lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle=first[0]["ReceiptHandle"]) and "ok")  # an old handle
    step(lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle=again[0]["ReceiptHandle"]) and "ok")  # deleted: fine
    step(lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle="not-a-handle") and "ok")
    step(lambda: sqs.delete_message_batch(QueueUrl=url, Entries=[
        {"Id": "a", "ReceiptHandle": first[1]["ReceiptHandle"]}, {"Id": "b", "ReceiptHandle": "nope"}]))
    steps[-1] = (sorted(e["Id"] for e in steps[-1].get("Successful", [])),
                 sorted((e["Id"], e["Code"]) for e in steps[-1].get("Failed", [])))
    rest = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    steps.append([m["Body"] for m in rest])
    steps.append(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=[
        "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed"])["Attributes"])
    return steps


def test_delete_and_receive_answer_what_motos_own_answer():
    with mock_aws():
        plain = _story(boto3.client("sqs", region_name=REGION))
    with emulate(**QUIET):
        assert Queue.delete_message is sqs_speedups._delete_message
        ours = _story(boto3.client("sqs", region_name=REGION))
    assert ours == plain
    assert ours[0] == ["m0", "m1", "m2", "m0"] and ours[3] == "ReceiptHandleIsInvalid"
    assert Queue.delete_message is sqs_speedups.original_delete_message  # moto's own again
    assert Queue.__dict__["messages"] is sqs_speedups.original_messages
    assert Queue.__dict__["pending_message_groups"] is sqs_speedups.original_pending_message_groups
    assert Message.mark_received is sqs_speedups.original_mark_received


def test_the_lazy_view_holds_motos_list():
    with emulate(**QUIET) as emu:
        sqs = boto3.client("sqs", region_name=REGION)
        url = sqs.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
        for n in range(8):
            sqs.send_message(QueueUrl=url, MessageBody=f"m{n}", **({"DelaySeconds": 60} if n % 3 == 0 else {}))
        sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)
        from moto.sqs.models import sqs_backends

        queue = sqs_backends["123456789012"][REGION].queues["q"]
        for _ in range(3):
            view, moto_list = queue.messages, sqs_speedups.original_messages.fget(queue)
            assert list(view) == moto_list and len(view) == len(moto_list) and bool(view) == bool(moto_list)
            emu.clock.advance(31)
        with contextlib.suppress(StopIteration):
            assert next(iter(queue.messages)) is moto_list[0]


def test_a_delete_does_not_walk_the_queue(monkeypatch):
    looked_at = []
    had = Message.had_receipt_handle
    monkeypatch.setattr(Message, "had_receipt_handle", lambda self, handle: looked_at.append(self) or had(self, handle))
    with emulate(**QUIET):
        sqs = boto3.client("sqs", region_name=REGION)
        url = sqs.create_queue(QueueName="deep")["QueueUrl"]
        for start in range(0, 500, 10):
            sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(n), "MessageBody": str(start + n)} for n in range(10)])
        received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
        sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                                                        for n, m in enumerate(received)])
        assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])[
            "Attributes"]["ApproximateNumberOfMessages"] == "490"
    assert looked_at == []  # moto's delete asks each of the 500 messages, twice, per delete
