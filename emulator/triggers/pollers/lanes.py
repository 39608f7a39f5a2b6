"""A lane: one thread taking its share of a shard's records in order (ParallelizationFactor lanes per shard; a
record's lane is its key's hash), batching them and handing each batch to the batch processor.

A lane waits by notification (the emulator's `activity`), never by sleeping; it batches by BatchSize,
MaximumBatchingWindowInSeconds (on the emulator's clock), 6 MB, and never across shards or tumbling windows. A retried
batch holds the lane (the processor returns only once it is done with it), so order per key holds. After every batch
its position is checkpointed.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Protocol

from eddy.emulator.kernel import Kernel
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers.sources import StreamShard, StreamSource
from eddy.emulator.triggers.pollers.tumbling_windows import Window, window_start

log = logging.getLogger("eddy.triggers")

MAX_PAYLOAD_BYTES = 6 * 1024 * 1024


class Processor(Protocol):
    """What a lane hands its batches to (batch_processor.py)."""

    def process(self, lane: ShardLane, records: list[Any]) -> None: ...

    def final_invoke(self, lane: ShardLane, terminated_early: bool) -> None: ...


class ShardLane(threading.Thread):
    def __init__(
        self,
        kernel: Kernel,
        mapping: EventSourceMapping,
        source: StreamSource,
        shard: StreamShard,
        lane: int,
        position: int,
        *,
        processor: Processor,
        figures: MappingFigures,
        stopping: threading.Event,
        save_checkpoint: Callable[[StreamShard], None],
        on_finished: Callable[[ShardLane], None],
    ) -> None:
        super().__init__(name=f"eddy-poller-{mapping.uuid[:8]}-{shard.shard_id[-8:]}-{lane}", daemon=True)
        self.kernel = kernel
        self.mapping = mapping
        self.source = source
        self.shard = shard
        self.lane = lane
        self.processor = processor
        self.figures = figures
        self.stopping = stopping
        self._save_checkpoint = save_checkpoint
        self._on_finished = on_finished
        #: the last sequence number this lane has processed (or skipped)
        self.position = position
        self.busy = False
        self.finished = False
        self.window: Window | None = None
        #: the records being retried: {"records", "attempts" made, "next_at" on the emulator's clock}
        self.retrying: dict[str, Any] | None = None

    # -- taking records (with the emulator's lock held) -----------------------------------------------

    def _mine(self, record: Any) -> bool:
        lanes = self.mapping.parallelization_factor
        if lanes == 1:
            return True
        return self.source.partition_of(record) % lanes == self.lane

    def pending(self) -> list[Any]:
        """This lane's next batch, as far as it goes now."""
        mapping, records, source = self.mapping, self.shard.records, self.source
        start = self.shard.index_at(self.position + 1)
        if mapping.parallelization_factor == 1 and not mapping.tumbling_window_in_seconds:
            batch = records[start : start + mapping.batch_size]
            if sum(map(source.record_bytes_at_most, batch)) <= MAX_PAYLOAD_BYTES:
                return batch  # every record is the lane's and within the limit by its cheap bound: the loop's batch
        batch = []
        bound, size, window = 0, None, None  # sizes: cheap upper bounds, exact ones once they could pass the limit
        for index in range(start, len(records)):
            record = records[index]
            if not self._mine(record):
                continue
            if mapping.tumbling_window_in_seconds:
                start = window_start(record.created_at, mapping.tumbling_window_in_seconds)
                if window is None:
                    window = start
                elif start != window:
                    break
            bound += source.record_bytes_at_most(record)
            if (
                bound > MAX_PAYLOAD_BYTES
                and batch
                and (
                    size := (sum(map(source.record_bytes, batch)) if size is None else size)
                    + source.record_bytes(record)
                )
                > MAX_PAYLOAD_BYTES
            ):
                break
            batch.append(record)
            if len(batch) >= mapping.batch_size:
                break
        return batch

    def caught_up(self) -> bool:
        if self.busy:
            return False
        window = self.window
        if window is not None and window.invoked and (not self.shard.is_open or self.kernel.clock.now() >= window.end):
            return False  # the window's final invocation is due
        return self.finished or not self._has_pending()

    def _has_pending(self) -> bool:
        """Whether pending() would take a record: one of this lane's after its position (its first record is always
        taken, whatever the window or the payload limit), found without building the batch: wait_idle asks at every
        wake, between every two batches."""
        records = self.shard.records
        start = self.shard.index_at(self.position + 1)
        if self.mapping.parallelization_factor == 1:
            return start < len(records)
        return any(self._mine(records[index]) for index in range(start, len(records)))

    def _take(self) -> tuple[str, list[Any]] | None:
        """("batch", records) or ("final", []) for a tumbling window's last invocation; None when done."""
        mapping, shard, clock, activity = self.mapping, self.shard, self.kernel.clock, self.kernel.activity
        with activity:
            while not self.stopping.is_set():
                if self.position < shard.trimmed_through:  # records expired (retention) before we got to them
                    self.position = shard.trimmed_through
                batch = self.pending()
                now = clock.now()
                if self.window is not None and self.window.invoked:
                    if (
                        (
                            batch
                            and window_start(batch[0].created_at, mapping.tumbling_window_in_seconds)
                            != self.window.start
                        )
                        or now >= self.window.end
                        or (not batch and not shard.is_open)
                    ):
                        self.busy = True
                        return "final", []
                if batch:
                    window = mapping.maximum_batching_window_in_seconds
                    full = len(batch) >= mapping.batch_size
                    if window and not full and shard.is_open and now < batch[0].created_at + window:
                        activity.wait(min(batch[0].created_at + window - now, 1.0))
                        continue
                    self.busy = True
                    return "batch", batch
                if not shard.is_open:
                    return None
                timeout = 1.0
                if self.window is not None and self.window.invoked:
                    timeout = max(0.001, min(timeout, self.window.end - now))
                activity.wait(timeout)
        return None

    # -- the loop ---------------------------------------------------------------------------------------

    def run(self) -> None:
        activity = self.kernel.activity
        try:
            while (taken := self._take()) is not None:
                kind, batch = taken
                try:
                    if kind == "final":
                        ended_early = not self.shard.is_open and self.kernel.clock.now() < self.window.end
                        self.processor.final_invoke(self, terminated_early=ended_early)
                    else:
                        self.processor.process(self, batch)
                finally:
                    with activity:
                        self.busy = False
                        activity.notify_all()
            if self.stopping.is_set():
                return  # stopped, not finished: the checkpoint says where to resume
            with activity:
                self.finished = True
            self._on_finished(self)
        except Exception as error:  # a poller must never die silently: record it where users look
            log.exception("poller %s failed", self.name)
            self.figures.last_error = f"{type(error).__name__}: {error}"

    def advance(self, record: Any) -> None:
        """This lane is done with `record` (and everything before it): its position moves and is checkpointed."""
        with self.kernel.activity:
            if record.sequence_number > self.position:
                self.position = record.sequence_number
                self._save_checkpoint(self.shard)

    def checkpoint(self) -> None:
        with self.kernel.activity:
            self._save_checkpoint(self.shard)
