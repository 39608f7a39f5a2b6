"""The Lambda API for SQS event source mappings: the configuration AWS answers, Lambda's validation, update, disable,
delete, ScalingConfig.MaximumConcurrency, and a mapping that survives a restart."""

from __future__ import annotations

import json
import threading

import boto3
import pytest
from botocore.exceptions import ClientError

from eddy import emulate
from tests.conftest import QUIET
from tests.emulator.functions.test_functions import create_function
from tests.emulator.trigger_helpers import wait_idle
from tests.emulator.triggers.sqs_helpers import bodies, delivered, queue, queue_with_reporter

REGION = "us-east-1"


def error_of(call, **params) -> tuple[str, str]:
    with pytest.raises(ClientError) as caught:
        call(**params)
    return caught.value.response["Error"]["Code"], caught.value.response["Error"]["Message"]


def test_the_configuration_has_a_queue_mappings_fields_only(door):
    env = queue_with_reporter(door)
    lam = env["lambda"]
    created = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 202
    fields = {"UUID", "BatchSize", "MaximumBatchingWindowInSeconds", "EventSourceArn", "FunctionArn", "LastModified",
              "State", "StateTransitionReason", "FunctionResponseTypes", "EventSourceMappingArn", "ResponseMetadata"}
    assert set(created) == fields
    assert (created["State"], created["BatchSize"], created["MaximumBatchingWindowInSeconds"],
            created["StateTransitionReason"], created["FunctionResponseTypes"]) == ("Creating", 10, 0, "USER_INITIATED", [])
    got = lam.get_event_source_mapping(UUID=created["UUID"])
    assert set(got) == fields and got["State"] == "Enabled"
    assert got["FunctionArn"] == "arn:aws:lambda:us-east-1:123456789012:function:reporter"
    listed = lam.list_event_source_mappings(EventSourceArn=env["arn"])["EventSourceMappings"]
    assert [m["UUID"] for m in listed] == [created["UUID"]]


def test_lambdas_validation_of_queue_mappings(door):
    env = queue_with_reporter(door)
    lam, sqs = env["lambda"], env["sqs"]
    create = lam.create_event_source_mapping
    base = {"EventSourceArn": env["arn"], "FunctionName": "reporter"}
    assert error_of(create, **base, StartingPosition="LATEST") == (
        "InvalidParameterValueException", "StartingPosition is not valid for SQS event sources.")
    assert error_of(create, **base, BatchSize=11) == (
        "InvalidParameterValueException",
        "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10")
    assert error_of(create, **base, MaximumRetryAttempts=2) == (
        "InvalidParameterValueException", "Unsupported MaximumRetryAttempts parameter for given event source mapping type.")
    missing = env["arn"].replace(":work", ":missing")
    assert error_of(create, EventSourceArn=missing, FunctionName="reporter") == (
        "InvalidParameterValueException",
        "Error occurred while ReceiveMessage. SQS Error Code: AWS.SimpleQueueService.NonExistentQueue. "
        "SQS Error Message: The specified queue does not exist.")
    unchecked = door.client("lambda", validate=False).create_event_source_mapping
    assert error_of(unchecked, **base, ScalingConfig={"MaximumConcurrency": 1}) == (
        "ValidationException", "1 validation error detected: Value '1' at 'scalingConfig.maximumConcurrency' failed to "
        "satisfy constraint: Member must have value greater than or equal to 2")
    assert error_of(unchecked, **base, ScalingConfig={"MaximumConcurrency": 1001}) == (
        "ValidationException", "1 validation error detected: Value '1001' at 'scalingConfig.maximumConcurrency' failed "
        "to satisfy constraint: Member must have value less than or equal to 1000")
    _, fifo_arn = queue(sqs, "work.fifo", FifoQueue="true")
    fifo = {"EventSourceArn": fifo_arn, "FunctionName": "reporter"}
    # AWS's words (CloudFormation quoting Lambda, aws/aws-lambda-dotnet#1758): the window is for standard queues only
    assert error_of(create, **fifo, BatchSize=100, MaximumBatchingWindowInSeconds=5) == (
        "InvalidParameterValueException", "Batching window is not supported for FIFO queues")
    assert error_of(create, **fifo, MaximumBatchingWindowInSeconds=1) == (
        "InvalidParameterValueException", "Batching window is not supported for FIFO queues")
    # a FIFO batch over 10 needs a window, which a FIFO queue may not have: one of AWS's two recorded refusals
    assert error_of(create, **fifo, BatchSize=11) == (
        "InvalidParameterValueException",
        "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10")
    fifo_uuid = create(**fifo, BatchSize=10, MaximumBatchingWindowInSeconds=0)["UUID"]  # a window of 0 is no window
    assert error_of(lam.update_event_source_mapping, UUID=fifo_uuid, MaximumBatchingWindowInSeconds=2) == (
        "InvalidParameterValueException", "Batching window is not supported for FIFO queues")
    assert lam.get_event_source_mapping(UUID=fifo_uuid)["MaximumBatchingWindowInSeconds"] == 0
    uuid = create(**base, BatchSize=100, MaximumBatchingWindowInSeconds=1)["UUID"]
    assert error_of(create, **base) == (
        "ResourceConflictException",
        f'An event source mapping with SQS arn (" {env["arn"]} ") and function (" reporter ") already exists. '
        f"Please update or delete the existing mapping with UUID {uuid}")
    assert lam.list_event_source_mappings(EventSourceArn=env["arn"])["EventSourceMappings"][0]["BatchSize"] == 100


