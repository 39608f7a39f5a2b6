"""Waiting for delivery: wait_idle and assert_delivered over every enabled event source mapping, EventBridge's pipes
and rules, the asynchronous invocations and SNS's POSTs to HTTP subscribers, and the report of what is still pending and what failed since the last
wait (the answer of emu.wait_idle(), GET /_eddy/wait-idle and the pytest plugin's assert_delivered).

A wait waits on the emulator's `activity` condition (notified whenever a poller makes progress, records arrive or the
clock moves), never by sleeping. An asynchronous invocation or an SNS notification waiting for a retry later on the
emulator's clock is pending (not idle) but not waited for: its entry says NextAttemptAt, where a test advances the
clock to (functions/async_invocation/queue.py, notifications/http_endpoints.py). Nor is a queue mapping whose
receive the disk refused during the wait (pollers/queue_pollers.py): only room on the disk moves it on.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from eddy.emulator.kernel import Kernel
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.failures import MappingFailures, NotDeliveredError, not_delivered_message
from eddy.emulator.triggers.mapping_figures import MappingFigures


class Mappings(Protocol):
    """What a wait reads of the mappings' registry (mapping_registry.Triggers), with the lock held."""

    mappings: dict[str, EventSourceMapping]
    runners: dict[str, Any]
    figures: dict[str, MappingFigures]
    failures: dict[str, MappingFailures]


class PendingPipesAndRules(Protocol):
    """EventBridge (eventbridge/service.py): pipes behind their sources, rules' deliveries in flight, what failed."""

    def pending(self) -> list[dict[str, Any]]: ...

    def failure_reports(self) -> list[dict[str, Any]]: ...


class AsynchronousInvocations(Protocol):
    """A queue of deliveries retried on the clock: every function's asynchronous invocations
    (functions/async_invocation/queue.py), SNS's POSTs to HTTP subscribers (notifications/http_endpoints.py)."""

    def busy(self) -> bool: ...

    def pending_entries(self) -> list[dict[str, Any]]: ...

    def take_failures(self) -> list[dict[str, Any]]: ...


class DeliveryWaits:
    def __init__(
        self,
        kernel: Kernel,
        registry: Mappings,
        eventbridge: PendingPipesAndRules,
        *queues: AsynchronousInvocations,
    ) -> None:
        self.kernel = kernel
        self.registry = registry
        self.eventbridge = eventbridge
        self.queues = queues

    def wait_idle(self, timeout: float) -> dict[str, Any]:
        """Wait until every enabled mapping has processed every record it can reach and no asynchronous invocation
        is running or due; say which has not, and what failed since the last wait (or since each mapping was
        created): batches that failed, records discarded, asynchronous invocations given up on.

        An asynchronous invocation waiting for a retry later on the emulator's clock is pending (not idle) but not
        waited for: its entry says NextAttemptAt, where a test advances the clock to (functions/async_invocation/queue.py).
        So is a queue mapping whose receive the disk refused during the wait: its entry's LastError says so, and only
        room on the disk moves it on (its pollers try again every second)."""
        deadline = time.monotonic() + timeout
        activity = self.kernel.activity
        queues = self.queues
        with activity:
            #: each queue mapping's receives refused by the disk when the wait began (or the mapping first seen)
            refused_before: dict[str, int] = {}
            while True:
                runners = self.registry.runners
                pending = [uuid for uuid, runner in runners.items() if not runner.caught_up()]
                waiting_for_disk = [uuid for uuid in pending if self._waits_for_disk(uuid, refused_before)]
                pipes = self.eventbridge.pending()  # Pipes run on these pollers too; rules deliver later
                remaining = deadline - time.monotonic()
                settled = len(waiting_for_disk) == len(pending)
                if (settled and not pipes and not any(queue.busy() for queue in queues)) or remaining <= 0:
                    break
                activity.wait(min(remaining, 0.25))
            waiting = [entry for queue in queues for entry in queue.pending_entries()]
            failures = []
            for uuid, mapping_failures in self.registry.failures.items():
                report = mapping_failures.take()
                if report is not None:
                    failures.append(dict(self._names(uuid), **report))
            failures += self.eventbridge.failure_reports()
            failures += [failure for queue in queues for failure in queue.take_failures()]
            idle = not pending and not pipes and not waiting
            return {
                "Idle": idle,
                "Delivered": idle and not any(f["RecordsDiscarded"] for f in failures),
                "Pending": [self._pending(uuid) for uuid in pending] + pipes + waiting,
                "Failures": failures,
            }

    def assert_delivered(self, timeout: float) -> dict[str, Any]:
        """wait_idle, then raise NotDeliveredError unless every record reached its function: none discarded
        since the last wait, none still pending after `timeout` seconds. Returns wait_idle's answer."""
        report = self.wait_idle(timeout)
        message = not_delivered_message(report, timeout)
        if message is not None:
            raise NotDeliveredError(message, report)
        return report

    def _waits_for_disk(self, uuid: str, refused_before: dict[str, int]) -> bool:
        """A queue mapping whose receive the disk refused during this wait, none made since (lock held): pending, with
        the refusal as its LastError, but not waited for (only room on the disk moves it on)."""
        runner = self.registry.runners[uuid]
        if not hasattr(runner, "waits_for_disk"):  # a stream's mapping: its writes are not refused this way
            return False
        before = refused_before.setdefault(uuid, runner.receives_refused)
        return runner.waits_for_disk(before)

    def _names(self, uuid: str) -> dict[str, Any]:
        mapping = self.registry.mappings[uuid]
        return {
            "UUID": uuid,
            "Mapping": mapping.label,
            "FunctionArn": mapping.function_arn,
            "EventSourceArn": mapping.event_source_arn,
        }

    def _pending(self, uuid: str) -> dict[str, Any]:
        """A mapping that has not caught up (lock held): its last error, and the records it is retrying."""
        runner = self.registry.runners[uuid]
        retrying = [
            {
                "ShardId": lane.shard.shard_id,
                "Attempts": lane.retrying["attempts"],
                "NextAttemptAt": lane.retrying["next_at"],
                "Records": [runner.stream.record_identity(r) for r in lane.retrying["records"]],
            }
            for lanes in getattr(runner, "lanes", {}).values()
            for lane in lanes
            if lane.retrying is not None
        ]
        return dict(
            self._names(uuid),
            LastProcessingResult=self.registry.mappings[uuid].last_processing_result,
            LastError=self.registry.figures[uuid].last_error,
            Retrying=retrying,
        )
