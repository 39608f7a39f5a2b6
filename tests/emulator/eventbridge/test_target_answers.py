"""PutTargets, ListTargetsByRule and RemoveTargets answered as EventBridge was recorded answering, in both doors.

Source: LocalStack's AWS-validated tests/aws/services/events/test_events.py and test_events.snapshot.json,
TestEventTarget: test_put_list_remove_target[default|custom] (recorded 08-01-2025: the answers whole),
test_add_exceed_fife_targets_per_rule (12-03-2025: a sixth target is LimitExceededException),
test_put_target_id_validation and test_put_multiple_targets_with_same_id_single_rule (08-01-2025). AWS answers a
FailedEntries entry (ErrorCode, ErrorMessage) only for a target whose change collided with another request
(ConcurrentModificationException) or failed inside EventBridge (InternalException): the API reference's PutTargets
and RemoveTargets; no recording of either was found, and Eddy's one lock never collides, so its entries are empty.
"""

from __future__ import annotations

import json
import sys
import threading
import time

import boto3
import pytest
from botocore.exceptions import ClientError

from eddy import emulate
from eddy.emulator.service_journal import ServiceJournal
from tests.conftest import QUIET, InProcessDoor

NO_FAILURES = {"FailedEntries": [], "FailedEntryCount": 0}


def queue_arn(door) -> str:
    sqs = door.client("sqs")
    url = sqs.create_queue(QueueName="targets")["QueueUrl"]
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def answer(response: dict) -> dict:
    response.pop("ResponseMetadata")
    return response


@pytest.mark.parametrize("bus", ["default", "custom"])
def test_put_list_and_remove_a_target(door, bus):
    events = door.client("events")
    on_bus = {}
    if bus == "custom":
        events.create_event_bus(Name="orders-bus")
        on_bus = {"EventBusName": "orders-bus"}
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}), **on_bus)
    arn = queue_arn(door)
    assert answer(events.put_targets(Rule="orders", Targets=[{"Id": "to-queue", "Arn": arn}], **on_bus)) == NO_FAILURES
    assert answer(events.list_targets_by_rule(Rule="orders", **on_bus)) == {
        "Targets": [{"Arn": arn, "Id": "to-queue"}]}
    assert answer(events.remove_targets(Rule="orders", Ids=["to-queue"], **on_bus)) == NO_FAILURES
    assert answer(events.list_targets_by_rule(Rule="orders", **on_bus)) == {"Targets": []}


def test_a_rule_takes_five_targets_and_refuses_a_sixth_changing_nothing(door):
    events = door.client("events")
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
    arn = queue_arn(door)
    with pytest.raises(ClientError) as refused:
        events.put_targets(Rule="orders", Targets=[{"Id": f"test-target-{i}", "Arn": arn} for i in range(7)])
    assert (refused.value.response["Error"], refused.value.response["ResponseMetadata"]["HTTPStatusCode"]) == (
        {"Code": "LimitExceededException", "Message": "The requested resource exceeds the maximum number allowed."},
        400)
    assert events.list_targets_by_rule(Rule="orders")["Targets"] == []
    five = [{"Id": f"test-target-{i}", "Arn": arn} for i in range(5)]
    assert answer(events.put_targets(Rule="orders", Targets=five)) == NO_FAILURES
    assert answer(events.put_targets(Rule="orders", Targets=five[:1])) == NO_FAILURES  # the same id: replaced
    with pytest.raises(ClientError) as refused:
        events.put_targets(Rule="orders", Targets=[{"Id": "one-more", "Arn": arn}])
    assert refused.value.response["Error"]["Code"] == "LimitExceededException"
    assert [target["Id"] for target in events.list_targets_by_rule(Rule="orders")["Targets"]] == [
        f"test-target-{i}" for i in range(5)]


