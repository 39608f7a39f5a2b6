"""EventBridge's parts made alone, with fakes for exactly the collaborators each is built with (issue 35: a component
takes what it uses, never the Emulator): RuleDelivery hands a matched event's Lambda and SQS deliveries on and
leaves the other targets to moto; TargetDelivery queues a Lambda target's event or reports what a target cannot take
(the dead-letter codes of eventbridge/dead_letters.py); Deliveries writes each delivery down before it is sent and
as done after. The behaviour through boto3, in both doors, is tests/emulator/eventbridge/test_rules.py's and
test_rule_failures.py's."""

from __future__ import annotations

import errno
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from eddy.emulator.eventbridge.dead_letters import NO_RESOURCE, SDK_CLIENT_ERROR, Undelivered
from eddy.emulator.eventbridge.deliveries import Deliveries, Delivery
from eddy.emulator.eventbridge.rules import RuleDelivery, TargetDelivery
from eddy.emulator.eventbridge.target_input import minified
from eddy.emulator.storage.disk import WriteFailed

RULE = "arn:aws:events:us-east-1:123456789012:rule/orders"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:on-order"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:orders"
API_DESTINATION = "arn:aws:events:us-east-1:123456789012:api-destination/hook/0f1e"  # a target moto delivers
EVENT = {"id": "e-1", "detail-type": "OrderPlaced", "source": "shop.orders", "account": "123456789012",
         "time": "2025-01-01T00:00:00Z", "region": "us-east-1", "resources": [], "detail": {"order": "o-1"}}


def rule(pattern: str) -> dict[str, Any]:
    return {"arn": RULE, "event_pattern": pattern,
            "targets": [{"Id": "f", "Arn": FUNCTION}, {"Id": "q", "Arn": QUEUE, "Input": '{"fixed": 1}'},
                        {"Id": "b", "Arn": API_DESTINATION}]}


def test_a_matched_event_is_handed_on_for_the_lambda_and_sqs_targets_and_the_others_left_to_moto():
    submitted: list[tuple[Any, ...]] = []
    rules = RuleDelivery(lambda *delivery: submitted.append(delivery))
    left = rules.deliver(rule('{"source": ["shop.orders"]}'), EVENT)
    assert (left, submitted) == ([{"Id": "b", "Arn": API_DESTINATION}], [
        (RULE, {"Id": "f", "Arn": FUNCTION}, minified(dict(version="0", **EVENT)), dict(EVENT, version="0")),
        (RULE, {"Id": "q", "Arn": QUEUE, "Input": '{"fixed": 1}'}, '{"fixed":1}', dict(EVENT, version="0"))])


def test_an_event_the_pattern_does_not_match_goes_nowhere():
    submitted: list[tuple[Any, ...]] = []
    rules = RuleDelivery(lambda *delivery: submitted.append(delivery))
    assert (rules.deliver(rule('{"source": ["billing"]}'), EVENT), submitted) == ([], [])


def test_a_lambda_targets_event_is_queued_and_a_missing_function_is_undelivered():
    function = SimpleNamespace(arn=FUNCTION)
    queued: list[tuple[Any, ...]] = []
    undelivered: list[Undelivered] = []
    # the registry's part TargetDelivery uses: the version an ARN (unqualified, $LATEST, a version, an alias) runs
    targets = TargetDelivery(SimpleNamespace(runnable={FUNCTION: function, f"{FUNCTION}:$LATEST": function}.get),
                             SimpleNamespace(submit=lambda *args, **kwargs: queued.append((args, kwargs))),
                             lambda service, region: None, undelivered.append, lambda: 0.0)
    targets.send(Delivery("d-1", RULE, {"Id": "f", "Arn": f"{FUNCTION}:$LATEST"}, '{"order":"o-1"}', EVENT))
    missing = {"Id": "g", "Arn": f"{FUNCTION}-gone"}
    targets.send(Delivery("d-2", RULE, missing, '{"order":"o-2"}', EVENT))
    text = {"Id": "t", "Arn": FUNCTION}  # a text template's text: Lambda's Invoke takes only JSON
    targets.send(Delivery("d-3", RULE, text, "Order o-3 placed", EVENT))
    assert queued == [((function, {"order": "o-1"}), {"source": RULE, "invoked_arn": f"{FUNCTION}:$LATEST"})]
    assert [(u.rule_arn, u.target, u.event, u.failure.code, u.failure.message) for u in undelivered] == [
        (RULE, missing, EVENT, NO_RESOURCE, f"Function not found: {FUNCTION}-gone"),
        (RULE, text, EVENT, SDK_CLIENT_ERROR,
         "Could not parse request body into json: Expecting value: line 1 column 1 (char 0)")]


