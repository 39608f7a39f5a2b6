"""Every pipe, its runner, and the Pipes API's operations (CreatePipe, DescribePipe, UpdatePipe, StartPipe, StopPipe,
DeletePipe, ListPipes); plain values in and out, the Pipes API's errors raised (pipes/pipe.py).

States as AWS reports them: CreatePipe, UpdatePipe, StartPipe, StopPipe and DeletePipe answer CREATING, UPDATING,
STARTING, STOPPING and DELETING; the pipe is RUNNING or STOPPED (its DesiredState) by the next DescribePipe. A pipe
whose source does not exist is CREATE_FAILED (or START_FAILED) with a StateReason, as AWS reports a pipe it could not
start. Durable like event source mappings: the definitions are <state_dir>/pipes/pipes.json (pipe_store.py: swapped in
whole with os.replace on every change, before the answer), the positions are checkpoints per shard
(<state_dir>/pipes/checkpoints/, triggers/checkpoints.py), read back when the emulator starts on the directory. What
runs a RUNNING pipe, its figures and its checkpoints are pipe_runs.py's.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.errors import ValidationException
from eddy.emulator.pipes import pipe_store
from eddy.emulator.pipes.pipe import ConflictException, NotFoundException, Pipe, check
from eddy.emulator.pipes.pipe_runs import PipeRuns
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.storage.disk import WriteFailed

if TYPE_CHECKING:
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.pipes.targets import PipeTargets
    from eddy.emulator.triggers.pollers.sources import QueueJournal

UPDATABLE = (
    "Description",
    "DesiredState",
    "SourceParameters",
    "Enrichment",
    "EnrichmentParameters",
    "Target",
    "TargetParameters",
    "RoleArn",
)
NAME = re.compile(r"^[\.\-_A-Za-z0-9]+$")


class Pipes:
    """Built with the kernel (activity, clock; the runners' too), the journal that writes an SQS source's receives and
    deletes down (the mappings' durable channel, triggers/durable.py), the pipes' targets, the state directory,
    `find_stream(arn)` (the DynamoDB stream an ARN names, or None: StreamRegistry.find) and
    `start_position(source, StartingPosition, StartingPositionTimestamp)` (the sequence number after which a new
    stream reader starts: the event source mappings' rule)."""

    def __init__(
        self,
        kernel: Kernel,
        persistence: QueueJournal,
        targets: PipeTargets,
        directory: Path,
        *,
        find_stream: Callable[[str], Any],
        start_position: Callable[[Any, str, float | None], int],
    ) -> None:
        self._activity = kernel.activity
        self._now = kernel.clock.now
        self._persistence = persistence
        self._start_position = start_position
        self.directory = directory / "pipes"
        #: what runs the RUNNING pipes, their figures and checkpoints (pipe_runs.py)
        self.runs = PipeRuns(kernel, persistence, targets, self.directory, find_stream)
        self.pipes: dict[str, Pipe] = {}
        self.state_reasons: dict[str, str] = {}
        self._load()

    # -- the Pipes API's operations ---------------------------------------------------------------------

    def create(self, name: str, params: dict[str, Any], account_id: str, region: str) -> dict[str, Any]:
        if not NAME.match(name):
            raise ValidationException(f"Pipe name {name!r} must match [\\.\\-_A-Za-z0-9]+")
        now = self._now()
        pipe = Pipe(
            name=name,
            account_id=account_id,
            region=region,
            source=params["Source"],
            target=params["Target"],
            role_arn=params["RoleArn"],
            description=params.get("Description", ""),
            desired_state=params.get("DesiredState", "RUNNING"),
            source_parameters=params.get("SourceParameters") or {},
            enrichment=params.get("Enrichment") or None,
            enrichment_parameters=params.get("EnrichmentParameters") or {},
            target_parameters=params.get("TargetParameters") or {},
            tags=params.get("Tags") or {},
            creation_time=now,
            last_modified_time=now,
        )
        check(pipe)
        with self._activity:
            if pipe.key in self.pipes:
                raise ConflictException(f"Pipe {name} already exists.")
            source = self.runs.source(pipe)
            if source is None:
                pipe.current_state = "CREATE_FAILED"
                self.state_reasons[pipe.key] = f"The source {pipe.source} does not exist"
            elif pipe.source_service != "sqs":
                parameters = pipe.stream_parameters
                pipe.start_position = self._start_position(
                    source, parameters["StartingPosition"], parameters.get("StartingPositionTimestamp")
                )
            self.pipes[pipe.key] = pipe
            self.runs.figures[pipe.key] = MappingFigures()
            answer = self._answer(pipe, "CREATING" if source is not None else "CREATE_FAILED")
            self._settle(pipe)
            self._save()
        return answer

    def get(self, name: str, account_id: str, region: str) -> Pipe:
        pipe = self.pipes.get(Pipe(name, account_id, region, "", "", "").key)
        if pipe is None:
            raise NotFoundException(f"Pipe {name} does not exist.")
        return pipe

    def describe(self, name: str, account_id: str, region: str) -> dict[str, Any]:
        with self._activity:
            pipe = self.get(name, account_id, region)
            answer = pipe.describe()
            if pipe.key in self.state_reasons:
                answer["StateReason"] = self.state_reasons[pipe.key]
            return answer

    def list(self, account_id: str, region: str, query: dict[str, str]) -> list[dict[str, Any]]:
        with self._activity:
            chosen = [
                pipe
                for pipe in self.pipes.values()
                if pipe.account_id == account_id
                and pipe.region == region
                and pipe.name.startswith(query.get("NamePrefix", ""))
                and pipe.source.startswith(query.get("SourcePrefix", ""))
                and pipe.target.startswith(query.get("TargetPrefix", ""))
                and query.get("DesiredState", pipe.desired_state) == pipe.desired_state
                and query.get("CurrentState", pipe.current_state) == pipe.current_state
            ]
            return [pipe.summary() for pipe in sorted(chosen, key=lambda pipe: pipe.name)]

    def _by_arn(self, arn: str) -> Pipe:
        _, _, _, region, account_id, resource = arn.split(":", 5)
        return self.get(resource.split("/", 1)[1], account_id, region)

    def tag(self, arn: str, tags: dict[str, str]) -> None:
        with self._activity:
            self._by_arn(arn).tags.update(tags)
            self._save()

    def untag(self, arn: str, keys: list[str]) -> None:
        with self._activity:
            pipe = self._by_arn(arn)
            for key in keys:
                pipe.tags.pop(key, None)
            self._save()

    def tags_of(self, arn: str) -> dict[str, str]:
        with self._activity:
            return dict(self._by_arn(arn).tags)

    def update(self, name: str, params: dict[str, Any], account_id: str, region: str) -> dict[str, Any]:
        pipe = self.get(name, account_id, region)
        changed = Pipe(**pipe.to_state())
        for name_in_api in UPDATABLE:
            if name_in_api in params:
                attribute = re.sub(r"(?<!^)([A-Z])", r"_\1", name_in_api).lower()
                value = params[name_in_api]
                if name_in_api == "SourceParameters":  # UpdatePipe's source parameters have no StartingPosition
                    value = _merged(pipe.source_parameters, value or {})
                setattr(changed, attribute, value if value is not None else getattr(pipe, attribute))
        changed.enrichment = changed.enrichment or None
        check(changed)
        self.runs.stop(pipe)
        with self._activity:
            changed.last_modified_time = self._now()
            self.pipes[pipe.key] = changed
            answer = self._answer(changed, "UPDATING")
            self._settle(changed)
            self._save()
        return answer

    def start(self, name: str, account_id: str, region: str) -> dict[str, Any]:
        return self._change_state(self.get(name, account_id, region), "RUNNING", "STARTING")

    def stop(self, name: str, account_id: str, region: str) -> dict[str, Any]:
        return self._change_state(self.get(name, account_id, region), "STOPPED", "STOPPING")

    def delete(self, name: str, account_id: str, region: str) -> dict[str, Any]:
        pipe = self.get(name, account_id, region)
        self.runs.stop(pipe)
        with self._activity:
            del self.pipes[pipe.key]
            self.runs.forget(pipe.key)
            self.state_reasons.pop(pipe.key, None)
            self._persistence.after_commit(lambda: self.runs.checkpoints.forget(pipe.key))  # kept if refused
            pipe.desired_state = "DELETED"
            answer = self._answer(pipe, "DELETING")
            self._save()
        return answer

    def _change_state(self, pipe: Pipe, desired: str, transition: str) -> dict[str, Any]:
        if desired == "STOPPED":
            self.runs.stop(pipe)
        with self._activity:
            pipe.desired_state = desired
            pipe.last_modified_time = self._now()
            answer = self._answer(pipe, transition)
            self._settle(pipe)
            self._save()
        return answer

    @staticmethod
    def _answer(pipe: Pipe, current_state: str) -> dict[str, Any]:
        return {
            "Arn": pipe.arn,
            "Name": pipe.name,
            "DesiredState": pipe.desired_state,
            "CurrentState": current_state,
            "CreationTime": pipe.creation_time,
            "LastModifiedTime": pipe.last_modified_time,
        }

    # -- running ----------------------------------------------------------------------------------------

    def _settle(self, pipe: Pipe) -> None:
        """Make the pipe what its DesiredState says (the lock held): running, or stopped."""
        if pipe.current_state == "CREATE_FAILED":
            return
        self.state_reasons.pop(pipe.key, None)
        pipe.current_state = pipe.desired_state
        if pipe.desired_state == "RUNNING":  # once the change is written down (never for one the disk refused)
            self._persistence.after_commit(lambda: self.runs.start(pipe, self.state_reasons))

    def start_all(self) -> None:
        """Start every pipe that should run (when the emulator starts, after a restart)."""
        with self._activity:
            for pipe in list(self.pipes.values()):
                if pipe.current_state == "RUNNING":
                    self.runs.start(pipe, self.state_reasons)

    def pending(self) -> list[dict[str, Any]]:
        """The running pipes that have not processed everything they can reach (the lock held): wait_idle's answer."""
        return self.runs.pending(self.pipes)

    def failure_reports(self) -> list[dict[str, Any]]:
        """What failed in each pipe since the last wait (the lock held): wait_idle's Failures, as mappings' are."""
        return self.runs.failure_reports(self.pipes)

    def figures_of(self, name: str, account_id: str, region: str) -> dict[str, Any]:
        with self._activity:
            pipe = self.get(name, account_id, region)
            return dict(self.runs.figures[pipe.key].to_dict(), Pipe=pipe.arn, CurrentState=pipe.current_state)

    # -- durability -------------------------------------------------------------------------------------

    def _save(self) -> None:
        """pipes.json swapped in; refused (WriteFailed), the pipes are put back as it holds them, those that ran run
        again (a change's runners start once its request is written: `_settle`), and its request is a 500."""
        try:
            pipe_store.save(self.directory / "pipes.json", self.pipes.values(), self.state_reasons)
        except WriteFailed:
            pipes, reasons = pipe_store.as_saved(self.directory / "pipes.json", self.pipes)
            self.pipes, self.state_reasons = pipes, reasons
            for pipe in pipes.values():
                self.runs.figures.setdefault(pipe.key, MappingFigures())
                if pipe.current_state == "RUNNING":
                    self.runs.start(pipe, self.state_reasons)
            raise

    def _load(self) -> None:
        saved = pipe_store.load(self.directory / "pipes.json")
        if saved is None:
            return
        pipes, state_reasons = saved
        for pipe in pipes:
            self.pipes[pipe.key] = pipe
            self.runs.figures[pipe.key] = MappingFigures()
        self.state_reasons.update(state_reasons)
        self.runs.checkpoints.load()

    def close(self) -> None:
        for pipe in list(self.pipes.values()):
            self.runs.stop(pipe)

    def reset(self) -> None:
        self.close()
        for table in (self.pipes, self.state_reasons):
            table.clear()
        self.runs.reset()
        shutil.rmtree(self.directory, ignore_errors=True)


def _merged(saved: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """UpdatePipe's SourceParameters over the pipe's: each group's members replaced, StartingPosition kept."""
    merged = dict(saved)
    for group, value in update.items():
        merged[group] = (
            dict(saved.get(group) or {}, **value) if isinstance(value, dict) and group != "FilterCriteria" else value
        )
    return merged
