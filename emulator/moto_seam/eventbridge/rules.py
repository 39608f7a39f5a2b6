"""moto's EventBridge (the `events` service) delivering a rule's matched events through Eddy.

moto keeps event buses, rules and targets and answers PutEvents; its Rule.send_to_targets delivers to SQS, logs,
archives and buses, and fails with NotImplementedError on a Lambda target (its Lambda needs Docker). While active,
Eddy's `deliver(rule, event)` sees every event put on a rule's bus first and answers the targets it did not take
(moto's own delivery serves those, without asking moto's own pattern matcher: Eddy's engine decided). Disabled rules
deliver nothing, as on AWS. The events' time is the
emulator's clock. What Eddy's targets receive is eventbridge/target_input.py's.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from moto.events import models as events_models
from moto.events.models import Rule

from eddy.emulator.moto_seam import Patches

#: Eddy's delivery: (the rule's facts, the event) -> the targets left to moto
Deliver = Callable[[dict[str, Any], dict[str, Any]], list[dict[str, Any]]]

_original_send_to_targets = Rule.send_to_targets
_original_unix_time = events_models.unix_time
_deliver: Deliver | None = None
_now: Callable[[], float] | None = None
_patches = Patches()


def install() -> None:
    """The patches (moto_seam/__init__.py, while an emulator is open); they do what moto does until `activate`."""
    _patches.set(events_models, "unix_time", _unix_time)
    _patches.set(Rule, "send_to_targets", _send_to_targets)


def uninstall() -> None:
    _patches.restore()


def activate(now: Callable[[], float], deliver: Deliver) -> None:
    global _deliver, _now
    _deliver, _now = deliver, now


def deactivate() -> None:
    global _deliver, _now
    _deliver, _now = None, None


def _unix_time(*args: Any) -> float:
    now = _now
    return now() if now is not None and not args else _original_unix_time(*args)


def _send_to_targets(self: Rule, original_event: dict[str, Any], transform_input: bool = True) -> None:
    deliver = _deliver
    if deliver is None:
        _original_send_to_targets(self, original_event, transform_input)
        return
    if self.state != "ENABLED":
        return
    facts = {
        "arn": self.arn,
        "name": self.name,
        "event_pattern": self.event_pattern._raw_pattern,
        "targets": list(self.targets),
    }
    left = deliver(facts, original_event)
    if left:
        rest = copy.copy(self)
        rest.targets = left
        rest.event_pattern = _Matched()
        _original_send_to_targets(rest, original_event, transform_input)


class _Matched:
    """What moto's send_to_targets asks before delivering: the event matched (Eddy's engine said so)."""

    @staticmethod
    def matches_event(event: dict[str, Any]) -> bool:
        return True
