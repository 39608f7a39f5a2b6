"""moto's EventBridge (the `events` service) delivering a rule's matched events through Eddy.

moto keeps event buses, rules and targets and answers PutEvents; its Rule.send_to_targets delivers to SQS, logs,
archives and buses, and fails with NotImplementedError on a Lambda target (its Lambda needs Docker). While active,
Eddy's `deliver(rule, event)` sees every event put on a rule's bus first and answers the targets it did not take
(moto's own delivery serves those, without asking moto's own pattern matcher: Eddy's engine decided). Disabled rules
deliver nothing, as on AWS. The events' time is the
emulator's clock. What Eddy's targets receive is eventbridge/target_input.py's. A replay (StartReplay) sends the
archived events of its time window to the rules its FilterArns name, each with its replay-name. The targets left to moto
(archives, other buses) get their input from moto's template parser with its paths read by target_input.json_path:
moto reads them with jsonpath-ng, which its `events` extra brings and Eddy's plain install leaves out.
"""

from __future__ import annotations

import copy
import json
import threading
from typing import Any, Callable

from moto.core.exceptions import JsonRESTError
from moto.events import models as events_models
from moto.events.exceptions import ResourceNotFoundException
from moto.events.models import Replay, ReplayState, Rule
from moto.events.utils import EventTemplateParser

from eddy.emulator.eventbridge.target_input import MISSING, json_path
from eddy.emulator.moto_seam import Patches

#: a rule's targets (the EventBridge User Guide's quotas: 5 targets per rule)
MAX_TARGETS = 5
#: PutEvents' entries at most (its API reference: 1 to 10)
MAX_ENTRIES = 10
#: PutEvents' limit on its entries' total size (256 KiB; test_put_event_with_too_big_detail)
ENTRIES_LIMIT = 256 * 1024
#: Eddy's delivery: (the rule's facts, the event) -> the targets left to moto
Deliver = Callable[[dict[str, Any], dict[str, Any]], list[dict[str, Any]]]

_original_send_to_targets = Rule.send_to_targets
_original_put_targets = Rule.put_targets
_original_replay_events = Replay.replay_events
_original_put_events = events_models.EventsBackend.put_events
_original_unix_time = events_models.unix_time
_original_template_parse = EventTemplateParser.parse
_deliver: Deliver | None = None
_now: Callable[[], float] | None = None
_patches = Patches()
#: per thread, while a PutEvents runs: its one instant (moto read the clock again for each rule of the bus)
_put_instant = threading.local()


def install() -> None:
    """The patches (moto_seam/__init__.py, while an emulator is open); they do what moto does until `activate`."""
    _patches.set(events_models, "unix_time", _unix_time)
    _patches.set(Rule, "send_to_targets", _send_to_targets)
    _patches.set(Rule, "put_targets", _put_targets)
    _patches.set(Replay, "replay_events", _replay_events)
    _patches.set(events_models.EventsBackend, "put_events", _put_events)
    _patches.set(EventTemplateParser, "parse", staticmethod(_template_parse))


def uninstall() -> None:
    _patches.restore()


def activate(now: Callable[[], float], deliver: Deliver) -> None:
    global _deliver, _now
    _deliver, _now = deliver, now


def deactivate() -> None:
    global _deliver, _now
    _deliver, _now = None, None


def _put_targets(self: Rule, targets: list[dict[str, Any]]) -> None:
    """moto's Rule.put_targets, refused whole as AWS refuses a rule that would have more than MAX_TARGETS targets (those
    it has, the same ids replaced): LimitExceededException (LocalStack's AWS-validated test_events.snapshot.json:
    test_add_exceed_fife_targets_per_rule; moto accepted 7). Counted in the call that writes, which runs under the
    services' journal lock: two PutTargets at once cannot both pass on the same count."""
    if len({target["Id"] for target in self.targets} | {target["Id"] for target in targets}) > MAX_TARGETS:
        raise _LimitExceeded("The requested resource exceeds the maximum number allowed.")
    _original_put_targets(self, targets)


