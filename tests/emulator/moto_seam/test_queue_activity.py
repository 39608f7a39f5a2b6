"""A queue's message events (moto_seam/listings/queue_activity.py) as a snapshot carries them: kept on moto's Queue,
pickled with it, and numbered on after a restored log's numbers, so `eddy tail --queue`'s After still works."""

from __future__ import annotations

import pickle

from moto.sqs.models import Message, Queue

from eddy.emulator.moto_seam.listings import queue_activity


def test_a_restored_log_is_numbered_on_after_its_own_numbers(monkeypatch):
    queue = Queue("jobs", region="us-east-1", account_id="123456789012")
    for i in range(3):
        queue_activity.note(queue, "Sent", Message(f"m{i}", "body"), at=100.0)
    restored = Queue("jobs", region="us-east-1", account_id="123456789012")  # as services/state.py restores it
    restored._eddy_activity = pickle.loads(pickle.dumps(queue._eddy_activity))
    before = [event["Sequence"] for event in queue_activity.activity(restored, 0, 200.0)]
    monkeypatch.setattr(queue_activity, "_events", iter(range(1, 10**9)))  # a new process counts from 1 again
    queue_activity.note(restored, "Deleted", Message("m0", "body"), at=101.0)
    [after] = queue_activity.activity(restored, before[-1], 200.0)
    assert (after["Event"], after["MessageId"], after["Sequence"]) == ("Deleted", "m0", before[-1] + 1)


def test_a_message_visible_again_is_noted_returned_once_at_the_moment_it_became_visible():
    queue = Queue("jobs", region="us-east-1", account_id="123456789012")
    message = Message("m", "body")
    message.approximate_receive_count, message.visible_at = 1, 130_000.0
    queue._messages.append(message)
    assert queue_activity.activity(queue, 0, 120.0) == []  # still in flight
    [returned] = queue_activity.activity(queue, 0, 131.0)
    assert (returned["Event"], returned["Time"], returned["ReceiveCount"]) == ("Returned", 130.0, 1)
    assert queue_activity.activity(queue, returned["Sequence"], 140.0) == []
