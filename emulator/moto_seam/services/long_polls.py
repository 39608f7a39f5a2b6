"""SQS long polls in moments (moments.py): SQSBackend.receive_message one attempt at a time, so a long poll waits
with the journal's lock released and each attempt runs at its own instant; a replayed receive does not wait at
all. Installed when moto's SQS is loaded while an emulator is open (moto_seam/__init__.py)."""

from __future__ import annotations

import time
from typing import Any

from moto.sqs.models import SQSBackend

from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.services.moments import change_waiter, clock_now, current

_original_receive = SQSBackend.receive_message


def _receive_message(
    self: SQSBackend,
    queue_name: str,
    count: int,
    wait_seconds_timeout: int,
    visibility_timeout: int,
    message_attribute_names: list[str] | None = None,
) -> Any:
    """moto's receive, one attempt at a time: between attempts the journal's lock is released (other requests
    send, delete, change visibility) and the next attempt runs at its own instant. The deadline is the
    computer's: a client's long poll lasts its seconds even when the emulator's clock stands still."""
    moment, wait_for_change = current(), change_waiter()
    if moment is None or wait_for_change is None or moment.replaying:
        wait = 0 if moment is not None and moment.replaying else wait_seconds_timeout
        return _original_receive(self, queue_name, count, wait, visibility_timeout, message_attribute_names)
    deadline = time.monotonic() + wait_seconds_timeout
    while True:
        result = _original_receive(self, queue_name, count, 0, visibility_timeout, message_attribute_names)
        remaining = deadline - time.monotonic()
        if result or remaining <= 0:
            return result
        wait_for_change(min(remaining, 1.0))  # a change wakes it; a message becoming visible is seen within 1 s
        moment.move_to(now=clock_now())


_patches = Patches()


def install() -> None:
    _patches.set(SQSBackend, "receive_message", _receive_message)


def uninstall() -> None:
    _patches.restore()
