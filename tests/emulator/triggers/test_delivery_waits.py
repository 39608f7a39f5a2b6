"""wait_idle and assert_delivered made alone (triggers/delivery_waits.py), with exactly what they are built with (issue
35): the kernel, the mappings' registry, EventBridge's pipes and rules, and the asynchronous invocations. Fakes stand
for the last two, so the answer shows how a wait gathers each one's pending entries and failures. Through boto3 and
in both doors: test_delivered.py, tests/emulator/functions/test_async_wait_idle.py, tests/emulator/pipes/."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from eddy.emulator.clock import Clock
from eddy.emulator.kernel import Kernel
from eddy.emulator.settings import Settings
from eddy.emulator.triggers.delivery_waits import DeliveryWaits
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.failures import Discarded, MappingFailures, NotDeliveredError
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers.queue_pollers import QueueRunner

STREAM_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2026-01-01T00:00:00.000"
FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:replicate"
QUEUE_ARN = "arn:aws:sqs:us-east-1:123456789012:work"
DISK_REFUSED = "the disk refused the log entry of a receive, which was not made: a write to .eddy/wal failed: the disk is full"
#: a pending pipe as pipes/pipe_registry.py's pending() gives it
PIPE = {
    "Pipe": "arn:aws:pipes:us-east-1:123456789012:pipe/p",
    "Mapping": "pipe p",
    "LastProcessingResult": "PROBLEM: Unhandled: boom",
    "LastError": "Unhandled: boom",
}
GIVEN_UP = {
    "Mapping": "asynchronous invocations of replicate",
    "RequestId": "r-1",
    "EventSource": "Invoke",
    "Condition": "RetriesExhausted",
    "ApproximateInvokeCount": 3,
    "OnFailureDestination": None,
    "DeadLetterTarget": None,
    "LastError": "Unhandled: boom",
}


@dataclass
class Registry:
    mappings: dict[str, EventSourceMapping] = field(default_factory=dict)
    runners: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, MappingFigures] = field(default_factory=dict)
    failures: dict[str, MappingFailures] = field(default_factory=dict)


@dataclass
class EventBridge:
    pipes_pending: list[dict[str, Any]]
    reports: list[dict[str, Any]]

    def pending(self) -> list[dict[str, Any]]:
        return list(self.pipes_pending)

    def failure_reports(self) -> list[dict[str, Any]]:
        reports, self.reports = self.reports, []
        return reports


@dataclass
class AsyncInvocations:
    failures: list[dict[str, Any]]

    def busy(self) -> bool:
        return False

    def pending_entries(self) -> list[dict[str, Any]]:
        return []

    def take_failures(self) -> list[dict[str, Any]]:
        failures, self.failures = self.failures, []
        return failures


def _registry_with_a_discarded_record() -> Registry:
    mapping = EventSourceMapping(
        uuid="9f0e1d2c-mapping",
        event_source_arn=STREAM_ARN,
        function_arn=FUNCTION_ARN,
        account_id="123456789012",
        region="us-east-1",
        starting_position="TRIM_HORIZON",
    )
    failures = MappingFailures(mapping.label)
    failures.invocation_failed("shardId-1", 1, "Unhandled: poisoned", None)
    failures.records_discarded(
        Discarded(
            "shardId-1",
            "RetryAttemptsExhausted",
            1,
            [{"SequenceNumber": "7", "Keys": {"id": {"S": "a"}}}],
            None,
            "Unhandled: poisoned",
        )
    )
    return Registry({mapping.uuid: mapping}, {}, {mapping.uuid: MappingFigures()}, {mapping.uuid: failures})


def test_a_wait_gathers_the_mappings_the_pipes_and_the_asynchronous_invocations():
    waits = DeliveryWaits(
        Kernel(Settings(), Clock()),
        _registry_with_a_discarded_record(),
        EventBridge([], []),
        AsyncInvocations([GIVEN_UP]),
    )

    assert waits.wait_idle(timeout=60) == {
        "Idle": True,
        "Delivered": False,
        "Pending": [],
        "Failures": [
            {
                "UUID": "9f0e1d2c-mapping",
                "Mapping": "replicate <- orders (9f0e1d2c)",
                "FunctionArn": FUNCTION_ARN,
                "EventSourceArn": STREAM_ARN,
                "FailedBatches": 1,
                "RecordsDiscarded": 1,
                "LastError": "Unhandled: poisoned",
                "Discarded": [
                    {
                        "ShardId": "shardId-1",
                        "Condition": "RetryAttemptsExhausted",
                        "ApproximateInvokeCount": 1,
                        "Records": [{"SequenceNumber": "7", "Keys": {"id": {"S": "a"}}}],
                        "OnFailureDestination": None,
                        "Error": "Unhandled: poisoned",
                    }
                ],
            },
            GIVEN_UP,
        ],
    }
    # what failed is reported once: the next wait starts over
    assert waits.wait_idle(timeout=60) == {"Idle": True, "Delivered": True, "Pending": [], "Failures": []}


def test_a_pipe_behind_its_source_is_pending_and_not_delivered():
    waits = DeliveryWaits(Kernel(Settings(), Clock()), Registry(), EventBridge([PIPE], []), AsyncInvocations([]))

    with pytest.raises(NotDeliveredError) as raised:
        waits.assert_delivered(timeout=0)  # nothing will change: the pipe's fake never catches up

    assert raised.value.report == {"Idle": False, "Delivered": False, "Pending": [PIPE], "Failures": []}
    assert str(raised.value) == (
        "not everything was delivered:\n"
        "  mapping pipe p: not caught up after 0 s, records not yet processed; "
        "last error: Unhandled: boom"
    )


class RefusedQueueRunner:
    """A queue mapping's runner whose pollers' every receive the disk refuses (pollers/queue_pollers.py): the messages
    stay visible, so it never catches up; each look of the wait finds one more refused receive (a poller tries again
    every second). Its `waits_for_disk` is QueueRunner's own."""

    waits_for_disk = QueueRunner.waits_for_disk

    def __init__(self, refused_before_the_wait: int) -> None:
        self.receive_refused = True
        self.receives_refused = refused_before_the_wait
        self.looks = 0

    def caught_up(self) -> bool:
        self.looks += 1
        if self.looks > 1:
            self.receives_refused += 1
        return False


