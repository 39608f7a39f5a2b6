"""S3 event notifications, Eddy's side: what moto_seam/s3_notifications.py asks of the emulator.

The emulator's clock for eventTime, one sequencer for every key, and Eddy's functions as Lambda destinations: S3
invokes a function asynchronously (InvocationType Event), so the object's request never waits for it or fails
because of it.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from emulator.moto_seam import s3_notifications as seam
from emulator.notifications.s3_events import Sequencer

if TYPE_CHECKING:
    from emulator.engine import Emulator

log = logging.getLogger("eddy.notifications")


class S3Notifications:
    def __init__(self, emulator: "Emulator") -> None:
        self.emulator = emulator
        self._sequencer = Sequencer()

    def start(self) -> None:
        seam.activate(self)

    def stop(self) -> None:
        seam.deactivate()

    def now(self) -> float:
        return self.emulator.clock.now()

    def sequencer(self) -> str:
        return self._sequencer.next()

    def _function(self, arn: str) -> Any:
        unqualified = arn.removesuffix(":$LATEST")
        return self.emulator.functions.functions.get(unqualified)

    def function_exists(self, arn: str) -> bool:
        return self._function(arn) is not None

    def invoke_function(self, arn: str, event: dict[str, Any]) -> None:
        function = self._function(arn)
        if function is None:
            log.warning("S3 notification to %s dropped: the function no longer exists", arn)
            return
        threading.Thread(target=self.emulator.invoker.invoke, args=(function, event),
                         kwargs={"source": "s3"}, name="eddy-s3-notification", daemon=True).start()
