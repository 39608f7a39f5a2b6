"""Triggers: every event source mapping, the runner of each enabled one and their figures (wait_idle and
assert_delivered over them: delivery_waits.py).

Mappings are declared, not run, by CreateEventSourceMapping; an enabled mapping has a runner (pollers/: a
MappingRunner that follows its stream, or a QueueRunner) sending to its function (senders.py). Disabling, updating or
deleting a mapping stops its runner after the batch in flight; enabling starts one again from the checkpoints.

The Lambda API's answers are AWS's as recorded (LocalStack's AWS-validated snapshots,
test_lambda_integration_dynamodbstreams.snapshot.json): State "Disabling" (or "Enabling") when an update turns a
mapping off (or on); what differs by source is in stream_mappings.py and sqs_mappings.py.

The registry is built by the composition root (deferred_components.py) with what it uses: the kernel (clock, lock and
`activity`, aws_client), the stream registry and sequence numbers (a mapping's source and where it starts), the
function registry and invoker (its sender), the journal that writes mappings and queue changes down (durable.py's
channel), and what wait_idle waits for besides mappings (EventBridge's pipes and rules, started, closed and reset with
the mappings, and the asynchronous invocations).
"""

from __future__ import annotations

import json

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from eddy.emulator.triggers.checkpoints import Checkpoints
from eddy.emulator.triggers.delivery_waits import AsynchronousInvocations, DeliveryWaits, PendingPipesAndRules
from eddy.emulator.errors import (
    FunctionNotFoundException,
    InvalidParameterValueException,
)
from eddy.emulator.functions.function import checked_tags
from eddy.emulator.kernel import Kernel
from eddy.emulator.kinesis.sources import find_source
from eddy.emulator.triggers.event_source_mappings import UPDATABLE, EventSourceMapping, apply_parameters
from eddy.emulator.triggers.failures import MappingFailures
from eddy.emulator.triggers.filters import validate_filter_criteria
from eddy.emulator.triggers.mapping_figures import MappingFigures
from eddy.emulator.triggers.pollers.queue_pollers import QueueRunner
from eddy.emulator.triggers.pollers.sources import QueueJournal, QueueSource, dynamodb_source
from eddy.emulator.triggers.pollers.stream_pollers import MappingRunner
from eddy.emulator.triggers import sqs_mappings
from eddy.emulator.triggers.senders import FunctionSender
from eddy.emulator.triggers.stream_mappings import USER_ACTION, create_stream_mapping, refuse_table_arn, start_position

if TYPE_CHECKING:
    from eddy.emulator.functions.invocation import Invoker
    from eddy.emulator.functions.registry import FunctionRegistry
    from eddy.emulator.streams.shards import SequenceNumbers
    from eddy.emulator.streams.stream_registry import StreamRegistry


class MappingJournal(QueueJournal, Protocol):
    """Where mappings are written down (durable.py's MappingsChannel), and the changes their queue pollers make."""

    def mapping_saved(self, mapping: EventSourceMapping, start_position: int) -> None: ...

    def mapping_deleted(self, uuid: str) -> None: ...


class PipesAndRules(PendingPipesAndRules, Protocol):
    """EventBridge (eventbridge/service.py): its pipes run on these pollers, started, closed and reset with them."""

    def start(self) -> None: ...

    def close(self) -> None: ...

    def reset(self) -> None: ...


