"""The Emulator's components that some servers never use, made (and their modules loaded) by their first use: the
event source mappings' registry (triggers/: with it the pollers and moto's SQS), EventBridge's pipes (pipes/, made
when EventBridge first asks) and CloudFormation's stacks. Part of
the composition root (engine.py's Emulator is a DeferredComponents): each is built with the collaborators it uses,
as the Emulator builds the others, only later.

    emulator.triggers          # made now, if no mapping was created or recovered before
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from eddy.emulator.cloudformation.service import CloudFormation
    from eddy.emulator.clock import Clock
    from eddy.emulator.eventbridge.service import EventBridge
    from eddy.emulator.functions.async_invocations import AsyncInvocations
    from eddy.emulator.functions.invocation import Invoker
    from eddy.emulator.functions.registry import FunctionRegistry
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.notifications.notifications import Notifications
    from eddy.emulator.pipes.pipe_registry import Pipes
    from eddy.emulator.streams.shards import SequenceNumbers
    from eddy.emulator.streams.stream_registry import StreamRegistry
    from eddy.emulator.triggers.durable import MappingsChannel
    from eddy.emulator.triggers.mapping_registry import Triggers


class DeferredComponents:
    """What the Emulator has that these use (its __init__ sets them)."""

    kernel: Kernel
    lock: threading.RLock
    state_dir: Path
    clock: Clock
    mapping_channel: MappingsChannel
    streams: StreamRegistry
    sequence_numbers: SequenceNumbers
    functions: FunctionRegistry
    invoker: Invoker
    async_invocations: AsyncInvocations
    notifications: Notifications
    eventbridge: EventBridge
    aws_client: Callable[[str, str], Any]
    _triggers: Triggers | None
    _cloudformation: CloudFormation | None
    _stacks_file: Path

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
        if self.invoker.before_worker_start is not None:
            self.invoker.before_worker_start()
        return self.invoker.worker_environment.get("AWS_ENDPOINT_URL") or "http://localhost:4566"