def test_a_function_may_not_run_longer_than_the_queue_hides_a_message(door):
    env = queue_with_reporter(door)  # "reporter" has a Timeout of 10 s, "work" the default VisibilityTimeout of 30 s
    lam, sqs = env["lambda"], env["sqs"]
    create_function(lam, "slow", "def handler(event, context):\n    return None\n", Timeout=60)
    refused = ("InvalidParameterValueException", "Queue visibility timeout: 30 seconds is less than Function timeout: 60 seconds")
    assert error_of(lam.create_event_source_mapping, EventSourceArn=env["arn"], FunctionName="slow") == refused
    _, long_arn = queue(sqs, "long", VisibilityTimeout="60")
    lam.create_event_source_mapping(EventSourceArn=long_arn, FunctionName="slow")  # equal timeouts are fine
    uuid = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")["UUID"]
    assert error_of(lam.update_event_source_mapping, UUID=uuid, FunctionName="slow") == refused
    assert lam.get_event_source_mapping(UUID=uuid)["FunctionArn"].endswith(":function:reporter")
    # the function's own update is not checked against its mappings' queues (as on AWS)
    assert lam.update_function_configuration(FunctionName="reporter", Timeout=45)["Timeout"] == 45


def test_update_disable_enable_and_delete(door):
    env = queue_with_reporter(door)
    lam, sqs = env["lambda"], env["sqs"]
    uuid = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")["UUID"]
    assert error_of(lam.update_event_source_mapping, UUID=uuid, BatchSize=50) == (
        "InvalidParameterValueException",
        "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10")
    assert lam.get_event_source_mapping(UUID=uuid)["BatchSize"] == 10  # unchanged by the refused update
    updated = lam.update_event_source_mapping(UUID=uuid, BatchSize=50, MaximumBatchingWindowInSeconds=2,
                                              ScalingConfig={"MaximumConcurrency": 3}, Enabled=False)
    assert (updated["BatchSize"], updated["MaximumBatchingWindowInSeconds"], updated["ScalingConfig"]) == (
        50, 2, {"MaximumConcurrency": 3})
    assert lam.get_event_source_mapping(UUID=uuid)["State"] == "Disabled"
    sqs.send_message(QueueUrl=env["url"], MessageBody="while disabled")
    assert wait_idle(door)["Idle"] and delivered(sqs, env["deliveries"]) == []
    lam.update_event_source_mapping(UUID=uuid, Enabled=True, BatchSize=10, MaximumBatchingWindowInSeconds=0)
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [["while disabled"]]
    assert lam.delete_event_source_mapping(UUID=uuid)["State"] == "Deleting"
    assert error_of(lam.get_event_source_mapping, UUID=uuid)[0] == "ResourceNotFoundException"
    sqs.send_message(QueueUrl=env["url"], MessageBody="after delete")
    assert wait_idle(door)["Idle"] and delivered(sqs, env["deliveries"]) == []


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_refused_update_changes_nothing_and_the_mapping_keeps_running(door, runtime):
    env = queue_with_reporter(door, runtime)
    lam, sqs = env["lambda"], env["sqs"]
    uuid = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")["UUID"]
    before = lam.get_event_source_mapping(UUID=uuid)
    del before["ResponseMetadata"]
    assert error_of(lam.update_event_source_mapping, UUID=uuid, BatchSize=50) == (
        "InvalidParameterValueException",
        "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10")
    assert error_of(lam.update_event_source_mapping, UUID=uuid, FunctionName="missing")[0] == "ResourceNotFoundException"
    after = lam.get_event_source_mapping(UUID=uuid)
    del after["ResponseMetadata"]
    assert after == before  # State Enabled, BatchSize 10, the same function, LastModified
    sqs.send_message(QueueUrl=env["url"], MessageBody="after the refused update")  # AWS: the mapping keeps running
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [["after the refused update"]]