class _LimitExceeded(JsonRESTError):
    code = 400

    def __init__(self, message: str) -> None:
        super().__init__("LimitExceededException", message)


def _unix_time(*args: Any) -> float:
    if not args and getattr(_put_instant, "value", None) is not None:
        return _put_instant.value
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


def _template_parse(
    input_template: str | None, input_paths_map: dict[str, str] | None, event: dict[str, Any]
) -> dict[str, Any]:
    """moto's EventTemplateParser.parse (a target's input for moto's own delivery: its default template, or the
    target's InputTransformer) without jsonpath-ng: each path's value read by EventBridge's path rules, written as
    moto writes it (its _stringify); a path with nothing there, or nothing to write, leaves its placeholder as it is."""
    template = input_template or EventTemplateParser.DEFAULT_EVENT_INPUT_TEMPLATE
    for name, path in (input_paths_map or EventTemplateParser.DEFAULT_EVENT_INPUT_PATHS_MAP).items():
        found = json_path(event, path)
        if "*" in path and isinstance(found, list):  # a wildcard's matches: moto writes the first
            found = found[0] if found else MISSING
        text = None if found is MISSING else EventTemplateParser._stringify(found)
        if text:
            template = template.replace(f"<{name}>", text)
    for name, value in (("aws.events.event.json", event), ("aws.events.event.ingestion-time", event["ingestion-time"])):
        template = template.replace(f"<{name}>", EventTemplateParser._stringify(value))
    return json.loads(template)


