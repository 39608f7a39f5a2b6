"""EventBridge in Eddy: rules' deliveries (eventbridge/rules.py, through moto_seam/eventbridge/rules.py) and Pipes (emulator/pipes/).

The rules' matched events are delivered by eventbridge/deliveries.py (written down before PutEvents answers, sent in
the order they were put by one thread, PutEvents answering first as on AWS); the deliveries not done count for
wait_idle. An event a target cannot take goes to the target's dead-letter queue (eventbridge/dead_letters.py), is
logged at WARNING, kept as the last error and reported once in wait_idle's Failures.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.eventbridge.dead_letters import Undelivered, send_to_dead_letter_queue
from eddy.emulator.eventbridge.deliveries import Deliveries
from eddy.emulator.eventbridge.rules import RuleDelivery, TargetDelivery
from eddy.emulator import moto_seam

if TYPE_CHECKING:
    from eddy.emulator.functions.async_invocation.queue import AsyncInvocations
    from eddy.emulator.functions.registry import FunctionRegistry
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.pipes.pipe_registry import Pipes
    from eddy.emulator.storage.channels import DurableLog

#: moto's EventBridge seam: told where rules' events go once moto's EventBridge is loaded (moto_seam.activate)
EVENTS_SEAM = "eddy.emulator.moto_seam.eventbridge.rules"


class EventBridge:
    """Built with the kernel (activity, clock, Eddy's boto3 clients), the persistence that writes deliveries down,
    the functions and their asynchronous invocations (a Lambda target's queue), the state directory and
    `make_pipes`, which builds the pipes' registry (the composition root's: emulator/deferred_components.py) when
    they are first used."""

    def __init__(
        self,
        kernel: Kernel,
        persistence: DurableLog,
        functions: FunctionRegistry,
        async_invocations: AsyncInvocations,
        directory: Path,
        make_pipes: Callable[[], Pipes],
    ) -> None:
        self._activity = kernel.activity
        self._now = kernel.clock.now
        self._aws_client = kernel.aws_client
        self._directory = directory
        self._make_pipes = make_pipes
        self._pipes: Pipes | None = None
        self._started = False
        self.targets = TargetDelivery(
            functions, async_invocations, kernel.aws_client, self.undelivered, kernel.clock.now
        )
        self.deliveries = Deliveries(kernel.activity, persistence, self.targets.send)
        self.rules = RuleDelivery(self.deliveries.submit)
        #: events no target could take since the last wait (wait_idle's Failures)
        self._undelivered: list[dict[str, Any]] = []

    def activate(self) -> None:
        """Rules' events are Eddy's to deliver: from recovery on, so that a replayed PutEvents leaves a rule's Lambda
        and SQS targets to Eddy (whose deliveries were written down before it answered: RuleDelivery.deliver sends
        nothing again) and its
        other targets to moto, as it did."""
        moto_seam.activate(EVENTS_SEAM, self._now, self.rules.deliver)

    @property
    def pipes(self) -> Pipes:
        """Every pipe (emulator/pipes/), loaded by its first use or, at start, by a state directory that keeps pipes;
        made once EventBridge has started, they run from the start."""
        if self._pipes is None:
            with self._activity:
                if self._pipes is None:
                    pipes = self._make_pipes()
                    if self._started:
                        pipes.start_all()
                    self._pipes = pipes
        return self._pipes

    def _has_pipes(self) -> bool:
        """Whether pipes are loaded or kept in the state directory (else there is nothing of them to run or forget)."""
        return self._pipes is not None or (self._directory / "pipes").exists()

    def start(self) -> None:
        """Deliver the rules' events (those recovered first) and run the pipes (Triggers.start_all calls it)."""
        self.activate()
        self.deliveries.start()
        self._started = True
        if self._has_pipes():
            self.pipes.start_all()

    @property
    def async_in_flight(self) -> int:
        """Rules' deliveries not done yet (the dashboard's DeliveriesInFlight)."""
        return self.deliveries.in_flight

    @property
    def last_async_error(self) -> str | None:
        return self.deliveries.last_error

    def undelivered(self, undelivered: Undelivered) -> None:
        """An event a rule's target could not take: to its dead-letter queue, and into the next wait's Failures."""
        dead_letter_queue = send_to_dead_letter_queue(self._aws_client, undelivered)
        with self._activity:
            self.deliveries.last_error = f"{undelivered.target['Arn']}: {undelivered.failure}"
            self._undelivered.append(undelivered.report(dead_letter_queue))

    def pending(self) -> list[dict[str, Any]]:
        """What is still on its way (the lock held): pipes behind their sources, events not yet delivered."""
        pending = self._pipes.pending() if self._pipes is not None else []
        if self.async_in_flight:
            pending.append(
                {
                    "Mapping": "EventBridge rules",
                    "EventBridge": f"{self.async_in_flight} deliveries in flight",
                    "LastError": self.last_async_error,
                }
            )
        return pending

    def failure_reports(self) -> list[dict[str, Any]]:
        """What failed in pipes and rules' deliveries since the last wait (the lock held)."""
        undelivered, self._undelivered = self._undelivered, []
        return (self._pipes.failure_reports() if self._pipes is not None else []) + undelivered

    def close(self) -> None:
        """Stop delivering and stop the pipes (Triggers.close calls it)."""
        moto_seam.deactivate(EVENTS_SEAM)
        if self._pipes is not None:
            self._pipes.close()
        self.deliveries.close()

    def reset(self) -> None:
        """Forget every pipe and delivery; rules' deliveries go on (Triggers.reset calls it, after close)."""
        if self._has_pipes():
            self.pipes.reset()
        self.deliveries.reset()
        moto_seam.activate(EVENTS_SEAM, self._now, self.rules.deliver)
