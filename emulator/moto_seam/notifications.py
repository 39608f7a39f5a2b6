"""The seam between moto's pushes to functions and Eddy's: S3 event notifications and SNS "lambda" subscriptions
(moto's S3 and SNS internals for them are touched only here).

S3:

moto's S3 calls moto.s3.notifications.send_event after each object change that notifies (Put, Post, Copy,
CompleteMultipartUpload, Delete, restores, tagging). While an emulator is open Eddy answers that call instead:
  - the record is AWS's whole record (notifications/s3_events.py: userIdentity, requestParameters,
    responseElements, the bucket's ownerIdentity, the object's versionId and a sequencer; eventTime on the
    emulator's clock), where moto's has none of those;
  - a queue destination gets the record as a message, sent through moto's SQS (a queue mapping then feeds a
    function); a topic's is published through moto's SNS;
  - a Lambda destination is one of Eddy's functions, invoked asynchronously (moto's would need Docker);
  - EventBridge delivery stays moto's.
In a bucket with versioning enabled moto sends nothing for a DeleteObject without VersionId and, with one, only
once the key's last version is gone (naming the wrong version); Eddy sends what S3 sends: a delete marker made is
ObjectRemoved:DeleteMarkerCreated, with the marker's versionId and the eTag of its empty content and no size (as
AWS's recorded records show it, e.g. "eTag": "d41d8cd98f00b204e9800998ecf8427e"), and a version deleted is
ObjectRemoved:Delete with that version's versionId. DeleteObjects runs DeleteObject per key: one record per key.
PutBucketNotificationConfiguration is checked first as S3 checks it: every destination must exist ("Unable to
validate the following destination configurations", naming each missing one in ArgumentName1/ArgumentValue1, ...
as AWS's recorded answers do) and no two configurations may share an event type for keys both could match
("Configurations overlap. Configurations on the same bucket cannot share a common event type.").
One operation, one event, as S3 sends them: moto's CompleteMultipartUpload runs its PutObject and PutObjectTagging
(an ObjectCreated:Put and an ObjectTagging:Put before its ObjectCreated:CompleteMultipartUpload), and its PutObject
and CopyObject handlers run PutObjectTagging (an ObjectTagging:Put after each); Eddy drops those inner events
(QUIETED). A key filter's rule names are matched whatever their case ("Prefix" as GetBucketNotificationConfiguration
answers, "prefix"), where moto's matcher knows only "prefix" and "suffix".
Each configuration's and subscription's deliveries are counted (Target.delivered / Target.failed / filtered_out):
the dashboard's per-trigger figures.

SNS:
moto's Subscription.publish hands a "lambda" subscription's message to moto's Lambda, which needs Docker. While an
emulator is open Eddy takes that branch: the subscription's filter policy is applied as moto applies it (moto's
matcher, FilterPolicyScope MessageAttributes or MessageBody), the message gets Lambda's SNS event
(notifications/sns_events.py, from the notification moto signs for HTTP subscribers) and the function is invoked
asynchronously, as SNS invokes Lambda. SQS subscriptions (RawMessageDelivery, filter policies) stay moto's, counted
here: a queue that no longer exists is a failed delivery (SNS's publisher never hears of it, where moto's Publish
failed with QueueDoesNotExist).
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from typing import Any, Protocol

from moto.moto_api._internal import mock_random
from moto.s3 import notifications as moto_notifications
from moto.s3.exceptions import S3ClientError
from moto.core import serialize as moto_serialize
from moto.s3.models import FakeBucket, NotificationConfiguration, S3Backend
from moto.s3.responses import S3Response
from moto.sns.models import Subscription, sns_backends
from moto.sqs.models import sqs_backends

from emulator.moto_seam.services import moments
from emulator.notifications.s3_events import event_record, overlapping
from emulator.notifications.sns_events import lambda_event

KINDS = (("queue", "QueueConfiguration"), ("topic", "TopicConfiguration"), ("cloud_function", "CloudFunctionConfiguration"))


#: the events moto sends inside an operation that S3 does not send for it (see the module's note)
QUIETED = {
    "complete_multipart_upload": frozenset({"s3:ObjectCreated:Put", "s3:ObjectTagging:Put"}),
    "put_object": frozenset({"s3:ObjectTagging:Put"}),  # S3Response's: PutObject's tags are part of the object
    "copy_object": frozenset({"s3:ObjectTagging:Put"}),  # ... and CopyObject's (x-amz-tagging-directive REPLACE)
}
#: what S3 answers for a destination it cannot validate, per kind (ArgumentName, ArgumentValue), from AWS's recorded
#: answers (LocalStack's AWS-validated snapshots tests/aws/services/s3/test_s3_notifications_{sqs,lambda}.snapshot.json);
#: a topic's as LocalStack words it (no recorded answer found)
UNVALIDATED = {
    "queue": lambda arn: (arn, "The destination queue does not exist"),
    "topic": lambda arn: (arn, "The destination topic does not exist"),
    "cloud_function": lambda arn: (f"{arn}, null", f"Not authorized to invoke function [{arn}]"),
}


class Target(Protocol):
    """What the seam needs of Eddy: the sequencer, its functions (the time is the request's moment's), and where
    each trigger's deliveries are counted (`trigger`: ("sns", subscription ARN) or ("s3", bucket, configuration id))."""

    def sequencer(self) -> str: ...

    def function_exists(self, arn: str) -> bool: ...

    def invoke_function(self, arn: str, event: dict[str, Any], source: str) -> bool: ...

    def delivered(self, trigger: tuple[str, ...]) -> None: ...

    def failed(self, trigger: tuple[str, ...], error: str) -> None: ...

    def filtered_out(self, trigger: tuple[str, ...]) -> None: ...