def _put_events(self: Any, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """moto's PutEvents, answered as AWS answers (LocalStack's AWS-validated test_events snapshots): entries over
    256 KiB in all refused whole ("Total size of the entries in the request is over the limit."), an entry whose
    Detail is JSON but not an object MalformedDetail "Detail is malformed." (test_put_event_malformed_detail[ARRAY|
    SERIALIZED_STRING]; moto took both, warning of the second that AWS ignores it). One instant for the whole call:
    moto read the clock for each rule of the bus, so a rule and an archive on it could see one event a second
    apart. More than 10 entries are refused in EventBridge's words, each entry written out (moto:
    "[PutEventsRequestEntry]"), and an entry for a bus that does not exist is answered with an EventId and delivered
    nowhere (moto refused the whole call; test_put_events_nonexistent_event_bus)."""
    from moto.events.exceptions import ValidationException
    from moto.moto_api._internal import mock_random

    if len(events) > MAX_ENTRIES:
        shown = ", ".join(_java_entry(event) for event in events)
        raise ValidationException(
            f"1 validation error detected: Value '[{shown}]' at 'entries' failed to satisfy constraint: "
            f"Member must have length less than or equal to {MAX_ENTRIES}"
        )
    if sum(_entry_size(event) for event in events) > ENTRIES_LIMIT:
        raise ValidationException("Total size of the entries in the request is over the limit.")
    entries = [_malformed_unless_object(event) for event in events]
    # an entry for a bus that does not exist is taken, with its id, and goes nowhere
    nowhere = {n for n, event in enumerate(entries) if _valid(event) and not _bus_exists(self, event)}
    before = getattr(_put_instant, "value", None)  # a PutEvents inside another's delivery keeps the outer's
    _put_instant.value = _unix_time()  # an event's time and ingestion-time, the same for every rule that gets it
    try:
        answers = iter(_original_put_events(self, [e for n, e in enumerate(entries) if n not in nowhere]))
    finally:
        _put_instant.value = before
    return [{"EventId": str(mock_random.uuid4())} if n in nowhere else next(answers) for n in range(len(entries))]


def _valid(event: dict[str, Any]) -> bool:
    """An entry moto takes (Source, DetailType and a Detail that is a JSON object)."""
    if not (event.get("Source") and event.get("DetailType") and event.get("Detail")):
        return False
    try:
        return isinstance(json.loads(event["Detail"]), dict)
    except (TypeError, ValueError):
        return False


def _bus_exists(backend: Any, event: dict[str, Any]) -> bool:
    return backend._normalize_event_bus_arn(event.get("EventBusName")) in backend.event_buses


def _java_entry(event: dict[str, Any]) -> str:
    """An entry as EventBridge's refusal of more than MAX_ENTRIES writes each (Java's toString of its request
    entry: AWS's recorded test_put_events_exceed_limit_ten_entries); a Time as Java writes a Date, in UTC (Eddy's:
    no recording has one)."""
    from datetime import datetime, timezone

    def java(value: Any) -> str:
        if value is None:
            return "null"
        if isinstance(value, list):
            return "[" + ", ".join(java(item) for item in value) + "]"
        return str(value)

    time = event.get("Time")
    if isinstance(time, (int, float)):
        time = datetime.fromtimestamp(time, timezone.utc).strftime("%a %b %d %H:%M:%S UTC %Y")
    fields = (("time", time), ("source", event.get("Source")), ("resources", event.get("Resources")),
              ("detailType", event.get("DetailType")), ("detail", event.get("Detail")),
              ("eventBusName", event.get("EventBusName")), ("traceHeader", event.get("TraceHeader")),
              ("kmsKeyIdentifier", None), ("internalMetadata", None))
    return "PutEventsRequestEntry(" + ", ".join(f"{name}={java(value)}" for name, value in fields) + ")"


def _entry_size(event: dict[str, Any]) -> int:
    """An entry's size as EventBridge counts it (EventBridge User Guide, "Calculating PutEvents event entry size"):
    14 bytes for a Time, the UTF-8 bytes of Source, DetailType, Detail and each of Resources."""
    size = 14 if event.get("Time") is not None else 0
    for text in (event.get("Source"), event.get("DetailType"), event.get("Detail"), *(event.get("Resources") or [])):
        size += len(str(text).encode()) if text is not None else 0
    return size


def _malformed_unless_object(event: dict[str, Any]) -> dict[str, Any]:
    try:
        detail = json.loads(event.get("Detail") or "{}")
    except (TypeError, ValueError):
        return event  # moto answers MalformedDetail itself
    return event if isinstance(detail, dict) else dict(event, Detail="{ not an object")


def _replay_events(self: Replay, archive: Any) -> None:
    """StartReplay as EventBridge replays (EventBridge User Guide, "Replaying archived events"): only the archived
    events whose ingestion time is in [EventStartTime, EventEndTime], only to the rules Destination.FilterArns names
    (every rule of the bus without it), each with a new id and its replay-name. moto replayed every archived event to
    every rule."""
    if _deliver is None:
        _original_replay_events(self, archive)
        return
    from moto.moto_api._internal import mock_random

    bus = events_models.events_backends[self.account_id][self.region].describe_event_bus(
        self.destination["Arn"].split("/")[-1]
    )
    chosen = set(self.destination.get("FilterArns") or [])
    start, end = float(self.event_start_time), float(self.event_end_time)
    for event in list(archive.events):
        ingested = event.get("ingestion-time", event.get("time"))
        if isinstance(ingested, (int, float)) and not start <= ingested <= end:
            continue
        for rule in list(bus.rules.values()):
            if not chosen or rule.arn in chosen:
                replayed = dict(event, **{"id": str(mock_random.uuid4()), "replay-name": self.name})
                rule.send_to_targets(replayed, transform_input=False)
    self.state = ReplayState.COMPLETED
    self.end_time = events_models.unix_time()


class _Matched:
    """What moto's send_to_targets asks before delivering: the event matched (Eddy's engine said so)."""

    @staticmethod
    def matches_event(event: dict[str, Any]) -> bool:
        return True