def test_target_ids_are_checked_and_a_repeated_id_replaces_the_target(door):
    events = door.client("events")
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}), State="ENABLED")
    arn = queue_arn(door)
    refusals = []
    for target_id in ("!@#$@!#$", "x" * 65):
        with pytest.raises(ClientError) as refused:
            events.put_targets(Rule="orders", Targets=[{"Id": target_id, "Arn": arn, "InputPath": "$.detail"}])
        refusals.append(refused.value.response["Error"])
    assert refusals == [
        {"Code": "ValidationException",
         "Message": "1 validation error detected: Value '!@#$@!#$' at 'targets.1.member.id' failed to satisfy "
                    "constraint: Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+"},
        {"Code": "ValidationException",
         "Message": f"1 validation error detected: Value '{'x' * 65}' at 'targets.1.member.id' failed to satisfy "
                    "constraint: Member must have length less than or equal to 64"}]
    target_id = "test-With_valid.Characters-1"
    events.put_targets(Rule="orders", Targets=[{"Id": target_id, "Arn": arn, "InputPath": "$.detail"}])
    events.put_targets(Rule="orders", Targets=[{"Id": target_id, "Arn": arn, "InputPath": "$.notexisting"}])
    assert answer(events.list_targets_by_rule(Rule="orders")) == {
        "Targets": [{"Arn": arn, "Id": target_id, "InputPath": "$.notexisting"}]}


def test_the_five_targets_are_counted_in_the_callers_own_account(door):
    # A rule's targets are its account's: another account's rule of the same name is another rule (the limit was
    # counted against the default account's rule, whoever called)
    events = door.client("events")
    credentials = door.client("sts").assume_role(
        RoleArn="arn:aws:iam::111111111111:role/deployer", RoleSessionName="deployer")["Credentials"]
    other = boto3.client("events", region_name="us-east-1", endpoint_url=events.meta.endpoint_url,
                         aws_access_key_id=credentials["AccessKeyId"],
                         aws_secret_access_key=credentials["SecretAccessKey"],
                         aws_session_token=credentials["SessionToken"])
    arn = queue_arn(door)
    for client in (events, other):
        client.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
    assert answer(events.put_targets(Rule="orders", Targets=[{"Id": f"mine-{i}", "Arn": arn} for i in range(4)])) \
        == NO_FAILURES
    assert answer(other.put_targets(Rule="orders", Targets=[{"Id": f"theirs-{i}", "Arn": arn} for i in range(2)])) \
        == NO_FAILURES
    with pytest.raises(ClientError) as refused:
        other.put_targets(Rule="orders", Targets=[{"Id": f"more-{i}", "Arn": arn} for i in range(4)])
    assert refused.value.response["Error"] == {
        "Code": "LimitExceededException", "Message": "The requested resource exceeds the maximum number allowed."}
    assert [[target["Id"] for target in client.list_targets_by_rule(Rule="orders")["Targets"]]
            for client in (events, other)] == [[f"mine-{i}" for i in range(4)], ["theirs-0", "theirs-1"]]


def _waiting_in_the_services_journal(thread: threading.Thread) -> bool:
    """Whether `thread` is inside ServiceJournal.run (a PutTargets on its way to moto: it waits there for the lock)."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code is ServiceJournal.run.__code__:
            return True
        frame = frame.f_back
    return False


def test_two_put_targets_at_once_cannot_both_pass_the_count():
    # The count and the write are one step under the emulator's lock: a PutTargets that reached the services'
    # journal while another held the lock is counted after that one's targets are stored (the count ran before the
    # lock, so both passed on the same count and the rule ended with 6). In-process only: the test holds the lock.
    with emulate(**QUIET) as emu:
        events = boto3.client("events", region_name="us-east-1")
        events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
        arn = queue_arn(InProcessDoor(emu))
        answers: list = []

        def put_three_of_theirs() -> None:
            try:
                answers.append(events.put_targets(Rule="orders", Targets=[
                    {"Id": f"theirs-{i}", "Arn": arn} for i in range(3)]))
            except ClientError as refused:
                answers.append(refused.response["Error"])

        theirs = threading.Thread(target=put_three_of_theirs)
        with emu.lock:
            theirs.start()
            deadline = time.monotonic() + 60
            while not _waiting_in_the_services_journal(theirs):  # a condition only the thread's stack shows
                assert time.monotonic() < deadline and theirs.is_alive()
                threading.Event().wait(0.005)
            mine = [{"Id": f"mine-{i}", "Arn": arn} for i in range(3)]
            assert answer(events.put_targets(Rule="orders", Targets=mine)) == NO_FAILURES  # the lock is this thread's
        theirs.join(timeout=60)
        assert answers == [{"Code": "LimitExceededException",
                            "Message": "The requested resource exceeds the maximum number allowed."}]
        assert [target["Id"] for target in events.list_targets_by_rule(Rule="orders")["Targets"]] == [
            "mine-0", "mine-1", "mine-2"]