class DestinationsNotValidated(S3ClientError):
    """InvalidArgument naming each destination S3 could not validate (ArgumentName1, ArgumentValue1, ...)."""

    code = "InvalidArgument"

    def __init__(self, arguments: list[tuple[str, str]]) -> None:
        super().__init__("InvalidArgument", "Unable to validate the following destination configurations")
        self.arguments = arguments


_target: Target | None = None
_installed = False
_moto_send_event = moto_notifications.send_event
#: set while a versioned bucket's DeleteObject runs: its events are Eddy's, not moto's
_deleting = threading.local()
#: the events to drop in the operation running on this thread (QUIETED)
_quiet = threading.local()
#: the eTag of a delete marker (MD5 of no content), as S3's DeleteMarkerCreated records carry it
EMPTY_ETAG = hashlib.md5(b"").hexdigest()


def activate(target: Target) -> None:
    global _target
    _install()
    _target = target


def deactivate() -> None:
    global _target
    _target = None


def _install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    set_configuration = FakeBucket.set_notification_configuration

    def checked(self: FakeBucket, notification_config: dict[str, Any] | None) -> None:
        target = _target
        if target is not None and notification_config:
            _check(target, NotificationConfiguration(
                topic=notification_config.get("TopicConfiguration"), queue=notification_config.get("QueueConfiguration"),
                cloud_function=notification_config.get("CloudFunctionConfiguration")))
        set_configuration(self, notification_config)

    FakeBucket.set_notification_configuration = checked
    moto_notifications.send_event = _send_event
    S3Backend.delete_object = _versioned_delete(S3Backend.delete_object)
    S3Backend.complete_multipart_upload = _quieted(S3Backend.complete_multipart_upload, QUIETED["complete_multipart_upload"])
    S3Response.put_object = _quieted(S3Response.put_object, QUIETED["put_object"])
    S3Response.copy_object = _quieted(S3Response.copy_object, QUIETED["copy_object"])
    moto_serialize.S3Serializer._serialize_error_metadata = _with_arguments(
        moto_serialize.S3Serializer._serialize_error_metadata)
    _install_sns()


def _quieted(operation: Any, events: frozenset[str]) -> Any:
    """`operation`, during which moto's `events` are not sent (the operation's own event still is)."""

    @functools.wraps(operation)
    def quiet(*args: Any, **kwargs: Any) -> Any:
        before = getattr(_quiet, "events", frozenset())
        _quiet.events = before | events
        try:
            return operation(*args, **kwargs)
        finally:
            _quiet.events = before

    return quiet


def _with_arguments(serialize_error_metadata: Any) -> Any:
    """moto's S3 error body, with ArgumentName1, ArgumentValue1, ... for an error that carries `arguments` (moto's
    model of InvalidArgument has one ArgumentName and ArgumentValue only)."""

    def serialized(self: Any, serialized: Any, error: Exception, shape: Any) -> None:
        serialize_error_metadata(self, serialized, error, shape)
        for number, (name, value) in enumerate(getattr(error, "arguments", None) or [], start=1):
            serialized[f"ArgumentName{number}"] = name
            serialized[f"ArgumentValue{number}"] = value

    return serialized


