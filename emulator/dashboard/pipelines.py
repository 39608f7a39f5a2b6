"""The dashboard's pipeline triggers besides mappings: SNS subscriptions to functions and queues, S3 buckets'
notification configurations, EventBridge rules and pipes, and the functions' asynchronous invocations.

moto keeps subscriptions, bucket configurations and rules (read through moto_seam/listings/); Eddy keeps the
pipes (pipes/pipe_registry.py, with their figures in the mappings' words), each subscription's and configuration's
deliveries (notifications/delivery_figures.py) and the asynchronous invocation queue
(functions/async_invocation/queue.py). Called with emulator.activity held.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eddy.emulator.dashboard import queues
from eddy.emulator.moto_seam.listings import notifications as notifications_seam
from eddy.emulator.moto_seam.listings import rules as rules_seam

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator


def subscription_views(emulator: Emulator, now: float) -> list[dict[str, Any]]:
    """SNS subscriptions delivering to functions (invoked asynchronously) and to queues: topic, protocol,
    endpoint, filter policy, their deliveries (NumberOfNotificationsDelivered, ...Failed, ...FilteredOut, LastError,
    LastErrorTime) and where they went (destination())."""
    figures = emulator.notifications.figures
    return [
        dict(view, **figures.of(("sns", view["SubscriptionArn"])), **destination(emulator, view["Endpoint"], now))
        for view in notifications_seam.subscriptions()
    ]


def bucket_notification_views(emulator: Emulator, now: float) -> list[dict[str, Any]]:
    """S3 buckets' notification configurations: bucket, events, key filter, destination, their deliveries (as a
    subscription's) and where they went (destination())."""
    figures = emulator.notifications.figures
    return [
        dict(view, **figures.of(("s3", view["Bucket"], view["Id"])), **destination(emulator, view["Destination"], now))
        for view in notifications_seam.bucket_notifications()
    ]


def destination(emulator: Emulator, arn: str, now: float) -> dict[str, Any]:
    """What became of a trigger's deliveries: a queue's messages (available, in flight, delayed, its dead-letter
    queue's), as a queue mapping shows them; a function's asynchronous events not done yet (EventsPending) and its
    asynchronous figures (Errors, EventsDropped, LastError). A topic's are its subscriptions'."""
    service = arn.split(":", 3)[2] if arn.count(":") >= 3 else ""
    if service == "sqs":
        queue = queues.mapping_queue(arn, now)
        return {"Queue": queue} if queue is not None else {}
    if service != "lambda":
        return {}
    function_arn = arn.removesuffix(":$LATEST")
    invocations = emulator.async_invocations
    events = invocations.queued().get(function_arn, [])
    figures = invocations.figures_of().get(function_arn, {})
    return {
        "AsynchronousInvocation": {
            "EventsPending": len(events),
            "Errors": figures.get("Errors", 0),
            "EventsDropped": figures.get("EventsDropped", 0),
            "LastError": figures.get("LastError"),
        }
    }


def rule_views(emulator: Emulator) -> dict[str, Any]:
    """EventBridge rules (bus, state, pattern, targets) and the deliveries of their events still on their way."""
    eventbridge = emulator.eventbridge
    return {
        "Rules": rules_seam.rules(),
        "DeliveriesInFlight": eventbridge.async_in_flight,
        "LastError": eventbridge.last_async_error,
    }


def pipe_views(emulator: Emulator) -> list[dict[str, Any]]:
    """Every pipe: state, source, enrichment, target and its figures (the mappings' names) and last error."""
    pipes = emulator.eventbridge.pipes
    views = []
    for key, pipe in sorted(pipes.pipes.items(), key=lambda item: item[1].name):
        view = {
            "Name": pipe.name,
            "Arn": pipe.arn,
            "Region": pipe.region,
            "DesiredState": pipe.desired_state,
            "CurrentState": pipe.current_state,
            "Source": pipe.source,
            "Target": pipe.target,
        }
        if pipe.enrichment:
            view["Enrichment"] = pipe.enrichment
        figures = pipes.runs.figures.get(key)
        if figures is not None:
            view.update(figures.to_dict())
        views.append(view)
    return views


def asynchronous_invocations(emulator: Emulator) -> dict[str, Any]:
    """The functions' asynchronous invocation queues (InvocationType Event, S3, SNS, rules): how many events are not
    done, and per function its figures (Invocations, Errors, Retries, EventsDropped, LastError) and the events not
    done (State Queued / Running / Throttled / WaitingForRetry / WaitingToExpire, Attempts, NextAttemptAt)."""
    invocations = emulator.async_invocations
    queued, figures = invocations.queued(), invocations.figures_of()
    return {
        "EventsPending": sum(len(events) for events in queued.values()),
        "Functions": [
            dict(
                figures.get(arn, {}),
                FunctionArn=arn,
                FunctionName=arn.rsplit(":function:", 1)[-1],
                Events=queued.get(arn, []),
            )
            for arn in sorted(set(queued) | set(figures))
        ],
    }
