"""SNS subscriptions to functions, queues and Firehose delivery streams while an emulator is open.

moto's Subscription.publish hands a "lambda" subscription's message to moto's Lambda, which needs Docker; Eddy
takes that branch: the subscription's filter policy is applied as SNS applies it (Eddy's matcher, which
filter_policies.py puts in moto's place; FilterPolicyScope MessageAttributes or MessageBody), the message gets Lambda's SNS event
(notifications/sns_events.py, from the notification moto signs for HTTP subscribers) and the function is invoked
asynchronously, as SNS invokes Lambda. SQS subscriptions (RawMessageDelivery, filter policies) stay moto's, counted
here; a queue that no longer exists (or refuses the message) is a failed delivery that SNS's publisher never hears
of, where moto's Publish failed with QueueDoesNotExist, and the message goes to the subscription's RedrivePolicy queue
as the subscribed queue would have had it (LocalStack's AWS-validated test_sns.snapshot.json:
test_redrive_policy_sqs_queue_subscription, test_publish_fifo_messages_to_dlq). A function that does not exist is a
failed delivery too, moved at once to the RedrivePolicy queue (_to_function). A "firehose" subscription's notification (moto delivers none)
is put to moto's delivery stream, its S3 destination written at once (_to_stream).
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import json
import threading
import uuid
from typing import Any

from moto.sns.models import Subscription
from moto.sns.responses import SNSResponse
from moto.sqs.models import SQSBackend

from eddy.emulator.moto_seam.notifications import trace_headers
from eddy.emulator.moto_seam.notifications.destinations import (
    arn_parts,
    dead_letter_arn,
    delivery_of,
    queue_exists,
    refusal,
)
from eddy.emulator.moto_seam.notifications.target import Target, active
from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.services import moments
from eddy.emulator.notifications.delivery_status import Outcome
from eddy.emulator.notifications.sns_events import lambda_event


_patches = Patches()
_delivery = threading.local()  # the SQS system attributes of the notification this thread delivers


def install() -> None:
    publish = Subscription.publish

    @functools.wraps(publish)
    def published(
        self: Subscription,
        message: str,
        message_id: str,
        subject: str | None = None,
        message_attributes: dict[str, Any] | None = None,
        group_id: str | None = None,
        deduplication_id: str | None = None,
        message_structure: str | None = None,
    ) -> None:
        target = active.target
        options = {
            "subject": subject,
            "message_attributes": message_attributes,
            "group_id": group_id,
            "deduplication_id": deduplication_id,
            "message_structure": message_structure,
        }
        if target is None or self.protocol not in ("lambda", "sqs", "firehose"):
            return publish(self, message, message_id, **options)
        trigger, counted = ("sns", self.arn), not moments.replaying()  # figures are this run's
        if self._filter_policy_matcher is not None and not self._filter_policy_matcher.matches(
            message_attributes, message
        ):
            if counted:
                target.filtered_out(trigger)
            return None
        if self.protocol == "sqs":
            error, outcome = _to_queue(self, publish, message, message_id, options)
            dead_letter = dead_letter_arn(self) if error else None
            if dead_letter is not None:  # moto's SQS again: the replayed Publish moves it as this one did
                _to_queue(_redriven(self, dead_letter), publish, message, message_id, options)
        elif self.protocol == "firehose":  # moto's Firehose and S3 again, replayed as they were made
            error, outcome = _to_stream(self, message, message_id, options)
        else:
            error, outcome = _to_function(self, target, publish, message, message_id, options)
        if counted:
            if error:
                target.failed(trigger, error)
            else:
                target.delivered(trigger)
            delivery = delivery_of(self, lambda: _as_delivered(self, message, message_structure), message_id)
            if outcome is not None and delivery is not None:
                target.delivery_status(delivery, outcome)
        return None

    _patches.set(Subscription, "publish", published)
    _patches.set(SNSResponse, "setup_class", trace_headers.noting_the_trace(SNSResponse.setup_class))
    _patches.set(SQSBackend, "send_message", _traced(SQSBackend.send_message))
    _patches.set(Subscription, "_parse_message_structure", _structured_message(Subscription._parse_message_structure))


def _structured_message(parse: Any) -> Any:
    """A MessageStructure "json" message's text for the subscription's protocol: its protocol's entry where that is a
    string, else its "default" (moto took an object under the protocol's key and sent Python's repr of it;
    LocalStack's AWS-validated test_sns.snapshot.json, test_message_structure_json_to_sqs/get-msg-json-default: an
    object under "sqs" ignored). The door has refused a message without a string "default"."""

    @functools.wraps(parse)
    def parsed(self: Subscription, message: str, protocol: str) -> str:
        if active.target is None:
            return parse(self, message, protocol)
        structure = json.loads(message)
        entry = structure.get(self.protocol)
        return entry if isinstance(entry, str) and entry else structure["default"]

    return parsed


def uninstall() -> None:
    _patches.restore()


def _to_queue(
    subscription: Subscription, publish: Any, message: str, message_id: str, options: dict[str, Any]
) -> tuple[str | None, Outcome]:
    """moto's delivery to the queue: what went wrong, if anything, and what SQS answered (for the delivery-status
    log: SQS's request id and message id; a queue gone is SQS's NonExistentQueue, status 400)."""
    if not queue_exists(subscription.endpoint):
        return f"The destination queue does not exist: {subscription.endpoint}", _refused(
            400, "AWS.SimpleQueueService.NonExistentQueue",
            "The specified queue does not exist or you do not have access to it.", "sqsRequestId")
    if str(subscription.attributes.get("RawMessageDelivery")).lower() == "true":
        options = dict(options, message_attributes=_binary_as_bytes(options["message_attributes"]))
    topic = subscription.topic
    if not subscription.endpoint.endswith(".fifo"):
        # a standard queue takes a FIFO topic's message without its group or deduplication id, and a standard topic's
        # with the MessageGroupId its Publish gave (LocalStack's AWS-validated test_sns.snapshot.json, both recorded
        # 18-08-2025: test_fifo_topic_to_regular_sqs, no MessageGroupId attribute; test_publish_message_group_id, one)
        fifo_topic = str(subscription.topic.arn).endswith(".fifo")
        options = dict(options, group_id=None if fifo_topic else options["group_id"], deduplication_id=None)
    elif options["deduplication_id"] is None and str(getattr(topic, "content_based_deduplication", "")).lower() == "true":
        # a FIFO topic's content-based deduplication id goes on to the queue, which may have none of its own: the
        # SHA-256 of the message, as SNS makes it (FIFO topics, "Message deduplication for FIFO topics")
        options = dict(options, deduplication_id=hashlib.sha256(message.encode()).hexdigest())
    _delivery.system_attributes, _delivery.sent = trace_headers.system_attributes(), None
    try:
        publish(subscription, message, message_id, **options)
    except Exception as failure:  # moto's SQS refused it (its AWS error)
        return refusal(failure), _refused(getattr(failure, "status_code", 400), getattr(failure, "code", "Error"),
                                          str(getattr(failure, "message", failure)), "sqsRequestId")
    finally:
        _delivery.system_attributes = None
    response = {"sqsRequestId": str(uuid.uuid4()), "sqsMessageId": getattr(_delivery, "sent", None)}
    return None, Outcome(200, json.dumps(response, separators=(",", ":")), attempts=1)


def _to_stream(
    subscription: Subscription, message: str, message_id: str, options: dict[str, Any]
) -> tuple[str | None, Outcome]:
    """The notification (or, with RawMessageDelivery, the message) and a newline, put as one record to the Firehose
    delivery stream moto keeps (its S3 destination's object written at once); what went wrong, if anything. The SNS
    Developer Guide, "Fanout to Firehose delivery streams": the notification JSON an SQS subscriber gets, newline
    delimited in the destination (LocalStack's AWS-validated test_sns.py at 8b9a79f05846,
    test_publish_to_firehose_with_s3, reads the object's first line as the notification)."""
    from moto.firehose.models import firehose_backends  # moto's Firehose, loaded by the first delivery to it

    if options["message_structure"] == "json":
        message = subscription._parse_message_structure(message, subscription.protocol)
    if str(subscription.attributes.get("RawMessageDelivery")).lower() == "true":
        body = message
    else:
        body = json.dumps(subscription.get_post_data(
            message, message_id, options["subject"], message_attributes=options["message_attributes"]))
    region, account, resource = arn_parts(subscription.endpoint)
    backend = firehose_backends[account][region] if region else None
    name = resource.removeprefix("deliverystream/")
    if backend is None or name not in backend.delivery_streams:
        return f"The destination delivery stream does not exist: {subscription.endpoint}", _refused(
            400, "ResourceNotFoundException", f"Firehose {name} under account {account} not found.",
            "firehoseRequestId")
    try:
        backend.put_record(name, {"Data": (body + "\n").encode()})
    except Exception as failure:  # moto's Firehose refused it, or its destination failed
        return refusal(failure), _refused(getattr(failure, "status_code", 400), getattr(failure, "code", "Error"),
                                          str(getattr(failure, "message", failure)), "firehoseRequestId")
    return None, Outcome(200, json.dumps({"firehoseRequestId": str(uuid.uuid4())}, separators=(",", ":")),
                         attempts=1)


def _traced(send_message: Any) -> Any:
    """moto's SQS send_message, given the Publish's X-Ray trace header (AWSTraceHeader) while a notification goes to
    a queue (moto's Subscription.publish gives none: LocalStack's AWS-validated test_sns.snapshot.json at
    8b9a79f05846, test_publish_sqs_from_sns_with_xray_propagation)."""

    @functools.wraps(send_message)
    def send(self: Any, *args: Any, system_attributes: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        traced = getattr(_delivery, "system_attributes", None)
        sent = send_message(self, *args, system_attributes=system_attributes or traced, **kwargs)
        _delivery.sent = getattr(sent, "id", None)  # the message id, for the delivery-status log
        return sent

    return send


def _binary_as_bytes(attributes: dict[str, Any] | None) -> dict[str, Any] | None:
    """A raw delivery's Binary attributes as SQS keeps them, bytes: moto's SNS handed on the base64 text Publish was
    given, on which moto's SQS crashed when the message was received (its MD5 of the attributes)."""
    if not attributes:
        return attributes
    return {
        name: dict(value, Value=base64.b64decode(value["Value"]))
        if str(value.get("Type", "")).startswith("Binary") and isinstance(value.get("Value"), str) else value
        for name, value in attributes.items()
    }


def _to_function(
    subscription: Subscription, target: Target, publish: Any, message: str, message_id: str, options: dict[str, Any]
) -> tuple[str | None, Outcome | None]:
    """Lambda's SNS event, queued for the function's asynchronous invocation; what went wrong, if anything. A function
    that no longer exists is a client-side error: not retried, the notification moved at once to the subscription's
    RedrivePolicy queue, as an SQS subscriber would have had it (the SNS Developer Guide, "Amazon SNS dead-letter
    queues": "Client-side errors"; LocalStack's AWS-validated test_sns.snapshot.json,
    test_redrive_policy_lambda_subscription). Replayed, the event is not queued again (the function's asynchronous
    queue has it) and the move is made again only if the first run kept that the function was gone (moments.keep):
    whether it existed then is Eddy's, not in moto's log."""
    if options["message_structure"] == "json":
        message = subscription._parse_message_structure(message, subscription.protocol)
        options = dict(options, message_structure=None)
    undeliverable = b"sns-undeliverable:" + subscription.arn.encode()
    if moments.replaying():
        dead_letter = dead_letter_arn(subscription)
        if moments.kept(undeliverable) and dead_letter is not None:
            _to_queue(_redriven(subscription, dead_letter), publish, message, message_id, options)
        return None, None
    notification = subscription.get_post_data(
        message, message_id, options["subject"], message_attributes=options["message_attributes"]
    )
    request_id = target.invoke_function(subscription.endpoint, lambda_event(notification, subscription.arn), "sns")
    if request_id:  # Lambda took the asynchronous invocation: 202 (the delivery-status log's)
        return None, Outcome(202, json.dumps({"lambdaRequestId": request_id}, separators=(",", ":")))
    dead_letter = dead_letter_arn(subscription)
    if dead_letter is not None:
        moments.keep(undeliverable)
        _to_queue(_redriven(subscription, dead_letter), publish, message, message_id, options)
    return f"The function does not exist: {subscription.endpoint}", _refused(
        404, "ResourceNotFoundException", f"Function not found: {subscription.endpoint}", "lambdaRequestId", None)


def _as_delivered(subscription: Subscription, message: str, structure: str | None) -> str:
    """The message as the subscription's protocol had it (its delivery-status log's MD5 is of it)."""
    return subscription._parse_message_structure(message, subscription.protocol) if structure == "json" else message


def _refused(
    status: int, code: str, words: str, request_id_name: str, attempts: int | None = 1
) -> Outcome:
    """A subscriber's refusal as the delivery-status log has it: its status, and its error with the request id
    "Unrecoverable" (as AWS logs an SQS refusal: the module's docstring of notifications/delivery_status.py)."""
    response = {"ErrorCode": code, "ErrorMessage": words, request_id_name: "Unrecoverable"}
    return Outcome(status, json.dumps(response, separators=(",", ":")), attempts=attempts, delivered=False)


def _redriven(subscription: Subscription, dead_letter: str) -> Subscription:
    """The subscription as its dead-letter queue's: the same notification (its ARN in the UnsubscribeURL, raw or not,
    its group and deduplication ids), to the RedrivePolicy's queue, filtered already."""
    redriven = copy.copy(subscription)
    redriven.endpoint, redriven.protocol, redriven._filter_policy_matcher = dead_letter, "sqs", None
    return redriven
