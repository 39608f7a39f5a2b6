"""Triggers: every event source mapping, the runner of each enabled one, their figures, wait_idle and
assert_delivered.

Mappings are declared, not run, by CreateEventSourceMapping; an enabled mapping has a runner (pollers/: a
MappingRunner that follows its stream, or a QueueRunner) sending to its function (senders.py). Disabling, updating or
deleting a mapping stops its runner after the batch in flight; enabling starts one again from the checkpoints.

The Lambda API's answers are AWS's as recorded (LocalStack's AWS-validated snapshots,
test_lambda_integration_dynamodbstreams.snapshot.json): StateTransitionReason "User action" for DynamoDB and
Kinesis sources, State "Disabling" (or "Enabling") when an update turns a mapping off (or on), and the duplicate
mapping's ResourceConflictException wording.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eddy.emulator.triggers.checkpoints import Checkpoints
from eddy.emulator.errors import (
    FunctionNotFoundException,
    InvalidParameterValueException,
    ResourceConflictException,
    ResourceNotFoundException,
    ValidationException,
)
from eddy.emulator.functions.registry import checked_tags
from eddy.emulator.kinesis.sources import KinesisSource, find_source
from eddy.emulator.triggers.event_source_mappings import KINESIS_STARTING_POSITIONS, STARTING_POSITIONS, UPDATABLE, EventSourceMapping, apply_parameters, new_uuid
from eddy.emulator.triggers.failures import MappingFailures, NotDeliveredError, not_delivered_message
from eddy.emulator.triggers.filters import validate_filter_criteria
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers.queue_pollers import QueueRunner
from eddy.emulator.triggers.pollers.sources import QueueSource
from eddy.emulator.triggers.pollers.stream_pollers import MappingRunner
from eddy.emulator.triggers import sqs_mappings
from eddy.emulator.triggers.senders import FunctionSender

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator

TABLE_ARN = re.compile(r"^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[^/]+$")
#: StateTransitionReason of a mapping a user created or changed, for DynamoDB and Kinesis sources (SQS's is
#: USER_INITIATED)
USER_ACTION = "User action"


class Triggers:
    def __init__(self, emulator: "Emulator", directory: Path) -> None:
        self.emulator = emulator
        self.checkpoints = Checkpoints(directory / "checkpoints")
        self.mappings: dict[str, EventSourceMapping] = {}
        self.runners: dict[str, MappingRunner] = {}
        self.figures: dict[str, MappingFigures] = {}
        #: what failed since each mapping was created or since the last wait (wait_idle's report)
        self.failures: dict[str, MappingFailures] = {}
        #: for LATEST: the last sequence number that existed when the mapping was created
        self.start_positions: dict[str, int] = {}

    # -- the Lambda API's operations --------------------------------------------------------------------

    def create(self, params: dict[str, Any], account_id: str, region: str) -> dict[str, Any]:
        emulator = self.emulator
        source = params.get("EventSourceArn")
        if not isinstance(source, str) or not source:
            raise InvalidParameterValueException("EventSourceArn is required")
        if TABLE_ARN.match(source):
            raise InvalidParameterValueException(
                f"{source} is a table ARN: an event source mapping reads a stream, give the table's LatestStreamArn")
        name = params.get("FunctionName")
        if not isinstance(name, str) or not name:
            raise InvalidParameterValueException("FunctionName is required")
        tags = checked_tags(params["Tags"]) if params.get("Tags") is not None else {}
        if sqs_mappings.is_queue_arn(source):
            with emulator.activity:
                mapping = sqs_mappings.create_queue_mapping(params, account_id, region, functions=emulator.functions,
                                                            mappings=self.mappings.values(), now=emulator.clock.now())
                return self._created(mapping, 0, tags)
        with emulator.activity:
            stream = self._source(source)
            if stream is None:
                raise InvalidParameterValueException(f"Stream not found: {source}")
            function, function_arn = emulator.functions.qualified_target(name, account_id, region)
            kind = "Kinesis" if isinstance(stream, KinesisSource) else "DynamoDB"
            position = params.get("StartingPosition")
            allowed = KINESIS_STARTING_POSITIONS if kind == "Kinesis" else STARTING_POSITIONS
            if position not in allowed:
                raise InvalidParameterValueException(
                    f"StartingPosition must be {' or '.join(allowed)} for a {kind} stream, not {position!r}")
            timestamp = params.get("StartingPositionTimestamp")
            if position == "AT_TIMESTAMP" and (isinstance(timestamp, bool) or not isinstance(timestamp, (int, float))):
                raise InvalidParameterValueException("StartingPositionTimestamp is required for AT_TIMESTAMP")
            for existing in self.mappings.values():
                if existing.event_source_arn == stream.arn and existing.function_arn == function_arn:
                    raise ResourceConflictException(
                        f'The event source arn (" {stream.arn} ") and function (" {function.name} ") provided mapping '
                        f"already exists. Please update or delete the existing mapping with UUID {existing.uuid}")
            mapping = EventSourceMapping(uuid=new_uuid(), event_source_arn=stream.arn, function_arn=function_arn,
                                         account_id=account_id, region=region, starting_position=position,
                                         last_modified=emulator.clock.now(), state_transition_reason=USER_ACTION,
                                         starting_position_timestamp=timestamp if position == "AT_TIMESTAMP" else None)
            apply_parameters(mapping, params)
            return self._created(mapping, self._start_position(stream, position, timestamp), tags)

    def _created(self, mapping: EventSourceMapping, start_position: int, tags: dict[str, str]) -> dict[str, Any]:
        """Keep a new mapping (the emulator's lock held) and start it; the answer says "Creating", or "Disabled" for
        a queue mapping created with Enabled false (AWS-recorded: localstack's test_lambda_integration_sqs.snapshot.json,
        test_fifo_message_group_parallelism's create_esm_disabled)."""
        mapping.tags = tags
        self.mappings[mapping.uuid] = mapping
        self.figures[mapping.uuid] = MappingFigures()
        self.failures[mapping.uuid] = MappingFailures(mapping.label)
        self.start_positions[mapping.uuid] = start_position
        response = mapping.to_dict()
        response["State"] = "Disabled" if mapping.is_queue and not mapping.enabled else "Creating"
        mapping.state = "Enabled" if mapping.enabled else "Disabled"
        self.emulator.mapping_channel.mapping_saved(mapping, start_position)
        if mapping.enabled:
            self._start(mapping)
        return response

    def get(self, uuid: str) -> EventSourceMapping:
        mapping = self.mappings.get(uuid)
        if mapping is None:
            raise FunctionNotFoundException(f"The resource you requested does not exist. (Service: Lambda, Status Code: 404, UUID: {uuid})")
        return mapping

    def list(self, *, event_source_arn: str | None, function_name: str | None, account_id: str,
             region: str) -> list[EventSourceMapping]:
        """The mappings of a source and of a function (by its name or unqualified ARN: all of its mappings; by a
        qualified one: those invoking that version or alias)."""
        function_arn = None
        if function_name:
            function_arn = self.emulator.functions.qualified_target(function_name, account_id, region)[1]
        return [m for m in self.mappings.values()
                if (event_source_arn is None or m.event_source_arn == event_source_arn)
                and (function_arn is None or function_arn in (m.function_arn, m.function_arn.rsplit(":", 1)[0]))]

    def update(self, uuid: str, params: dict[str, Any]) -> dict[str, Any]:
        """Validate the whole update on a copy of the mapping first: a refused update changes nothing and leaves the
        runner running, as on AWS; an accepted one stops the runner after the batch in flight, applies, starts again."""
        mapping = self.get(uuid)
        unknown = set(params) - (sqs_mappings.QUEUE_UPDATABLE if mapping.is_queue else UPDATABLE) - {"UUID"}
        if unknown:
            raise InvalidParameterValueException(f"Cannot update {', '.join(sorted(unknown))} of an event source mapping")
        with self.emulator.activity:
            configuration = dict(vars(mapping))
            updated = EventSourceMapping(**configuration)
            function = None
            if params.get("FunctionName"):
                function, updated.function_arn = self.emulator.functions.qualified_target(
                    params["FunctionName"], mapping.account_id, mapping.region)
            if mapping.is_queue:
                sqs_mappings.update_queue_mapping(updated, params, function)
            else:
                apply_parameters(updated, params)
            # what the update sets (the runner keeps writing LastProcessingResult until it stops)
            changes = {name: value for name, value in vars(updated).items() if value is not configuration[name]}
        was_enabled = mapping.enabled
        self._stop(mapping)
        with self.emulator.activity:
            vars(mapping).update(changes)
            mapping.last_modified = self.emulator.clock.now()
            mapping.state_transition_reason = USER_ACTION
            self.failures[uuid].label = mapping.label
            response = mapping.to_dict()
            response["State"] = ("Disabling" if was_enabled and not mapping.enabled else
                                 "Enabling" if mapping.enabled and not was_enabled else "Updating")
            mapping.state = "Enabled" if mapping.enabled else "Disabled"
            self.emulator.mapping_channel.mapping_saved(mapping, self.start_positions.get(uuid, 0))
        if mapping.enabled:
            self._start(mapping)
        return response

    def delete(self, uuid: str) -> dict[str, Any]:
        mapping = self.get(uuid)
        self._stop(mapping)
        with self.emulator.activity:
            del self.mappings[uuid]
            self.figures.pop(uuid, None)
            self.failures.pop(uuid, None)
            self.start_positions.pop(uuid, None)
            self.checkpoints.forget(uuid)
            self.emulator.mapping_channel.mapping_deleted(uuid)
            response = mapping.to_dict()
            response["State"] = "Deleting"
        return response

    def restore(self, state: dict[str, Any], start_position: int) -> None:
        """A mapping as persistence recorded it (its runner starts with the emulator)."""
        mapping = EventSourceMapping(**state)
        if mapping.state_transition_reason == "USER_INITIATED":  # as Eddy before 2026-11 wrote it
            mapping.state_transition_reason = USER_ACTION
        mapping.filters = validate_filter_criteria(mapping.filter_criteria)
        self.mappings[mapping.uuid] = mapping
        self.figures.setdefault(mapping.uuid, MappingFigures())
        self.failures.setdefault(mapping.uuid, MappingFailures(mapping.label))
        self.start_positions[mapping.uuid] = start_position

    def start_all(self) -> None:
        """Start the runner of every enabled mapping (after a restart)."""
        for mapping in list(self.mappings.values()):
            if mapping.enabled and mapping.uuid not in self.runners:
                self._start(mapping)
        self.emulator.eventbridge.start()  # EventBridge rules and Pipes (eventbridge/service.py)

    # -- running ----------------------------------------------------------------------------------------

    def _start(self, mapping: EventSourceMapping) -> None:
        emulator = self.emulator
        with emulator.activity:
            sender = FunctionSender(emulator.functions, emulator.invoker, mapping)
            figures = self.figures[mapping.uuid]
            if mapping.is_queue:
                source = QueueSource(mapping.event_source_arn, emulator.lock, emulator.mapping_channel)
                runner: MappingRunner | QueueRunner = QueueRunner(
                    emulator.kernel, mapping, source, sender, figures=figures, failures=self.failures.get(mapping.uuid))
                self.runners[mapping.uuid] = runner
                runner.start()
                return
            stream = self._source(mapping.event_source_arn)
            if stream is None:
                mapping.last_processing_result = "PROBLEM: the stream no longer exists"
                return
            failures = self.failures.setdefault(mapping.uuid, MappingFailures(mapping.label))
            runner = MappingRunner(emulator.kernel, mapping, stream, sender, checkpoints=self.checkpoints,
                                   start_position=self.start_positions.get(mapping.uuid, 0), figures=figures,
                                   failures=failures)
            self.runners[mapping.uuid] = runner
        runner.start()

    def _source(self, arn: str) -> Any:
        """The DynamoDB stream or Kinesis data stream an ARN names, or None."""
        try:
            return self.emulator.streams.get(arn)
        except (ResourceNotFoundException, ValidationException):
            return find_source(arn)

    def _start_position(self, stream: Any, position: str, timestamp: float | None) -> int:
        """The sequence number after which a new mapping starts (0: the trim horizon)."""
        if position == "AT_TIMESTAMP":
            return stream.sequence_before(timestamp)
        if position != "LATEST":
            return 0
        return stream.last_sequence_number if isinstance(stream, KinesisSource) else self.emulator.sequence_numbers.last

    def _stop(self, mapping: EventSourceMapping) -> None:
        runner = self.runners.pop(mapping.uuid, None)
        if runner is not None:
            runner.stop()

    def wait_idle(self, timeout: float) -> dict[str, Any]:
        """Wait until every enabled mapping has processed every record it can reach and no asynchronous invocation
        is running or due; say which has not, and what failed since the last wait (or since each mapping was
        created): batches that failed, records discarded, asynchronous invocations given up on.

        An asynchronous invocation waiting for a retry later on the emulator's clock is pending (not idle) but not
        waited for: its entry says NextAttemptAt, where a test advances the clock to (functions/async_invocations.py)."""
        deadline = time.monotonic() + timeout
        activity = self.emulator.activity
        asynchronous = self.emulator.async_invocations
        with activity:
            while True:
                pending = [uuid for uuid, runner in self.runners.items() if not runner.caught_up()]
                pipes = self.emulator.eventbridge.pending()  # Pipes run on these pollers too; rules deliver later
                remaining = deadline - time.monotonic()
                if (not pending and not pipes and not asynchronous.busy()) or remaining <= 0:
                    break
                activity.wait(min(remaining, 0.25))
            waiting = asynchronous.pending_entries()
            failures = []
            for uuid, mapping_failures in self.failures.items():
                report = mapping_failures.take()
                if report is not None:
                    failures.append(dict(self._names(uuid), **report))
            failures += self.emulator.eventbridge.failure_reports()
            failures += asynchronous.take_failures()
            idle = not pending and not pipes and not waiting
            return {"Idle": idle, "Delivered": idle and not any(f["RecordsDiscarded"] for f in failures),
                    "Pending": [self._pending(uuid) for uuid in pending] + pipes + waiting,
                    "Failures": failures}

    def assert_delivered(self, timeout: float) -> dict[str, Any]:
        """wait_idle, then raise NotDeliveredError unless every record reached its function: none discarded
        since the last wait, none still pending after `timeout` seconds. Returns wait_idle's answer."""
        report = self.wait_idle(timeout)
        message = not_delivered_message(report, timeout)
        if message is not None:
            raise NotDeliveredError(message, report)
        return report

    def _names(self, uuid: str) -> dict[str, Any]:
        mapping = self.mappings[uuid]
        return {"UUID": uuid, "Mapping": mapping.label, "FunctionArn": mapping.function_arn,
                "EventSourceArn": mapping.event_source_arn}

    def _pending(self, uuid: str) -> dict[str, Any]:
        """A mapping that has not caught up (lock held): its last error, and the records it is retrying."""
        runner = self.runners[uuid]
        retrying = [{"ShardId": lane.shard.shard_id, "Attempts": lane.retrying["attempts"],
                     "NextAttemptAt": lane.retrying["next_at"],
                     "Records": [runner.stream.record_identity(r) for r in lane.retrying["records"]]}
                    for lanes in getattr(runner, "lanes", {}).values() for lane in lanes if lane.retrying is not None]
        return dict(self._names(uuid), LastProcessingResult=self.mappings[uuid].last_processing_result,
                    LastError=self.figures[uuid].last_error, Retrying=retrying)

    def figures_of(self, uuid: str | None = None) -> dict[str, Any]:
        with self.emulator.activity:
            chosen = [self.get(uuid)] if uuid else list(self.mappings.values())
            return {"EventSourceMappings": [
                dict(self.figures[m.uuid].to_dict(), UUID=m.uuid, FunctionArn=m.function_arn,
                     EventSourceArn=m.event_source_arn, State=m.state) for m in chosen]}

    def close(self) -> None:
        for mapping in list(self.mappings.values()):
            self._stop(mapping)
        self.emulator.eventbridge.close()

    def reset(self) -> None:
        self.close()
        self.mappings.clear()
        self.figures.clear()
        self.failures.clear()
        self.start_positions.clear()
        self.checkpoints.reset()
        self.emulator.eventbridge.reset()
