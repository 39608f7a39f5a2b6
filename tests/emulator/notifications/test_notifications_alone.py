"""notifications/notifications.py made alone, with fakes for exactly what it is built with (issue 35: the clock, the
function registry, the asynchronous invocations; never the Emulator): a push to a function is queued as an
asynchronous invocation (S3 and SNS invoke with InvocationType Event), one to a function that does not exist is
dropped and said so; every configuration's deliveries are counted on the clock. Through boto3, in both doors:
test_s3_notifications.py and test_sns_subscriptions.py."""

from __future__ import annotations

import logging
import threading
from types import SimpleNamespace
from typing import Any

from eddy.emulator.notifications.notifications import Notifications

FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:on-upload"


def test_a_push_is_queued_for_the_function_and_one_to_no_function_dropped(caplog):
    function = SimpleNamespace(arn=FUNCTION)
    queued: list[tuple[Any, ...]] = []
    # the registry's part Notifications uses: the version an ARN (unqualified, $LATEST, a version, an alias) runs
    registry = SimpleNamespace(runnable={FUNCTION: function, f"{FUNCTION}:$LATEST": function}.get)
    notifications = Notifications(lambda: 100.0, threading.Condition(), registry,
                                  SimpleNamespace(submit=lambda *args, **kwargs: queued.append((args, kwargs)) or
                                                  "8f1c3e1e-0000-4000-8000-000000000001"), None)
    caplog.set_level(logging.WARNING, logger="eddy.notifications")
    answers = [notifications.function_exists(f"{FUNCTION}:$LATEST"), notifications.function_exists(f"{FUNCTION}-gone"),
               notifications.invoke_function(f"{FUNCTION}:$LATEST", {"Records": []}, "s3"),
               notifications.invoke_function(f"{FUNCTION}-gone", {"Records": []}, "sns")]
    assert (answers, queued, [record.getMessage() for record in caplog.records]) == (
        [True, False, "8f1c3e1e-0000-4000-8000-000000000001", None], [((function, {"Records": []}, "s3"), {"invoked_arn": f"{FUNCTION}:$LATEST"})],
        [f"SNS notification to {FUNCTION}-gone dropped: the function does not exist"])


def test_deliveries_are_counted_per_configuration_on_the_clock():
    now = [50.0]
    notifications = Notifications(lambda: now[0], threading.Condition(), SimpleNamespace(runnable={}.get), SimpleNamespace(), None)
    trigger = ("s3", "uploads", "to-queue")
    notifications.delivered(trigger)
    now[0] = 60.0
    notifications.failed(trigger, "AWS.SimpleQueueService.NonExistentQueue")
    notifications.filtered_out(trigger)
    assert notifications.figures.of(trigger) == {
        "NumberOfNotificationsDelivered": 1, "NumberOfNotificationsFailed": 1, "NumberOfNotificationsFilteredOut": 1,
        "LastError": "AWS.SimpleQueueService.NonExistentQueue", "LastErrorTime": 60.0}


def test_the_sequencer_grows_and_goes_on_after_a_restore():
    notifications = Notifications(lambda: 0.0, threading.Condition(), SimpleNamespace(runnable={}.get), SimpleNamespace(), None)
    first = notifications.sequencer()
    notifications.restore_sequencer(41)
    assert (first, notifications.sequencer(), notifications.last_sequencer) == ("0" * 17 + "1", "0" * 16 + "2A", 42)
