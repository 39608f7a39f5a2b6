"""The Emulator's components that some emulators never use, made (and their modules loaded) by their first use, so
that a plain DynamoDB test loads nothing else: the functions (their registry and its durable channel, the invoker,
the asynchronous invocations), S3's and SNS's pushes (notifications/), EventBridge's rules' deliveries (eventbridge/,
and its pipes, made when EventBridge first asks), global tables' replication (global_tables/), the event source
mappings' registry (triggers/: with it the pollers and moto's SQS, and its durable channel) and CloudFormation's
stacks. A durable emulator makes them all at once, before recovery, where its state directory holds anything (any of
them may have state there), and on a new or empty one by their first use, as in memory: each channel then keeps its
place in the snapshot's order (a Reserved one holds it until the component is made and registers its own); a
component made once the emulator has started starts as it is made. Until a
push comes, moto's S3, SNS and EventBridge pushes are told to Eddy through stand-ins that make the notifications or
EventBridge by the first one. Part of the composition root (engine.py's Emulator is a DeferredComponents): each is
built with the collaborators it uses, as the Emulator builds the others, only later.

    emulator.triggers          # made now, if no mapping was created or recovered before
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator import moto_seam
from eddy.emulator.moto_seam import notifications as notifications_seam

if TYPE_CHECKING:
    from eddy.emulator.cloudformation.service import CloudFormation
    from eddy.emulator.clock import Clock
    from eddy.emulator.eventbridge.service import EventBridge
    from eddy.emulator.functions.async_invocation.queue import AsyncInvocations
    from eddy.emulator.functions.durable import FunctionsChannel
    from eddy.emulator.functions.invocation import Invoker
    from eddy.emulator.functions.function import Function
    from eddy.emulator.functions.registry import FunctionRegistry
    from eddy.emulator.global_tables.replication import Replication
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.settings import Settings
    from eddy.emulator.storage.channels import DurableLog
    from eddy.emulator.storage.disk import DiskState
    from eddy.emulator.streams.capture import Capture
    from eddy.emulator.notifications.notifications import Notifications
    from eddy.emulator.pipes.pipe_registry import Pipes
    from eddy.emulator.streams.shards import SequenceNumbers
    from eddy.emulator.streams.stream_registry import StreamRegistry
    from eddy.emulator.triggers.durable import MappingsChannel
    from eddy.emulator.triggers.mapping_registry import Triggers

#: moto's EventBridge seam (eventbridge/service.py's EVENTS_SEAM, named here without loading that module)
EVENTS_SEAM = "eddy.emulator.moto_seam.eventbridge.rules"
#: the durable channels of the components made here, by their names (named without loading their modules): a durable
#: emulator holds their places in the snapshot's order until each is made (engine.py's _register_channels)
SEQUENCER_CHANNEL = "s3_sequencer"  # notifications/s3_events.py's SequencerChannel
FUNCTIONS_CHANNEL = "functions"  # functions/durable/'s FunctionsChannel
ASYNC_INVOCATIONS_CHANNEL = "async_event"  # functions/async_invocation/queue.py's queue
RULE_DELIVERIES_CHANNEL = "rule_delivery"  # eventbridge/deliveries.py's queue
HTTP_DELIVERIES_CHANNEL = "sns_http_delivery"  # notifications/http_endpoints.py's queue


class DeferredComponents:
    """What the Emulator has that these use (its __init__ sets them)."""

    kernel: Kernel
    lock: threading.RLock
    state_dir: Path
    clock: Clock
    activity: threading.Condition
    settings: Settings
    persistence: DurableLog
    capture: Capture
    disk: DiskState
    streams: StreamRegistry
    sequence_numbers: SequenceNumbers
    aws_client: Callable[[str, str], Any]
    _fsync: bool
    _started: bool  # made from now on, a component starts as it is made
    _stacks_file: Path
    _replication: Replication | None  # made anew after a reset (engine.py's _init_state)
    _replica_deleted: Callable[[str, str, str], None]

    def _no_deferred_components(self) -> None:
        self._making = threading.RLock()  # held while one is made (not the engine's lock: pollers use these)
        self._triggers: Triggers | None = None
        self._cloudformation: CloudFormation | None = None
        self._functions: FunctionRegistry | None = None
        self._function_channel: FunctionsChannel | None = None
        self._invoker: Invoker | None = None
        self._async_invocations: AsyncInvocations | None = None
        self._notifications: Notifications | None = None
        self._eventbridge: EventBridge | None = None
        self._mapping_channel: MappingsChannel | None = None
        #: what the doors give function workers, made or not: their environment (AWS_ENDPOINT_URL), and what runs
        #: before one starts (the in-process door's loopback server)
        self.worker_environment: dict[str, str] = {}
        self.before_worker_start: Callable[[], None] | None = None

    def _make_deferred_components(self) -> None:
        """Every one of them now (a durable emulator, before its recovery; CloudFormation reads its own file)."""
        for name in ("notifications", "eventbridge", "mapping_channel", "replication"):
            getattr(self, name)

    @property
    def functions(self) -> FunctionRegistry:
        """Every function (kept across resets: reset() empties it), durable through its channel's entries."""
        if self._functions is None:
            with self._making:
                if self._functions is None:
                    from eddy.emulator.functions.durable import FunctionsChannel
                    from eddy.emulator.functions.registry import FunctionRegistry

                    functions = FunctionRegistry(self.state_dir / "functions")
                    self._function_channel = FunctionsChannel(
                        self.persistence,
                        functions,
                        self.state_dir,
                        self.lock,
                        lambda failure: self.disk.refused(failure, self.clock.now()),
                    )
                    self.persistence.register(self._function_channel)  # in the place its name holds
                    self._functions = functions
        return self._functions

    @property
    def function_channel(self) -> FunctionsChannel:
        if self._function_channel is None:
            self.functions
        assert self._function_channel is not None
        return self._function_channel

    @property
    def invoker(self) -> Invoker:
        """What runs functions (callables in threads, code in workers), writing their logs through the functions'
        channel."""
        if self._invoker is None:
            with self._making:
                if self._invoker is None:
                    from eddy.emulator.functions.invocation import Invoker

                    invoker = Invoker(now=self.clock.now)
                    invoker.logs.enabled = self.settings.function_logs
                    invoker.logs.sink = self.function_channel.write_logs
                    invoker.worker_environment = self.worker_environment
                    invoker.before_worker_start = self._before_worker_start
                    invoker.role_credentials = self._role_session
                    # a code folder goes once no worker runs in it (an update completed, a function deleted)
                    self.functions.when_unused = invoker.environments.when_unused
                    self._invoker = invoker
        return self._invoker

    def _role_session(self, function: Function) -> dict[str, str]:
        from eddy.emulator.functions.runtimes.credentials import role_session  # loaded with the first worker

        return role_session(self.kernel.aws_client, function, self.disk)

    def new_role_session(self, region: str, role: str, function_name: str) -> dict[str, str] | None:
        """A session of the execution role `role` for a function being created, to keep with it (None: refused,
        the disk refusing writes: a worker makes one)."""
        from eddy.emulator.functions.runtimes.credentials import new_role_session

        return new_role_session(self.kernel.aws_client, region, role, function_name, self.disk) or None

    def _before_worker_start(self) -> None:
        if self.before_worker_start is not None:
            self.before_worker_start()

    @property
    def async_invocations(self) -> AsyncInvocations:
        """Every function's asynchronous invocation queue (Invoke's Event type, S3, SNS, EventBridge, Pipes)."""
        if self._async_invocations is None:
            with self._making:
                if self._async_invocations is None:
                    from eddy.emulator.functions.async_invocation.queue import AsyncInvocations

                    invocations = AsyncInvocations(self.kernel, self.persistence, self.functions, self.invoker)
                    self.invoker.released = invocations.execution_freed  # a free execution: throttled events' turn
                    self.persistence.register(invocations.channel)
                    if self._started:
                        invocations.start()
                    self._async_invocations = invocations
        return self._async_invocations

    @property
    def notifications(self) -> Notifications:
        """S3's and SNS's pushes to functions and endpoints (started with the asynchronous invocations)."""
        if self._notifications is None:
            with self._making:
                if self._notifications is None:
                    from eddy.emulator.notifications.notifications import Notifications

                    notifications = Notifications(
                        self.clock.now,
                        self.activity,
                        self.functions,
                        self.async_invocations,
                        self.kernel.aws_client,
                        self.persistence,
                        self.settings.sns_retry_jitter,
                        self.function_channel.write_logs,
                    )
                    self.persistence.register(notifications.channel, notifications.http_endpoints.channel)
                    if self._started:
                        notifications.start()
                    self._notifications = notifications
        return self._notifications

    @property
    def eventbridge(self) -> EventBridge:
        """Rules' deliveries and Pipes (made by their first use): started, closed, reset by triggers if made."""
        if self._eventbridge is None:
            with self._making:
                if self._eventbridge is None:
                    from eddy.emulator.eventbridge.service import EventBridge

                    eventbridge = EventBridge(
                        self.kernel,
                        self.persistence,
                        self.functions,
                        self.async_invocations,
                        self.state_dir,
                        self._make_pipes,
                    )
                    self.persistence.register(eventbridge.deliveries.channel)
                    if self._started:
                        eventbridge.start()
                    self._eventbridge = eventbridge
        return self._eventbridge

    @property
    def replication(self) -> Replication:
        """Global tables: replica groups, their replication (a reset makes the next one)."""
        if self._replication is None:
            with self._making:
                if self._replication is None:
                    from eddy.emulator.global_tables.replication import Replication

                    replication = Replication(
                        self.kernel,
                        self.capture,
                        self.disk,
                        self.streams,
                        self._replica_deleted,
                        self.state_dir,
                        self.persistence,
                        fsync=self._fsync,
                    )
                    if self._started:
                        replication.start()
                    self._replication = replication
        return self._replication

    def replica_group(self, table: tuple[str, str, str | None], settled: bool = False) -> Any:
        """The replica group (a global table) `table` (account, region, name) is in, or None, without making
        replication where it was never made; `settled`: replicas' transitions settled to now first (lock held)."""
        if self._replication is None:
            return None
        if settled:
            self._replication.settle()
        return self._replication.groups.of(table)

    def _replicate(self, stream: Any, records: list[Any]) -> None:
        """A commit's records, to global tables' replication if it was made (lock held)."""
        if self._replication is not None:
            self._replication.on_records(stream, records)

    @property
    def mapping_channel(self) -> MappingsChannel:
        """The mappings' and pipes' durable channel (triggers/durable.py)."""
        if self._mapping_channel is None:
            with self._making:
                if self._mapping_channel is None:
                    from eddy.emulator.triggers.durable import MappingsChannel

                    self._mapping_channel = MappingsChannel(
                        self.persistence, lambda: self.triggers, lambda: self.mappings_made
                    )
        return self._mapping_channel

    def close_async_invocations(self) -> None:
        """Start no more asynchronous invocations and let those running finish (none if they were never made)."""
        if self._async_invocations is not None:
            self._async_invocations.close()

    def _activate_pushes(self) -> None:
        """moto's pushes (S3's and SNS's notifications, EventBridge rules' targets) are Eddy's from now on: told to
        the components made, or to stand-ins whose first push makes them."""
        if self._notifications is not None:
            self._notifications.activate()
        else:
            notifications_seam.activate(_MadeOnFirstPush(lambda: self.notifications))  # type: ignore[arg-type]
        if self._eventbridge is not None:
            self._eventbridge.activate()
        else:
            moto_seam.activate(
                EVENTS_SEAM, self.clock.now, lambda rule, event: self.eventbridge.rules.deliver(rule, event)
            )

    def _deactivate_pushes(self) -> None:
        """moto's S3 and SNS pushes are moto's again (EventBridge's: close_triggers)."""
        if self._notifications is not None:
            self._notifications.stop()
            return
        notifications_seam.deactivate()
        if self._async_invocations is not None:
            self._async_invocations.close()

    @property
    def triggers(self) -> Triggers:
        """Event source mappings (triggers/), made by their first use: a mapping created or recovered, wait_idle."""
        with self.lock:
            if self._triggers is None:
                from eddy.emulator.triggers.mapping_registry import Triggers

                self._triggers = Triggers(
                    self.kernel,
                    self.state_dir,
                    streams=self.streams,
                    sequence_numbers=self.sequence_numbers,
                    functions=self.functions,
                    invoker=self.invoker,
                    journal=self.mapping_channel,
                    eventbridge=self.eventbridge,
                    async_invocations=self.async_invocations,
                    http_deliveries=self.notifications.http_endpoints,
                )
            return self._triggers

    def _make_pipes(self) -> Pipes:
        """Every pipe (pipes/), made when EventBridge first asks for them (eventbridge/service.py); a pipe's stream is
        found in the stream registry of the moment (a reset makes a new one), its start position by the event source
        mappings' rule."""
        from eddy.emulator.pipes.pipe_registry import Pipes
        from eddy.emulator.pipes.targets import PipeTargets

        targets = PipeTargets(self.functions, self.invoker, self.async_invocations, self.kernel.aws_client)
        return Pipes(
            self.kernel,
            self.mapping_channel,
            targets,
            self.state_dir,
            find_stream=lambda arn: self.streams.find(arn),  # the registry of the moment (reset makes a new one)
            start_position=lambda source, position, timestamp: self.triggers._start_position(
                source, position, timestamp
            ),
        )

    @property
    def mappings_made(self) -> int:  # how many event source mappings there are, without making their registry
        return len(self._triggers.mappings) if self._triggers is not None else 0

    @property
    def cloudformation(self) -> CloudFormation:
        """CloudFormation's stacks (made through Eddy's APIs: aws_client), read from their file by their first use."""
        with self.lock:
            if self._cloudformation is None:
                from eddy.emulator.cloudformation.resource_types.custom_resource_calls import CustomResourceCalls
                from eddy.emulator.cloudformation.service import CloudFormation

                self._cloudformation = CloudFormation(
                    self.aws_client,
                    self.clock.now,
                    self._stacks_file,
                    CustomResourceCalls(
                        self._invoke_for_stack,
                        lambda topic, region, message: self.aws_client("sns", region).publish(
                            TopicArn=topic, Message=message
                        ),
                        self.functions_endpoint,
                        self.clock.now,
                        self.clock.on_advance,
                    ),
                )
            return self._cloudformation

    def _invoke_for_stack(self, name: str, account_id: str, region: str, event: dict[str, Any]) -> str | None:
        """A custom resource's function invoked for CloudFormation: None when it returned, else its error."""
        with self.lock:
            function = self.functions.get(name, account_id, region)
        result = self.invoker.invoke(function, event, source="CloudFormation")
        return None if result.error is None else str(result.error)

    def functions_endpoint(self) -> str:
        """Where a function's code reaches Eddy (the in-process door starts its loopback server for it)."""
        self._before_worker_start()
        return self.worker_environment.get("AWS_ENDPOINT_URL") or "http://localhost:4566"


class _MadeOnFirstPush:
    """What moto's S3 and SNS pushes are told to until one comes: the first makes the notifications (their
    modules loaded then), which take its place as they start."""

    def __init__(self, make: Callable[[], Notifications]) -> None:
        self._make = make

    def __getattr__(self, name: str) -> Any:
        return getattr(self._make(), name)
