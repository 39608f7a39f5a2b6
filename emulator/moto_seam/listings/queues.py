"""Every SQS queue moto holds, as the dashboard lists it (figures from moto_seam/sqs.py, on the emulator's clock)."""

from __future__ import annotations

from typing import Any

from moto.sqs.models import Queue, sqs_backends

from eddy.emulator.moto_seam.sqs import dead_letter_figures, queue_figures


def all_queues() -> list[Queue]:
    """Every queue moto holds, in every account and region."""
    return [
        queue
        for account_id in list(sqs_backends.keys())
        for region in list(sqs_backends[account_id].keys())
        for queue in list(sqs_backends[account_id][region].queues.values())
    ]


def queue_summary(queue: Queue, now: float) -> dict[str, Any]:
    """A queue as the dashboard lists it: its name, ARN, kind, figures and its RedrivePolicy's dead-letter queue."""
    summary: dict[str, Any] = {
        "QueueName": queue.name,
        "QueueArn": queue.queue_arn,
        "Region": queue.region,
        "FifoQueue": bool(queue.fifo_queue),
        "VisibilityTimeout": int(queue.visibility_timeout),
        **queue_figures(queue, now),
    }
    dead_letters = dead_letter_figures(queue, now)
    if dead_letters is not None:
        summary["DeadLetterQueue"] = dict(dead_letters, maxReceiveCount=int(queue.redrive_policy["maxReceiveCount"]))
    return summary
