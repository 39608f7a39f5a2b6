"""moto_seam/sqs.py pinned against moto's own SQS: its receive answers what moto's ReceiveMessage answers (order,
receive counts, the dead-letter queue after maxReceiveCount; a FIFO queue's groups as SQS hands them, taken together,
where moto interleaves them), its delete is DeleteMessage's, and
moto's SQS runs on the emulator's clock while an emulator is open (and on the computer's again after)."""

from __future__ import annotations

import json

import boto3
from moto import mock_aws
from moto.sqs import models as sqs_models

from eddy import emulate
from eddy.emulator.moto_seam import sqs as sqs_seam
from eddy.emulator.moto_seam import sqs_polling
from tests.conftest import QUIET

REGION = "us-east-1"


def _queues(sqs, fifo: bool) -> tuple[str, str, str]:
    """A queue with a dead-letter queue (maxReceiveCount 2, VisibilityTimeout 100); (url, arn, dlq url)."""
    suffix = ".fifo" if fifo else ""
    extra = {"FifoQueue": "true"} if fifo else {}
    dlq = sqs.create_queue(QueueName=f"dlq{suffix}", Attributes=extra)["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(QueueName=f"q{suffix}", Attributes={
        **extra, "VisibilityTimeout": "100",
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"})})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url, arn, dlq


def _fill(sqs, url: str, fifo: bool) -> None:
    for group, body in [("A", "a1"), ("B", "b1"), ("A", "a2"), ("C", "c1")]:
        extra = {"MessageGroupId": group, "MessageDeduplicationId": body} if fifo else {}
        sqs.send_message(QueueUrl=url, MessageBody=body, **extra)


def _story(receive, advance, dead_letters) -> list:
    """Receive two, then all, let the visibility timeout pass twice: what each step answers."""
    steps = [receive(2), receive(10)]
    advance(101)
    steps.append(receive(10))
    advance(101)
    steps.append(receive(10))  # everything was received twice: to the dead-letter queue
    steps.append(dead_letters())
    return steps


def _run(fifo: bool, seam: bool) -> list:
    with emulate(**QUIET) as emu:
        sqs = boto3.client("sqs", region_name=REGION)
        url, arn, dlq = _queues(sqs, fifo)
        _fill(sqs, url, fifo)
        queue = sqs_seam.find_queue(arn)

        def by_seam(limit):
            return [(m.body, m.attributes["ApproximateReceiveCount"]) for m in
                    sqs_polling.receive(queue, limit, emu.clock.now(), 6 * 1024 * 1024)[0]]

        def by_moto(limit):
            answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=limit, AttributeNames=["All"])
            return [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in answer.get("Messages", [])]

        def dead_letters():
            return sorted(m["Body"] for m in sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10).get("Messages", []))

        return _story(by_seam if seam else by_moto, emu.clock.advance, dead_letters)


def test_receive_answers_what_motos_receive_message_answers():
    assert _run(False, seam=True) == _run(False, seam=False)


def test_a_fifo_receive_takes_a_groups_messages_together_as_sqs_does():
    """SQS "returns as many messages with the same message group ID as possible" and "can also return messages from
    other available message groups" (re:Post knowledge center, sqs-fifo-messages-not-returned); moto's ReceiveMessage
    walked the queue in order (a1, b1 for two): a user's ReceiveMessage now answers the same as the pollers' receive
    (moto's, on Queue.messages in SQS's order: speedups/sqs.py). The receive counts and the dead-letter moves after
    maxReceiveCount are moto's."""
    assert _run(True, seam=True) == [
        [("a1", "1"), ("a2", "1")],  # group A whole first
        [("b1", "1"), ("c1", "1")],  # A in flight: the other groups
        [("a1", "2"), ("a2", "2"), ("b1", "2"), ("c1", "2")],  # visible again: the groups by their oldest message
        [],  # each received twice: to the dead-letter queue
        ["a1", "a2", "b1", "c1"]]
    assert _run(True, seam=False) == _run(True, seam=True)


def test_delete_is_delete_message_and_counts_follow_the_clock():
    with emulate(**QUIET) as emu:
        sqs = boto3.client("sqs", region_name=REGION)
        url, arn, _ = _queues(sqs, fifo=False)
        _fill(sqs, url, fifo=False)
        queue = sqs_seam.find_queue(arn)
        now = emu.clock.now()
        received, _ = sqs_polling.receive(queue, 3, now, 6 * 1024 * 1024)
        assert sqs_seam.queue_figures(queue, now) == {"ApproximateNumberOfMessages": 1,
                                                      "ApproximateNumberOfMessagesNotVisible": 3,
                                                      "ApproximateNumberOfMessagesDelayed": 0}
        sqs_polling.delete(queue, received[:2])
        # DeleteMessage with an old receipt handle of a deleted message is accepted, as moto (and SQS) do
        sqs.delete_message(QueueUrl=url, ReceiptHandle=received[0].receipt_handle)
        sqs.delete_message(QueueUrl=url, ReceiptHandle=received[2].receipt_handle)
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]] == ["c1"]
        assert sqs_polling.next_change(queue, emu.clock.now()) is not None
        emu.clock.advance(101)
        assert sqs_polling.deliverable(queue, emu.clock.now(), 10) == 1


def test_moto_runs_on_the_emulators_clock_only_while_an_emulator_is_open():
    with emulate(**QUIET) as emu:
        emu.clock.advance(10_000)
        sqs = boto3.client("sqs", region_name=REGION)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="x")
        [message] = sqs.receive_message(QueueUrl=url, AttributeNames=["SentTimestamp"])["Messages"]
        assert abs(int(message["Attributes"]["SentTimestamp"]) - emu.clock.now() * 1000) < 60_000
    assert sqs_models.unix_time() < emu.clock.now() - 9_000
    with mock_aws():
        sqs = boto3.client("sqs", region_name=REGION)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="x")
        assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "x"


def test_queue_attributes_are_motos_read_lazily():
    with emulate(**QUIET):
        sqs = boto3.client("sqs", region_name=REGION)
        _queues(sqs, fifo=True)
        url, arn, _ = _queues(sqs, fifo=False)
        _fill(sqs, url, fifo=False)
        sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)
        sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=60)
        sqs.create_queue(QueueName="secured", Attributes={"KmsMasterKeyId": "alias/key", "Policy": json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "sqs:*"}]})})
        queues = [q for backend in sqs_models.sqs_backends["123456789012"].values() for q in backend.queues.values()]
        assert len(queues) == 5
        for queue in queues:
            lazy = queue.attributes
            assert isinstance(lazy, sqs_seam.QueueAttributes)
            assert list(lazy.items()) == list(sqs_seam.MOTO_ATTRIBUTES.fget(queue).items())
        assert sqs_seam.find_queue(arn).attributes["ApproximateNumberOfMessagesDelayed"] == 1
