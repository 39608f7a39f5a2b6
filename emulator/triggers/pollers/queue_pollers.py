"""Queue pollers: what runs an SQS event source mapping (or a pipe from a queue), as Lambda's SQS poller does.

A QueueRunner has one QueuePoller thread per concurrent batch it may run (ScalingConfig.MaximumConcurrency, see
sqs_mappings.pollers). A poller waits by notification (the emulator's `activity`, told when a message arrives, its
visibility changes or the clock moves), gathers a batch (BatchSize, MaximumBatchingWindowInSeconds on the emulator's
clock, 6 MB), receives it (sources.QueueSource: invisible for the queue's VisibilityTimeout, receive counts, FIFO
groups, the RedrivePolicy's dead-letter queue), drops the messages FilterCriteria do not match (deleted, as Lambda
does), sends the batch and deletes what succeeded. What failed is left alone: it becomes visible again when its
visibility timeout runs out, is received again (ApproximateReceiveCount grows), and after maxReceiveCount receives
SQS moves it to the dead-letter queue. Nothing to checkpoint: the queue itself holds the position, and each receive
and delete a poller makes is written to the journal in order with the services' requests, so a restart, even a
kill -9, brings back the queue as the pollers left it: only a batch in flight at a kill comes back, once its
visibility timeout runs out (at least once, as on AWS), with its receive counts. Each change is written down before it
is made: a receive or delete the disk refuses is not made (the poller tries again; messages not deleted come back).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.kernel import Kernel
from eddy.emulator.moto_seam.sqs_polling import ReceivedMessage
from eddy.emulator.storage.disk import WriteFailed
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.failures import MappingFailures
from eddy.emulator.triggers.filters import matches
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers import sqs_events
from eddy.emulator.triggers.pollers.sources import QueueSource
from eddy.emulator.triggers.senders import Sender, send_batch
from eddy.emulator.triggers.sqs_mappings import pollers

log = logging.getLogger("eddy.triggers")

MAX_PAYLOAD_BYTES = 6 * 1024 * 1024
#: how long a poller waits at most between looks at the queue, in real seconds (notifications wake it sooner)
LONGEST_WAIT = 1.0


class QueuePoller(threading.Thread):
    def __init__(self, runner: QueueRunner, number: int) -> None:
        super().__init__(name=f"eddy-sqs-poller-{runner.mapping.uuid[:8]}-{number}", daemon=True)
        self.runner = runner
        self.busy = False
        #: the queue the batch in hand came from
        self.queue: Any = None

    def run(self) -> None:
        runner, activity = self.runner, self.runner.kernel.activity
        try:
            while (batch := self._take()) is not None:
                try:
                    self._process(batch)
                finally:
                    with activity:
                        self.busy = False
                        activity.notify_all()
        except Exception as error:  # a poller must never die silently: record it where users look
            log.exception("poller %s failed", self.name)
            runner.figures.note_error(f"{type(error).__name__}: {error}")

    def _take(self) -> list[ReceivedMessage] | None:
        """The next batch, received; None once the mapping stops."""
        runner, mapping, source = self.runner, self.runner.mapping, self.runner.source
        activity, clock = runner.kernel.activity, runner.kernel.clock
        with activity:
            while not runner.stopping.is_set():
                queue = runner.queue = source.find()
                if queue is None:  # deleted (or not restored yet): the mapping waits for it, as on AWS
                    mapping.last_processing_result = "PROBLEM: the queue does not exist"
                    activity.wait(LONGEST_WAIT)
                    continue
                now = clock.now()
                window = mapping.maximum_batching_window_in_seconds
                if window:
                    available = source.deliverable(queue, now, mapping.batch_size)
                    if available and runner.window_opened is None:
                        runner.window_opened = now
                    if available and available < mapping.batch_size and now < runner.window_opened + window:
                        activity.wait(min(runner.window_opened + window - now, LONGEST_WAIT))
                        continue
                try:
                    batch = source.receive(queue, mapping.batch_size, now, MAX_PAYLOAD_BYTES)
                except WriteFailed as failure:  # nothing received: the poller tries again, the disk may have room
                    self._refused(failure, "receive")
                    runner.receive_refused = True
                    runner.receives_refused += 1
                    activity.wait(LONGEST_WAIT)
                    continue
                runner.receive_refused = False
                if batch:
                    runner.window_opened = None
                    self.busy = True
                    self.queue = queue
                    return batch
                wake = source.next_change(queue, now)
                activity.wait(LONGEST_WAIT if wake is None else max(0.001, min(wake - now, LONGEST_WAIT)))
        return None

    def _process(self, batch: list[ReceivedMessage]) -> None:
        runner, mapping, source = self.runner, self.runner.mapping, self.runner.source
        records = [sqs_events.lambda_record(m, source.arn, mapping.region) for m in batch]
        if mapping.filters:
            kept = [i for i, record in enumerate(records) if matches(mapping.filters, sqs_events.filter_view(record))]
            if len(kept) < len(batch):
                dropped = set(range(len(batch))) - set(kept)
                self._delete_handled([batch[i] for i in sorted(dropped)])
                runner.figures.records_filtered += len(dropped)
            batch, records = [batch[i] for i in kept], [records[i] for i in kept]
            if not batch:
                return
        result = runner.invoke({"Records": records}, [m.message_id for m in batch])
        if result.ok:
            failed, reason = sqs_events.failed_messages(
                result.payload, [m.message_id for m in batch], mapping.reports_batch_item_failures
            )
        else:
            failed, reason = {m.message_id for m in batch}, f"{result.error.error_type}: {result.error.message}"
        with runner.kernel.activity:  # wait_idle reads the failures report under the lock
            report = runner.failures
            if failed:  # the batch's one line: what failed, and that the messages return after the visibility timeout
                runner.figures.note_error(reason)
                if report is not None:
                    report.invocation_failed(
                        source.arn.rsplit(":", 1)[-1],
                        len(failed),
                        reason,
                        float(source.visibility_timeout(self.queue)),
                        function_error=not result.ok,
                        succeeded_in=result.duration if result.ok else None,
                    )
            else:
                log.info("mapping %s batch %d OK in %.1f ms", mapping.label, len(batch), result.duration * 1000)
                if report is not None:
                    report.invocation_succeeded()
        self._delete_handled([m for m in batch if m.message_id not in failed])

    def _delete_handled(self, messages: list[ReceivedMessage]) -> None:
        """Delete what was handled; if the disk refuses the entry, nothing is deleted: the messages come back after
        their visibility timeout and are delivered again (Lambda's at least once), never lost."""
        try:
            self.runner.source.delete(self.queue, messages)
        except WriteFailed as failure:
            self._refused(failure, "delete")

    def _refused(self, failure: WriteFailed, change: str) -> None:
        """A receive or delete the disk refused: the mapping's LastProcessingResult and last error say why (a WARNING
        line when the reason changes)."""
        reason = f"the disk refused the log entry of a {change}, which was not made: {failure.reason}"
        runner = self.runner
        if runner.figures.last_error != reason:
            log.warning("mapping %s: %s", runner.mapping.label, reason)
        runner.figures.note_error(reason)
        runner.mapping.last_processing_result = f"PROBLEM: {reason}"


class QueueRunner:
    """The pollers of one enabled queue mapping. `failures` is where they report what failed (None: nowhere)."""

    def __init__(
        self,
        kernel: Kernel,
        mapping: EventSourceMapping,
        source: QueueSource,
        sender: Sender,
        *,
        figures: MappingFigures,
        failures: MappingFailures | None,
    ) -> None:
        self.kernel = kernel
        self.mapping = mapping
        self.source = source
        self.sender = sender
        #: the queue as last found (a queue deleted and created again is a new one)
        self.queue: Any = source.find()
        self.figures = figures
        self.failures = failures
        self.stopping = threading.Event()
        #: a queue has no shards: wait_idle's report of records being retried is about stream lanes
        self.lanes: dict[str, list[Any]] = {}
        #: when the current batching window opened (emulator seconds), shared by the pollers
        self.window_opened: float | None = None
        #: whether the pollers' last receive was refused by the disk, and how many it refused in all (`waits_for_disk`)
        self.receive_refused = False
        self.receives_refused = 0
        self.pollers = [QueuePoller(self, number) for number in range(pollers(mapping))]

    def start(self) -> None:
        for poller in self.pollers:
            poller.start()

    def caught_up(self) -> bool:
        """No batch in flight and nothing the mapping could receive now (lock held)."""
        if any(poller.busy for poller in self.pollers):
            return False
        queue = self.source.find()
        return queue is None or not self.source.deliverable(queue, self.kernel.clock.now(), 1)

    def waits_for_disk(self, refused_before: int) -> bool:
        """Whether the mapping's pollers wait for the disk to have room (lock held): the disk refused a receive since
        `receives_refused` was `refused_before`, and no receive has been made since. Nothing of the emulator's (its
        clock, a message sent) can move the mapping on then, so a wait does not wait for it (delivery_waits.py)."""
        return self.receive_refused and self.receives_refused > refused_before

    def invoke(self, event: dict[str, Any], identifiers: list[str]) -> InvocationResult:
        return send_batch(self.sender, self.mapping, self.figures, event, identifiers)

    def stop(self) -> None:
        self.stopping.set()
        activity = self.kernel.activity
        with activity:
            activity.notify_all()
        for poller in self.pollers:
            if poller is not threading.current_thread() and poller.is_alive():
                poller.join()
