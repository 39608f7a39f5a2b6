"""The runs of the pipes that are RUNNING: each pipe's runner (runners.py: a stream's pollers or a queue's), what its
pollers read (the pipe as an event source mapping), its figures, what failed, its checkpoints per shard
(<state_dir>/pipes/checkpoints/, triggers/checkpoints.py) and the position a new reader starts from; and what they
report to wait_idle. The pipes themselves, their states and the Pipes API are pipe_registry.py's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.kinesis.sources import find_source
from eddy.emulator.moto_seam import sqs as sqs_seam
from eddy.emulator.pipes.pipe import Pipe
from eddy.emulator.pipes.runners import queue_runner, stream_runner
from eddy.emulator.triggers.checkpoints import Checkpoints
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.triggers.failures import MappingFailures
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers.sources import dynamodb_source

if TYPE_CHECKING:
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.pipes.targets import PipeTargets
    from eddy.emulator.triggers.pollers.sources import QueueJournal
    from eddy.emulator.triggers.pollers.queue_pollers import QueueRunner
    from eddy.emulator.triggers.pollers.stream_pollers import MappingRunner


class PipeRuns:
    """Built with the kernel (the runners'), the journal that writes an SQS source's receives and deletes down, the
    pipes' targets, the pipes' directory and `find_stream(arn)` (the DynamoDB stream an ARN names, or None)."""

    def __init__(
        self,
        kernel: Kernel,
        persistence: QueueJournal,
        targets: PipeTargets,
        directory: Path,
        find_stream: Callable[[str], Any],
    ) -> None:
        self._kernel = kernel
        self._persistence = persistence
        self._targets = targets
        self._find_stream = find_stream
        self._directory = directory
        self.checkpoints = Checkpoints(directory / "checkpoints", on_disk=persistence.durable)
        # what the pollers read, by Pipe.key (the pollers' "triggers")
        self.mappings: dict[str, EventSourceMapping] = {}
        self.figures: dict[str, MappingFigures] = {}
        #: what failed, for wait_idle and assert_delivered (the pollers fill it: triggers/failures.py)
        self.failures: dict[str, Any] = {}
        self.start_positions: dict[str, int] = {}
        self.runners: dict[str, MappingRunner | QueueRunner] = {}

    def start(self, pipe: Pipe, state_reasons: dict[str, str]) -> None:
        """The pipe's runner started (the lock held); a stream source that is gone: START_FAILED, its reason kept."""
        if pipe.key in self.runners:
            return
        self.mappings[pipe.key] = pipe.mapping()
        self.figures.setdefault(pipe.key, MappingFigures())
        self.start_positions[pipe.key] = pipe.start_position
        mapping, figures = self.mappings[pipe.key], self.figures[pipe.key]
        if pipe.source_service == "sqs":
            runner: MappingRunner | QueueRunner = queue_runner(
                self._kernel,
                self._persistence,
                self._targets,
                pipe,
                mapping,
                figures=figures,
                failures=self.failures.get(pipe.key),
            )
        else:
            source = self.source(pipe)
            if source is None:
                pipe.current_state = "START_FAILED"
                state_reasons[pipe.key] = f"The source {pipe.source} does not exist"
                return
            runner = stream_runner(
                self._kernel,
                self._targets,
                pipe,
                mapping,
                source,
                checkpoints=self.checkpoints,
                start_position=self.start_positions.get(pipe.key, 0),
                figures=figures,
                failures=self.failures.setdefault(pipe.key, MappingFailures(mapping.label)),
            )
        self.runners[pipe.key] = runner
        runner.start()

    def source(self, pipe: Pipe) -> Any:
        """The pipe's source (a queue, a DynamoDB or Kinesis stream), or None where it does not exist."""
        if pipe.source_service == "sqs":
            return sqs_seam.find_queue(pipe.source)
        return dynamodb_source(self._find_stream(pipe.source)) or find_source(pipe.source)

    def stop(self, pipe: Pipe) -> None:
        runner = self.runners.pop(pipe.key, None)
        if runner is not None:
            runner.stop()

    def forget(self, key: str) -> None:
        """A deleted pipe's figures, failures and position (its checkpoints go once its deletion is written)."""
        for table in (self.mappings, self.figures, self.failures, self.start_positions):
            table.pop(key, None)

    def pending(self, pipes: dict[str, Pipe]) -> list[dict[str, Any]]:
        """The running pipes that have not processed everything they can reach (the lock held): wait_idle's answer."""
        return [
            {
                "Pipe": pipes[key].arn,
                "Mapping": f"pipe {pipes[key].name}",
                "LastProcessingResult": self.mappings[key].last_processing_result,
                "LastError": self.figures[key].last_error,
            }
            for key, runner in self.runners.items()
            if not runner.caught_up()
        ]

    def failure_reports(self, pipes: dict[str, Pipe]) -> list[dict[str, Any]]:
        """What failed in each pipe since the last wait (the lock held): wait_idle's Failures, as mappings' are."""
        reports = []
        for key, failures in self.failures.items():
            report = failures.take() if key in pipes else None
            if report is not None:
                pipe = pipes[key]
                reports.append(
                    dict(
                        {
                            "Pipe": pipe.arn,
                            "Mapping": f"pipe {pipe.name}",
                            "FunctionArn": pipe.target,
                            "EventSourceArn": pipe.source,
                        },
                        **report,
                    )
                )
        return reports

    def reset(self) -> None:
        """Every run's figures and positions gone (the runners stopped first), the checkpoints new."""
        for table in (self.mappings, self.figures, self.start_positions):
            table.clear()
        self.checkpoints = Checkpoints(self._directory / "checkpoints", on_disk=self._persistence.durable)