def test_a_queue_mapping_whose_receive_the_disk_refuses_is_pending_and_not_waited_for():
    mapping = EventSourceMapping(
        uuid="5a4b3c2d-mapping", event_source_arn=QUEUE_ARN, function_arn=FUNCTION_ARN, account_id="123456789012",
        region="us-east-1", starting_position="",  # a queue mapping has none (sqs_mappings.py)
    )
    mapping.last_processing_result = "PROBLEM: " + DISK_REFUSED
    figures = MappingFigures()
    figures.note_error(DISK_REFUSED)
    runner = RefusedQueueRunner(refused_before_the_wait=7)
    registry = Registry({mapping.uuid: mapping}, {mapping.uuid: runner}, {mapping.uuid: figures}, {})
    waits = DeliveryWaits(Kernel(Settings(), Clock()), registry, EventBridge([], []), AsyncInvocations([]))

    answer = waits.wait_idle(timeout=600)

    assert answer == {
        "Idle": False,
        "Delivered": False,
        "Pending": [
            {
                "UUID": "5a4b3c2d-mapping",
                "Mapping": "replicate <- work (5a4b3c2d)",
                "FunctionArn": FUNCTION_ARN,
                "EventSourceArn": QUEUE_ARN,
                "LastProcessingResult": "PROBLEM: " + DISK_REFUSED,
                "LastError": DISK_REFUSED,
                "Retrying": [],
            }
        ],
        "Failures": [],
    }
    # answered at the first look after a receive refused during the wait (the refusals before it were not enough:
    # the disk may have had room since), not at the wait's end: 600 s of looks every 0.25 s
    assert runner.looks == 2
