"""EventBridge in Eddy: rules' deliveries (events/rules.py, through moto_seam/eventbridge/rules.py) and Pipes (emulator/pipes/).

One delivery thread sends the rules' matched events in the order they were put (PutEvents answers first, as on
AWS); the deliveries queued or running count for wait_idle. An event a target cannot take goes to the target's
dead-letter queue (events/dead_letters.py), is logged at WARNING, kept as the last error and reported once in
wait_idle's Failures.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from emulator.events.dead_letters import Undelivered, send_to_dead_letter_queue
from emulator.events.rules import RuleDelivery
from emulator.moto_seam.eventbridge import rules as events_seam
from emulator.pipes.pipes import Pipes

if TYPE_CHECKING:
    from emulator.engine import Emulator

log = logging.getLogger("eddy.events")


class EventBridge:
    def __init__(self, emulator: "Emulator", directory: Path) -> None:
        self.emulator = emulator
        self.pipes = Pipes(emulator, directory)
        self.rules = RuleDelivery(self)
        #: deliveries queued or running (changed with emulator.activity held)
        self.async_in_flight = 0
        self.last_async_error: str | None = None
        #: events no target could take since the last wait (wait_idle's Failures)
        self._undelivered: list[dict[str, Any]] = []
        self._deliveries: queue.Queue[tuple[Callable[..., None], tuple[Any, ...]] | None] = queue.Queue()
        self._worker: threading.Thread | None = None

    def activate(self) -> None:
        """Rules' events are Eddy's to deliver: from recovery on, so that a replayed PutEvents leaves a rule's Lambda
        and SQS targets to Eddy (which delivered them before: RuleDelivery.deliver sends nothing again) and its
        other targets to moto, as it did."""
        events_seam.activate(self.emulator.clock.now, self.rules.deliver)

    def start(self) -> None:
        """Deliver the rules' events and run the pipes (Triggers.start_all calls it)."""
        self.activate()
        self.pipes.start_all()

    def later(self, send: Callable[..., None], *args: Any) -> None:
        """Run `send(*args)` on the delivery thread, after what was queued before."""
        with self.emulator.activity:
            self.async_in_flight += 1
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="eddy-eventbridge", daemon=True)
                self._worker.start()
        self._deliveries.put((send, args))

    def _run(self) -> None:
        while (item := self._deliveries.get()) is not None:
            send, args = item
            try:
                send(*args)
            except Exception as error:  # the target is the user's: report it, keep delivering
                log.warning("EventBridge could not deliver to %s: %s: %s", args[1].get("Arn"), type(error).__name__, error)
                self.last_async_error = f"{args[1].get('Arn')}: {type(error).__name__}: {error}"
            finally:
                with self.emulator.activity:
                    self.async_in_flight -= 1
                    self.emulator.activity.notify_all()

    def undelivered(self, undelivered: Undelivered) -> None:
        """An event a rule's target could not take: to its dead-letter queue, and into the next wait's Failures."""
        dead_letter_queue = send_to_dead_letter_queue(self.emulator, undelivered)
        with self.emulator.activity:
            self.last_async_error = f"{undelivered.target['Arn']}: {undelivered.failure}"
            self._undelivered.append(undelivered.report(dead_letter_queue))

    def pending(self) -> list[dict[str, Any]]:
        """What is still on its way (the lock held): pipes behind their sources, events not yet delivered."""
        pending = self.pipes.pending()
        if self.async_in_flight:
            pending.append({"Mapping": "EventBridge rules",
                            "EventBridge": f"{self.async_in_flight} deliveries in flight",
                            "LastError": self.last_async_error})
        return pending

    def failure_reports(self) -> list[dict[str, Any]]:
        """What failed in pipes and rules' deliveries since the last wait (the lock held)."""
        undelivered, self._undelivered = self._undelivered, []
        return self.pipes.failure_reports() + undelivered

    def close(self) -> None:
        """Stop delivering and stop the pipes (Triggers.close calls it)."""
        events_seam.deactivate()
        self.pipes.close()
        with self.emulator.activity:
            worker, self._worker = self._worker, None
        if worker is not None:
            self._deliveries.put(None)
            worker.join()

    def reset(self) -> None:
        """Forget every pipe; rules' deliveries go on (Triggers.reset calls it, after close)."""
        self.pipes.reset()
        events_seam.activate(self.emulator.clock.now, self.rules.deliver)