class Triggers:
    def __init__(
        self,
        kernel: Kernel,
        directory: Path,
        *,
        streams: StreamRegistry,
        sequence_numbers: SequenceNumbers,
        functions: FunctionRegistry,
        invoker: Invoker,
        journal: MappingJournal,
        eventbridge: PipesAndRules,
        async_invocations: AsynchronousInvocations,
        http_deliveries: AsynchronousInvocations,
    ) -> None:
        self.kernel = kernel
        self.streams = streams
        self.sequence_numbers = sequence_numbers
        self.functions = functions
        self.invoker = invoker
        self.journal = journal
        self.eventbridge = eventbridge
        self.checkpoints = Checkpoints(directory / "checkpoints", on_disk=journal.durable)
        self.mappings: dict[str, EventSourceMapping] = {}
        self.runners: dict[str, MappingRunner | QueueRunner] = {}
        self.figures: dict[str, MappingFigures] = {}
        #: what failed since each mapping was created or since the last wait (wait_idle's report)
        self.failures: dict[str, MappingFailures] = {}
        #: for LATEST: the last sequence number that existed when the mapping was created
        self.start_positions: dict[str, int] = {}
        self.waits = DeliveryWaits(kernel, self, eventbridge, async_invocations, http_deliveries)

    # -- the Lambda API's operations --------------------------------------------------------------------

    def create(self, params: dict[str, Any], account_id: str, region: str) -> dict[str, Any]:
        kernel = self.kernel
        source = params.get("EventSourceArn")
        if not isinstance(source, str) or not source:  # Lambda's words (AWS-recorded: test_lambda_api.snapshot.json,
            # TestLambdaEventSourceMappings::test_event_source_mapping_exceptions, "create_no_event_source_arn")
            raise InvalidParameterValueException("Unrecognized event source.")
        refuse_table_arn(source)
        name = params.get("FunctionName")
        if not isinstance(name, str) or not name:
            raise InvalidParameterValueException("FunctionName is required")
        tags = checked_tags(params["Tags"]) if params.get("Tags") is not None else {}
        if sqs_mappings.is_queue_arn(source):
            sqs_mappings.refuse_stream_only(params)
            try:  # the function before the queue ("create_unknown_params")
                self.functions.qualified_target(name, account_id, region)
            except FunctionNotFoundException:
                raise InvalidParameterValueException("Function does not exist") from None
            with kernel.activity:
                mapping = sqs_mappings.create_queue_mapping(
                    params,
                    account_id,
                    region,
                    functions=self.functions,
                    mappings=self.mappings.values(),
                    now=kernel.clock.now(),
                )
                return self._created(mapping, 0, tags)
        with kernel.activity:
            stream = self._source(source)
            if stream is None:
                raise InvalidParameterValueException(f"Stream not found: {source}")
            function, function_arn = self.functions.qualified_target(name, account_id, region)
            mapping = create_stream_mapping(
                params,
                account_id,
                region,
                stream=stream,
                function_name=function.name,
                function_arn=function_arn,
                mappings=self.mappings.values(),
                now=kernel.clock.now(),
            )
            timestamp = mapping.starting_position_timestamp
            return self._created(mapping, self._start_position(stream, mapping.starting_position, timestamp), tags)

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
        self.journal.mapping_saved(mapping, start_position)
        if mapping.enabled:  # once written down: a mapping whose request the disk refused never runs
            self.journal.after_commit(lambda: self._start(mapping))
        return response

    def get(self, uuid: str) -> EventSourceMapping:
        mapping = self.mappings.get(uuid)
        if mapping is None:
            # AWS's words, without the request's details some older answers added (AWS-recorded: LocalStack's
            # test_lambda_api.snapshot.json, TestLambdaEventSourceMappings::test_event_source_mapping_exceptions)
            raise FunctionNotFoundException("The resource you requested does not exist.")
        return mapping

    def list(
        self, *, event_source_arn: str | None, function_name: str | None, account_id: str, region: str
    ) -> list[EventSourceMapping]:
        """The mappings of a source and of a function (by its name or unqualified ARN: all of its mappings; by a
        qualified one: those invoking that version or alias)."""
        function_arn = None
        if function_name:  # a function that does not exist has no mappings (AWS-recorded: no refusal,
            # test_event_source_mapping_exceptions: "list doesn't care about the resource filters existing")
            try:
                function_arn = self.functions.qualified_target(function_name, account_id, region)[1]
            except FunctionNotFoundException:
                return []
        return [
            m
            for m in self.mappings.values()
            if (event_source_arn is None or m.event_source_arn == event_source_arn)
            and (function_arn is None or function_arn in (m.function_arn, m.function_arn.rsplit(":", 1)[0]))
        ]

    def update(self, uuid: str, params: dict[str, Any]) -> dict[str, Any]:
        """Validate the whole update on a copy of the mapping first: a refused update changes nothing and leaves the
        runner running, as on AWS; an accepted one stops the runner after the batch in flight, applies, starts again."""
        mapping = self.get(uuid)
        unknown = set(params) - (sqs_mappings.QUEUE_UPDATABLE if mapping.is_queue else UPDATABLE) - {"UUID"}
        if unknown:
            raise InvalidParameterValueException(
                f"Cannot update {', '.join(sorted(unknown))} of an event source mapping"
            )
        with self.kernel.activity:
            configuration = dict(vars(mapping))
            updated = EventSourceMapping(**configuration)
            function = None
            if params.get("FunctionName"):
                function, updated.function_arn = self.functions.qualified_target(
                    params["FunctionName"], mapping.account_id, mapping.region
                )
            if mapping.is_queue:
                sqs_mappings.update_queue_mapping(updated, params, function)
            else:
                apply_parameters(updated, params)
            # what the update sets (the runner keeps writing LastProcessingResult until it stops)
            changes = {name: value for name, value in vars(updated).items() if value is not configuration[name]}
        was_enabled = mapping.enabled
        self._stop(mapping)
        with self.kernel.activity:
            vars(mapping).update(changes)
            mapping.last_modified = self.kernel.clock.now()
            mapping.state_transition_reason = USER_ACTION
            self.failures[uuid].label = mapping.label
            response = mapping.to_dict()
            response["State"] = (
                "Disabling"
                if was_enabled and not mapping.enabled
                else "Enabling"
                if mapping.enabled and not was_enabled
                else "Updating"
            )
            mapping.state = "Enabled" if mapping.enabled else "Disabled"
            self.journal.mapping_saved(mapping, self.start_positions.get(uuid, 0))
        if mapping.enabled:  # once written down (refused, the mapping is put back as it was, and runs as it did)
            self.journal.after_commit(lambda: self._start(mapping))
        return response

    def delete(self, uuid: str) -> dict[str, Any]:
        mapping = self.get(uuid)
        self._stop(mapping)
        with self.kernel.activity:
            del self.mappings[uuid]
            self.figures.pop(uuid, None)
            self.failures.pop(uuid, None)
            self.start_positions.pop(uuid, None)
            self.journal.mapping_deleted(uuid)
            self.journal.after_commit(lambda: self.checkpoints.forget(uuid))  # kept if the delete is refused
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

    def put_back(self, uuid: str, logged: tuple[dict[str, Any], int] | None) -> None:
        """A mapping as the log holds it, after a change to it the disk refused (its channel's undo): not made if
        the log holds none, else as it was, running again if enabled (its runner started only once a change is
        written down, so none runs of the change refused)."""
        with self.kernel.activity:
            if logged is None:
                for kept in (self.mappings, self.figures, self.failures, self.start_positions):
                    kept.pop(uuid, None)
                return
            self.restore(json.loads(json.dumps(logged[0])), logged[1])
            mapping = self.mappings[uuid]
            if mapping.enabled and uuid not in self.runners:
                self._start(mapping)

    def start_all(self) -> None:
        """Start the runner of every enabled mapping (after a restart)."""
        for mapping in list(self.mappings.values()):
            if mapping.enabled and mapping.uuid not in self.runners:
                self._start(mapping)
        self.eventbridge.start()  # EventBridge rules and Pipes (eventbridge/service.py)

    # -- running ----------------------------------------------------------------------------------------

    def _start(self, mapping: EventSourceMapping) -> None:
        kernel = self.kernel
        self.invoker.prepare()  # what the first invocation loads, loaded before a write can wait for it
        with kernel.activity:
            sender = FunctionSender(self.functions, self.invoker, mapping)
            figures = self.figures[mapping.uuid]
            if mapping.is_queue:
                source = QueueSource(mapping.event_source_arn, kernel.lock, self.journal)
                runner: MappingRunner | QueueRunner = QueueRunner(
                    kernel, mapping, source, sender, figures=figures, failures=self.failures.get(mapping.uuid)
                )
                self.runners[mapping.uuid] = runner
                runner.start()
                return
            stream = self._source(mapping.event_source_arn)
            if stream is None:
                mapping.last_processing_result = "PROBLEM: the stream no longer exists"
                return
            failures = self.failures.setdefault(mapping.uuid, MappingFailures(mapping.label))
            runner = MappingRunner(
                kernel,
                mapping,
                stream,
                sender,
                checkpoints=self.checkpoints,
                start_position=self.start_positions.get(mapping.uuid, 0),
                figures=figures,
                failures=failures,
            )
            self.runners[mapping.uuid] = runner
        runner.start()

    def _source(self, arn: str) -> Any:
        """The DynamoDB stream or Kinesis data stream an ARN names, or None."""
        return dynamodb_source(self.streams.find(arn)) or find_source(arn)

    def _start_position(self, stream: Any, position: str, timestamp: float | None) -> int:
        """The sequence number after which a new mapping (or pipe) starts (0: the trim horizon)."""
        return start_position(stream, position, timestamp, self.sequence_numbers.last)

    def _stop(self, mapping: EventSourceMapping) -> None:
        runner = self.runners.pop(mapping.uuid, None)
        if runner is not None:
            runner.stop()

    def wait_idle(self, timeout: float) -> dict[str, Any]:
        """delivery_waits.DeliveryWaits.wait_idle, over these mappings."""
        return self.waits.wait_idle(timeout)

    def assert_delivered(self, timeout: float) -> dict[str, Any]:
        """delivery_waits.DeliveryWaits.assert_delivered, over these mappings."""
        return self.waits.assert_delivered(timeout)

    def figures_of(self, uuid: str | None = None) -> dict[str, Any]:
        with self.kernel.activity:
            chosen = [self.get(uuid)] if uuid else list(self.mappings.values())
            return {
                "EventSourceMappings": [
                    dict(
                        self.figures[m.uuid].to_dict(),
                        UUID=m.uuid,
                        FunctionArn=m.function_arn,
                        EventSourceArn=m.event_source_arn,
                        State=m.state,
                    )
                    for m in chosen
                ]
            }

    def close(self) -> None:
        for mapping in list(self.mappings.values()):
            self._stop(mapping)
        self.eventbridge.close()

    def reset(self) -> None:
        self.close()
        self.mappings.clear()
        self.figures.clear()
        self.failures.clear()
        self.start_positions.clear()
        self.checkpoints.reset()
        self.eventbridge.reset()