class WrittenDown:
    """The log a Deliveries is built with (storage/channels.py's DurableLog): what its channel writes down, in order."""

    durable = True

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def log(self, entry: dict[str, Any], weight: int = 1) -> None:
        self.entries.append(entry)

    def after_commit(self, action: Callable[[], Any]) -> None:
        action()  # outside a request's unit of work, as DurableLog does: at once


def test_a_delivery_is_written_down_before_it_is_sent_and_as_done_after():
    activity = threading.Condition(threading.RLock())
    persistence = WrittenDown()
    sent: list[tuple[str, list[dict[str, Any]]]] = []
    deliveries = Deliveries(activity, persistence,
                            lambda delivery: sent.append((delivery.rule_arn, list(persistence.entries))))
    deliveries.start()
    deliveries.submit(RULE, {"Id": "q", "Arn": QUEUE}, '{"order":"o-1"}', EVENT)
    with activity:
        assert activity.wait_for(lambda: deliveries.in_flight == 0, timeout=60)
    deliveries.close()
    saved, done = persistence.entries
    state = saved["state"]
    assert (saved, done) == ({"op": "rule_delivery", "state": {"id": state["id"], "rule": RULE, "target": {
        "Id": "q", "Arn": QUEUE}, "body": '{"order":"o-1"}', "event": EVENT}}, {"op": "rule_delivery_done",
                                                                                   "id": state["id"]})
    assert sent == [(RULE, [saved])]  # sent after it was written down, before it was done


def test_a_delivery_written_down_before_bodies_were_text_is_restored_as_its_minified_json():
    state = {"id": "d-1", "rule": RULE, "target": {"Id": "q", "Arn": QUEUE}, "payload": {"order": "o-1"}, "event": EVENT}
    assert Delivery.from_state(state) == Delivery("d-1", RULE, {"Id": "q", "Arn": QUEUE}, '{"order":"o-1"}', EVENT)


class RefusingDone(WrittenDown):
    """A log whose disk refuses every delivery's `done` entry (WriteFailed)."""

    def log(self, entry: dict[str, Any], weight: int = 1) -> None:
        if entry["op"].endswith("_done"):
            raise WriteFailed(Path("/state/wal"), OSError(errno.EIO, "Input/output error"))
        super().log(entry, weight)


def test_a_refused_done_entry_does_not_stop_the_deliveries():
    # the delivery thread wrote each delivery's `done` unguarded: a disk refusing it ended the thread, and every
    # delivery after it waited for ever
    activity = threading.Condition(threading.RLock())
    sent: list[str] = []
    deliveries = Deliveries(activity, RefusingDone(), lambda delivery: sent.append(delivery.body))
    deliveries.start()
    for order in ("o-1", "o-2"):
        deliveries.submit(RULE, {"Id": "q", "Arn": QUEUE}, f'{{"order":"{order}"}}', EVENT)
    with activity:
        assert activity.wait_for(lambda: deliveries.in_flight == 0, timeout=60)
    deliveries.close()
    assert sent == ['{"order":"o-1"}', '{"order":"o-2"}']
