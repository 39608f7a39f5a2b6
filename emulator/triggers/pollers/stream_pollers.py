"""A stream mapping's runner: the lanes of one enabled event source mapping (or pipe) over a DynamoDB stream or a
Kinesis data stream, following the shard lineage.

A shard's lanes (ParallelizationFactor of them, lanes.py) start once every parent (one after a rollover or split, two
after a merge) is finished, so parents are processed before children and new shards are picked up by themselves. A
lane's position is checkpointed per shard after every batch (checkpoints.py), with the tumbling window it holds, so
disable/enable, update, restart and retry resume exactly. The runner is built with what it uses: the kernel (clock,
lock and `activity`, settings, aws_client), its mapping and source, a sender, the checkpoints, where a new shard
starts, and the figures and failure report it keeps.
"""

from __future__ import annotations

import threading
from dataclasses import asdict

from eddy.emulator.kernel import Kernel
from eddy.emulator.triggers.checkpoints import Checkpoints, ShardCheckpoint
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.failures import MappingFailures
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers.batch_processor import BatchProcessor
from eddy.emulator.triggers.pollers.lanes import ShardLane
from eddy.emulator.triggers.pollers.sources import StreamShard, StreamSource
from eddy.emulator.triggers.senders import Sender
from eddy.emulator.triggers.pollers.tumbling_windows import Window


class MappingRunner:
    def __init__(
        self,
        kernel: Kernel,
        mapping: EventSourceMapping,
        stream: StreamSource,
        sender: Sender,
        *,
        checkpoints: Checkpoints,
        start_position: int,
        figures: MappingFigures,
        failures: MappingFailures,
    ) -> None:
        self.kernel = kernel
        self.mapping = mapping
        self.stream = stream
        self.checkpoints = checkpoints
        #: the sequence number after which a shard with no checkpoint starts (0: the trim horizon)
        self.start_position = start_position
        self.figures = figures
        self.failures = failures
        self.stopping = threading.Event()
        self.processor = BatchProcessor(
            kernel, mapping, stream, sender, figures=figures, failures=failures, stopping=self.stopping
        )
        self.lanes: dict[str, list[ShardLane]] = {}
        self.finished: set[str] = set()

    def start(self) -> None:
        with self.kernel.activity:
            self._discover()

    def _discover(self) -> None:
        """Start the lanes of every shard whose parent is finished (or gone); called with the lock held."""
        checkpoints, mapping = self.checkpoints, self.mapping
        shards = self.stream.shards
        for shard in list(shards.values()):
            shard_id = shard.shard_id
            if shard_id in self.lanes or shard_id in self.finished:
                continue
            saved = checkpoints.get(mapping.uuid, shard_id)
            if saved is not None and saved.finished:
                self.finished.add(shard_id)
                continue
            if any(parent in shards and parent not in self.finished for parent in shard.parent_shard_ids):
                continue  # the one rule of lineage, for splits and merges alike
            if saved is not None:
                positions = (
                    saved.lanes
                    if len(saved.lanes) == mapping.parallelization_factor
                    else [min(saved.lanes)] * mapping.parallelization_factor
                )
            else:
                start = max(shard.trimmed_through, self.start_position)
                positions = [start] * mapping.parallelization_factor
            lanes = [self._lane(shard, lane, position) for lane, position in enumerate(positions)]
            if saved is not None and len(saved.windows) == len(lanes):
                for lane, window in zip(lanes, saved.windows):
                    lane.window = Window(**window) if window else None
            self.lanes[shard_id] = lanes
            for lane in lanes:
                lane.start()

    def _lane(self, shard: StreamShard, lane: int, position: int) -> ShardLane:
        return ShardLane(
            self.kernel,
            self.mapping,
            self.stream,
            shard,
            lane,
            position,
            processor=self.processor,
            figures=self.figures,
            stopping=self.stopping,
            save_checkpoint=self.save_checkpoint,
            on_finished=self.lane_finished,
        )

    def lane_finished(self, lane: ShardLane) -> None:
        activity = self.kernel.activity
        with activity:
            lanes = self.lanes.get(lane.shard.shard_id, [])
            if lanes and all(other.finished for other in lanes):
                self.finished.add(lane.shard.shard_id)
                self.save_checkpoint(lane.shard, finished=True)
                del self.lanes[lane.shard.shard_id]
                if not self.stopping.is_set():
                    self._discover()
            activity.notify_all()

    def save_checkpoint(self, shard: StreamShard, finished: bool = False) -> None:
        lanes = self.lanes.get(shard.shard_id, [])
        windows = [asdict(lane.window) if lane.window is not None else None for lane in lanes]
        self.checkpoints.save(
            self.mapping.uuid, shard.shard_id, ShardCheckpoint([lane.position for lane in lanes], finished, windows)
        )

    def caught_up(self) -> bool:
        """Every record of every shard this mapping can reach has been processed (lock held)."""
        shards = self.stream.shards
        for shard in shards.values():
            if shard.shard_id in self.finished:
                continue
            lanes = self.lanes.get(shard.shard_id)
            if lanes is None:
                if shard.records and all(parent in shards for parent in shard.parent_shard_ids):
                    if shard.records[-1].sequence_number > self.start_position:
                        return False
                continue
            if not all(lane.caught_up() for lane in lanes):
                return False
        return True

    def stop(self) -> None:
        self.stopping.set()
        activity = self.kernel.activity
        with activity:
            activity.notify_all()
            lanes = [lane for group in self.lanes.values() for lane in group]
        for lane in lanes:
            if lane is not threading.current_thread():
                lane.join()