def _arn_parts(arn: str) -> tuple[str, str, str]:
    """(region, account, resource) of a queue's or topic's ARN."""
    parts = arn.split(":", 5)
    if len(parts) < 6:
        return "", "", ""
    return parts[3], parts[4], parts[5]


def _queue_exists(arn: str) -> bool:
    region, account, name = _arn_parts(arn)
    return bool(region) and name in sqs_backends[account][region].queues


def _topic_exists(arn: str) -> bool:
    region, account, _ = _arn_parts(arn)
    return bool(region) and arn in sns_backends[account][region].topics


def _check(target: Target, configuration: NotificationConfiguration) -> None:
    exists = {"queue": _queue_exists, "topic": _topic_exists, "cloud_function": target.function_exists}
    every = [(kind, n) for kind, _ in KINDS for n in getattr(configuration, kind)]
    missing = [UNVALIDATED[kind](n.arn) for kind, n in every if not exists[kind](n.arn)]
    if missing:
        raise DestinationsNotValidated(missing)
    shapes = [(list(n.events), *_prefix_suffix(n)) for _, n in every]
    for index, first in enumerate(shapes):
        if any(overlapping(first, second) for second in shapes[index + 1:]):
            raise S3ClientError("InvalidArgument",
                                "Configurations overlap. Configurations on the same bucket cannot share a common event type.")


def _prefix_suffix(notification: Any) -> tuple[str, str]:
    rules = notification.filters.get("S3Key", {}).get("FilterRule", []) if notification.filters else []
    if isinstance(rules, dict):
        rules = [rules]
    values = {rule["Name"].lower(): rule["Value"] for rule in rules}
    return values.get("prefix", ""), values.get("suffix", "")


def _send_event(account_id: str, event_name: Any, bucket: Any, key: Any) -> None:
    target = _target
    if target is None:
        return _moto_send_event(account_id, event_name, bucket, key)
    if getattr(_deleting, "active", False):
        return None  # _versioned_delete sends S3's own event
    name = str(event_name.value if hasattr(event_name, "value") else event_name)
    if name in getattr(_quiet, "events", ()):
        return None  # not an event S3 sends for the operation running (QUIETED)
    removed = name.startswith("s3:ObjectRemoved")
    version = key.version_id if getattr(bucket, "is_versioned", False) else None
    _notify(target, bucket, name, key.name, None if removed else key.size,
            None if removed else key.etag.strip('"'), version)
    if bucket.notification_configuration is not None and bucket.notification_configuration.event_bridge is not None:
        moto_notifications._send_event_bridge_message(account_id, bucket, event_name, key)
    return None


def _notify(target: Target, bucket: Any, name: str, key_name: str, size: int | None, etag: str | None,
            version: str | None) -> None:
    """Each configuration of the bucket that matches event `name` ("s3:ObjectRemoved:Delete") gets its record."""
    configuration = bucket.notification_configuration
    if configuration is None:
        return
    for kind, _ in KINDS:
        for notification in getattr(configuration, kind):
            prefix, suffix = _prefix_suffix(notification)
            if not (notification._event_matches(name) and key_name.startswith(prefix) and key_name.endswith(suffix)):
                continue
            record = event_record(
                event_name=name[3:], region=bucket.region_name, bucket=bucket.name, account_id=bucket.account_id,
                key=key_name, size=size, etag=etag, version_id=version, sequencer=target.sequencer(),
                configuration_id=notification.id, now=moments.now(),  # the request's instant and random stream,
                random_bits=mock_random.getrandbits)                 # also when it is replayed
            _deliver(target, kind, notification.arn, {"Records": [record]}, ("s3", bucket.name, notification.id))


def _versioned_delete(delete_object: Any) -> Any:
    """S3Backend.delete_object, sending S3's events for a bucket with versioning enabled (see the module's note)."""

    def deleted(self: S3Backend, bucket_name: str, key_name: str, version_id: str | None = None,
                bypass: bool = False) -> Any:
        target = _target
        bucket = self.buckets.get(bucket_name)
        if target is None or bucket is None or not bucket.is_versioned:
            return delete_object(self, bucket_name, key_name, version_id=version_id, bypass=bypass)
        existed = version_id is not None and key_name in bucket.keys and any(
            str(key.version_id) == str(version_id) for key in bucket.keys.getlist(key_name))
        _deleting.active = True
        try:
            result = delete_object(self, bucket_name, key_name, version_id=version_id, bypass=bypass)
        finally:
            _deleting.active = False
        _, meta = result
        # (moto's EventBridge delivery of S3 events has no shape for these two: it stays silent for them, as before)
        if version_id is None and meta.get("delete-marker"):
            _notify(target, bucket, "s3:ObjectRemoved:DeleteMarkerCreated", key_name, None, EMPTY_ETAG,
                    meta["version-id"])
        elif existed:
            _notify(target, bucket, "s3:ObjectRemoved:Delete", key_name, None, None, str(version_id))
        return result

    return deleted


