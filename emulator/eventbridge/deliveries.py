"""EventBridge rules' deliveries: each event a rule matched, for each of its Lambda, SQS, SNS and Logs targets, kept
until done.

A delivery is written down (its QueueChannel, storage/async_queue.py) while PutEvents is being answered, so once
PutEvents has answered, a kill -9 loses none: recovery restores every delivery not written down as done, and the
delivery thread sends them after the restart. One delivery thread sends them in the order they were put (PutEvents
answers first, as on AWS); a delivery is written down as done once its target has the event (a Lambda target's
event is in the function's asynchronous invocation queue, itself written down; an SQS target's message is in the
queue) or the event went to the target's dead-letter queue. A delivery sent at a kill -9 but not yet written down
as done is sent again after the restart: at least once, as EventBridge delivers.

Whatever PutEvents, a pipe's event-bus target or a Lambda destination put on a bus goes through here alike: they
are all PutEvents.
"""

from __future__ import annotations

import logging
import queue
import threading
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.eventbridge.target_input import minified
from eddy.emulator.storage.async_queue import QueueChannel
from eddy.emulator.storage.disk import WriteFailed

if TYPE_CHECKING:
    from eddy.emulator.storage.channels import DurableLog

log = logging.getLogger("eddy.events")


@dataclass
class Delivery:
    """An event a rule matched, for one target: the text the target receives (`body`, after Input, InputPath or
    InputTransformer: eventbridge/target_input.py) and the event as matched (for the target's dead-letter queue)."""

    delivery_id: str
    rule_arn: str
    target: dict[str, Any]
    body: str
    event: dict[str, Any]

    def to_state(self) -> dict[str, Any]:
        return {
            "id": self.delivery_id,
            "rule": self.rule_arn,
            "target": self.target,
            "body": self.body,
            "event": self.event,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "Delivery":
        if "body" in state:
            return cls(state["id"], state["rule"], state["target"], state["body"], state["event"])
        # written down before bodies were kept as text: the payload's JSON, as EventBridge sends it (minified)
        body = minified(state["payload"])
        return cls(state["id"], state["rule"], state["target"], body, state["event"])


class Deliveries:
    """The rules' deliveries not yet done, and the thread that sends them (`send(delivery)`); built with the
    emulator's `activity` condition and the persistence that writes each delivery down."""

    def __init__(
        self, activity: threading.Condition, persistence: DurableLog, send: Callable[[Delivery], None]
    ) -> None:
        self._activity = activity
        #: the deliveries' durable channel (registered with storage by the composition root)
        self.channel = QueueChannel("rule_delivery", persistence, self)
        self._send = send
        #: every delivery not yet done, by id, in the order they were queued
        self.deliveries: dict[str, Delivery] = {}
        self.last_error: str | None = None
        self._queue: queue.Queue[Delivery | None] = queue.Queue()
        self._queued: set[str] = set()
        self._worker: threading.Thread | None = None
        self._started = False

    @property
    def in_flight(self) -> int:
        """Deliveries queued or being sent (including those recovered and not yet sent)."""
        return len(self.deliveries)

    def submit(self, rule_arn: str, target: dict[str, Any], body: str, event: dict[str, Any]) -> None:
        """A delivery to make: written down (before PutEvents answers), then sent by the delivery thread."""
        delivery = Delivery(str(uuid.uuid4()), rule_arn, target, body, event)
        with self._activity:
            self.channel.queued(delivery.to_state(), lambda: self._keep(delivery))  # kept once written down

    def _keep(self, delivery: Delivery) -> None:
        with self._activity:
            self.deliveries[delivery.delivery_id] = delivery
            self._start_worker()
            self._enqueue(delivery)
            self._activity.notify_all()

    def restore(self, state: dict[str, Any]) -> None:
        """A delivery as it was written down (recovery; sent when the emulator starts)."""
        delivery = Delivery.from_state(state)
        self.deliveries[delivery.delivery_id] = delivery

    def forget(self, delivery_id: str) -> None:
        """A delivery written down as done (recovery)."""
        self.deliveries.pop(delivery_id, None)

    def states(self) -> list[dict[str, Any]]:
        """Every delivery not yet done, as written down (a snapshot's; the emulator's lock held)."""
        return [delivery.to_state() for delivery in self.deliveries.values()]

    def start(self) -> None:
        """Send the deliveries recovery restored, then every new one (EventBridge.start)."""
        with self._activity:
            self._started = True
            if self.deliveries:
                self._start_worker()
            for delivery in self.deliveries.values():
                self._enqueue(delivery)

    def _enqueue(self, delivery: Delivery) -> None:
        if self._started and delivery.delivery_id not in self._queued:
            self._queued.add(delivery.delivery_id)
            self._queue.put(delivery)

    def _start_worker(self) -> None:
        if self._worker is None and self._started:
            self._worker = threading.Thread(target=self._run, name="eddy-eventbridge", daemon=True)
            self._worker.start()

    def _run(self) -> None:
        while (delivery := self._queue.get()) is not None:
            try:
                self._send(delivery)
            except Exception as error:  # an internal fault: report it, keep delivering
                log.exception("EventBridge could not deliver to %s", delivery.target.get("Arn"))
                with self._activity:
                    self.last_error = f"{delivery.target.get('Arn')}: {type(error).__name__}: {error}"
            with self._activity:
                self.deliveries.pop(delivery.delivery_id, None)
                self._queued.discard(delivery.delivery_id)
                try:
                    self.channel.done(delivery.delivery_id)
                except WriteFailed:  # not written down as done: sent again after a restart (at least once)
                    log.exception("EventBridge could not write down its delivery to %s", delivery.target.get("Arn"))
                self._activity.notify_all()

    def close(self) -> None:
        """Send what is queued, then stop (a clean stop leaves nothing to send again)."""
        with self._activity:
            worker, self._worker = self._worker, None
            self._started = False
        if worker is not None:
            self._queue.put(None)
            worker.join()
        with self._activity:
            self._queued.clear()

    def reset(self) -> None:
        """Forget every delivery (after close); new ones are sent as before (a reset emulator keeps running)."""
        with self._activity:
            self.deliveries.clear()
            self._queued.clear()
            self.last_error = None
            self._started = True