def test_maximum_concurrency_caps_the_batches_in_flight(emu):
    sqs, lam = boto3.client("sqs", region_name=REGION), boto3.client("lambda", region_name=REGION)
    url, arn = queue(sqs, "work", VisibilityTimeout="60")  # at least the function's timeout
    release, changed = threading.Event(), threading.Condition()
    running = {"now": 0, "peak": 0}

    def handler(event, context):
        with changed:
            running["now"] += 1
            running["peak"] = max(running["peak"], running["now"])
            changed.notify_all()
        release.wait()
        with changed:
            running["now"] -= 1

    emu.register_function("slow", handler, timeout=60)
    for i in range(6):
        sqs.send_message(QueueUrl=url, MessageBody=f"m{i}")
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="slow", BatchSize=1,
                                    ScalingConfig={"MaximumConcurrency": 2})
    with changed:
        assert changed.wait_for(lambda: running["now"] == 2, timeout=30)
    assert emu.wait_idle(0.5)["Idle"] is False  # two batches in flight, four messages waiting their turn
    in_flight = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"])
    assert in_flight["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "2"
    release.set()
    assert emu.wait_idle(30)["Idle"]
    assert running["peak"] == 2


def test_a_queue_mapping_survives_a_restart(tmp_path):
    with emulate(state_dir=tmp_path, **QUIET) as emu:
        env = queue_with_reporter(_InProcess())
        created = env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter",
                                                            BatchSize=5, ScalingConfig={"MaximumConcurrency": 2})
        env["sqs"].send_message(QueueUrl=env["url"], MessageBody="before")
        assert emu.wait_idle(30)["Idle"]
        assert bodies(delivered(env["sqs"], env["deliveries"])) == [["before"]]
    with emulate(state_dir=tmp_path, **QUIET) as emu:
        sqs, lam = boto3.client("sqs", region_name=REGION), boto3.client("lambda", region_name=REGION)
        [kept] = lam.list_event_source_mappings(FunctionName="reporter")["EventSourceMappings"]
        assert (kept["UUID"], kept["BatchSize"], kept["ScalingConfig"], kept["State"]) == (
            created["UUID"], 5, {"MaximumConcurrency": 2}, "Enabled")
        # the queues are moto's: created again if this build does not keep them (CreateQueue is idempotent)
        url, _ = queue(sqs, "work")
        deliveries, _ = queue(sqs, "deliveries")
        sqs.send_message(QueueUrl=url, MessageBody="after")
        assert emu.wait_idle(30)["Idle"]
        assert bodies(delivered(sqs, deliveries)) == [["after"]]


class _InProcess:
    """The in-process door's client factory, for a test that opens its own emulate() blocks."""

    name = "inprocess"

    def client(self, service: str) -> object:
        return boto3.client(service, region_name=REGION)


def test_wait_idle_reports_a_queue_mappings_failed_batches(emu):
    sqs, lam = boto3.client("sqs", region_name=REGION), boto3.client("lambda", region_name=REGION)
    url, arn = queue(sqs, "work", VisibilityTimeout="300")

    def handler(event, context):
        raise ValueError("bad " + event["Records"][0]["body"])

    emu.register_function("failing", handler)
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="failing")["UUID"]
    sqs.send_message(QueueUrl=url, MessageBody="order")
    report = emu.wait_idle(30)
    assert report["Idle"] is True  # the message waits out its visibility timeout in the queue, not in the mapping
    [failure] = report["Failures"]
    assert (failure["UUID"], failure["FailedBatches"], failure["RecordsDiscarded"], failure["LastError"]) == (
        uuid, 1, 0, "ValueError: bad order")
    assert emu.wait_idle(30)["Failures"] == []  # reported once: since the last wait


def test_an_update_changes_the_filters_the_batch_and_the_window(door):
    env = queue_with_reporter(door)
    lam, sqs = env["lambda"], env["sqs"]
    only_orders = {"Filters": [{"Pattern": json.dumps({"body": {"kind": ["order"]}})}]}
    uuid = lam.create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter",
                                           FilterCriteria=only_orders)["UUID"]
    for kind in ("order", "refund"):
        sqs.send_message(QueueUrl=env["url"], MessageBody=json.dumps({"kind": kind}))
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [['{"kind": "order"}']]  # the refund deleted unseen
    only_refunds = {"Filters": [{"Pattern": json.dumps({"body": {"kind": ["refund"]}})}]}
    updated = lam.update_event_source_mapping(UUID=uuid, FilterCriteria=only_refunds, BatchSize=20,
                                              MaximumBatchingWindowInSeconds=60)
    assert (updated["State"], updated["FilterCriteria"], updated["BatchSize"], updated["MaximumBatchingWindowInSeconds"]) == (
        "Updating", only_refunds, 20, 60)
    for kind in ("order", "refund", "refund"):
        sqs.send_message(QueueUrl=env["url"], MessageBody=json.dumps({"kind": kind}))
    assert wait_idle(door, timeout=0.5)["Idle"] is False  # two refunds of twenty wait for the window
    door.advance(61)
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [['{"kind": "refund"}', '{"kind": "refund"}']]
    cleared = lam.update_event_source_mapping(UUID=uuid, FilterCriteria={}, BatchSize=10, MaximumBatchingWindowInSeconds=0)
    assert "FilterCriteria" not in cleared and (cleared["BatchSize"], cleared["MaximumBatchingWindowInSeconds"]) == (10, 0)
    sqs.send_message(QueueUrl=env["url"], MessageBody=json.dumps({"kind": "order"}))
    assert wait_idle(door)["Idle"]
    assert bodies(delivered(sqs, env["deliveries"])) == [['{"kind": "order"}']]
    assert lam.get_event_source_mapping(UUID=uuid)["State"] == "Enabled"