def _deliver(target: Target, kind: str, arn: str, event: dict[str, Any], trigger: tuple[str, ...]) -> None:
    """To the destination, as S3 does: asynchronously for S3's caller, whose request never fails for it. Counted
    for `trigger` (not while the log is replayed: figures are this run's, as the mappings' are)."""
    region, account, resource = _arn_parts(arn)
    replaying = moments.replaying()
    error = None
    try:
        if kind == "queue":
            if not _queue_exists(arn):
                error = f"The destination queue does not exist: {arn}"
            else:
                sqs_backends[account][region].send_message(queue_name=resource, message_body=json.dumps(event))
        elif kind == "topic":
            if not _topic_exists(arn):
                error = f"The destination topic does not exist: {arn}"
            else:
                sns_backends[account][region].publish(arn=arn, message=json.dumps(event),
                                                      subject="Amazon S3 Notification")
        elif not replaying:  # replayed, a queue or topic gets its message again (moto's state is rebuilt so), a
            if not target.invoke_function(arn, event, "s3"):  # function does not: its asynchronous queue has it
                error = f"The destination function does not exist: {arn}"
    except Exception as failure:  # moto refused the message (its AWS error): S3's caller never hears of it
        error = f"{getattr(failure, 'code', type(failure).__name__)}: {getattr(failure, 'message', failure)}"
    if replaying:
        return
    if error:
        target.failed(trigger, error)
    else:
        target.delivered(trigger)


def _install_sns() -> None:
    publish = Subscription.publish

    def published(self: Subscription, message: str, message_id: str, subject: str | None = None,
                  message_attributes: dict[str, Any] | None = None, group_id: str | None = None,
                  deduplication_id: str | None = None, message_structure: str | None = None) -> None:
        target = _target
        if target is None or self.protocol not in ("lambda", "sqs"):
            return publish(self, message, message_id, subject=subject, message_attributes=message_attributes,
                           group_id=group_id, deduplication_id=deduplication_id, message_structure=message_structure)
        trigger, counted = ("sns", self.arn), not moments.replaying()
        if self._filter_policy_matcher is not None and not self._filter_policy_matcher.matches(message_attributes, message):
            if counted:
                target.filtered_out(trigger)
            return None
        if self.protocol == "sqs":
            return _publish_to_queue(self, publish, target, trigger, counted, message, message_id, subject=subject,
                                     message_attributes=message_attributes, group_id=group_id,
                                     deduplication_id=deduplication_id, message_structure=message_structure)
        if message_structure == "json":
            message = self._parse_message_structure(message, self.protocol)
        notification = self.get_post_data(message, message_id, subject, message_attributes=message_attributes)
        region = self.topic.sns_backend.region_name
        if counted:
            if target.invoke_function(self.endpoint, lambda_event(notification, self.arn, region), "sns"):
                target.delivered(trigger)
            else:
                target.failed(trigger, f"The function does not exist: {self.endpoint}")
        return None

    Subscription.publish = published


def _publish_to_queue(subscription: Subscription, publish: Any, target: Target, trigger: tuple[str, ...],
                      counted: bool, message: str, message_id: str, **options: Any) -> None:
    """moto's delivery to an SQS subscription, counted; a queue gone (or refusing the message) fails the delivery,
    not the publisher's request, as on SNS."""
    if not _queue_exists(subscription.endpoint):
        if counted:
            target.failed(trigger, f"The destination queue does not exist: {subscription.endpoint}")
        return None
    try:
        publish(subscription, message, message_id, **options)
    except Exception as failure:  # moto's SQS refused it (its AWS error)
        if counted:
            target.failed(trigger, f"{getattr(failure, 'code', type(failure).__name__)}: "
                                   f"{getattr(failure, 'message', failure)}")
        return None
    if counted:
        target.delivered(trigger)
    return None
