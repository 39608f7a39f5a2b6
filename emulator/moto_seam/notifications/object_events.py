"""moto's S3 events answered by Eddy while an emulator is open.

moto's S3 calls moto.s3.notifications.send_event after each object change that notifies (Put, Post, Copy,
CompleteMultipartUpload, Delete, restores, tagging, ACLs); Eddy answers that call instead:
  - the record is AWS's whole record (notifications/s3_events.py: userIdentity, requestParameters,
    responseElements, the bucket's ownerIdentity, the object's versionId and a sequencer; eventTime on the
    emulator's clock), where moto's has none of those;
  - a queue destination gets the record as a message, sent through moto's SQS (a queue mapping then feeds a
    function); a topic's is published through moto's SNS with S3's Subject ("Amazon S3 Notification");
  - a Lambda destination is one of Eddy's functions, invoked asynchronously (moto's would need Docker);
  - a bucket with EventBridge notifications on has each event put on its region's default event bus in S3's shape
    (notifications/s3_eventbridge.py), where moto's put one shape (no reason, a deleted object's size, "eTag",
    "version-id" "null", fixed ids) on every bus;
One operation, one event, as S3 sends them (Amazon S3 User Guide, "Supported event types for SQS, SNS, and Lambda";
AWS's recorded records in LocalStack's test_s3_notifications_sqs.snapshot.json): moto's CompleteMultipartUpload runs
its PutObject and PutObjectTagging (an ObjectCreated:Put and an ObjectTagging:Put before its
ObjectCreated:CompleteMultipartUpload), and its PutObject and CopyObject handlers run PutObjectTagging (an
ObjectTagging:Put after each); Eddy drops those inner events (QUIETED). A PutObjectAcl that leaves the object's ACL
as it was sends nothing. A tagging or ACL event is shaped as AWS's
(eventVersion 2.3, no size, no sequencer: notifications/s3_events.py).
A key filter is matched whatever its rules' names' case (moto's matcher knows "prefix" and "suffix" only).
In a bucket with versioning Enabled or Suspended (kept as S3 keeps it: moto_seam/s3/versioning.py) moto sends
nothing for a DeleteObject without VersionId and, with one, only
once the key's last version is gone (naming the wrong version); Eddy sends what S3 sends: a delete marker made is
ObjectRemoved:DeleteMarkerCreated, with the marker's versionId and the eTag of its empty content and no size (as
AWS's recorded records show it, e.g. "eTag": "d41d8cd98f00b204e9800998ecf8427e"), and a version deleted is
ObjectRemoved:Delete with that version's versionId; a null version is named by no versionId (AWS's recorded
test_object_created_put_versioned: a Suspended bucket's ObjectCreated:Put has none). DeleteObjects runs DeleteObject
per key: one record per key, and, in a bucket without versioning, one for a key that was not there too, where moto sends none (AWS's recorded
test_delete_objects, LocalStack's test_s3_notifications_sqs.snapshot.json: three keys, one of them put, three
ObjectRemoved:Delete records); a DeleteObject of a missing key alone sends nothing.
A RestoreObject sends ObjectRestore:Post and, as moto's restored copy is there at once (HeadObject answers
ongoing-request="false"), ObjectRestore:Completed right after it, where moto sent it at the object's next read (its
glacierEventData: the copy's expiry and the storage class; AWS's recorded test_restore_object).
A queue's message carries the request's X-Ray trace header as its AWSTraceHeader (notifications/trace_headers.py).
A new configuration's s3:TestEvent is S3's (RequestId and HostId, Time on the emulator's clock, the Subject to a
topic), where moto's has neither id.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from typing import Any

from moto.moto_api._internal import mock_random
from moto.s3 import notifications as moto_notifications
from moto.s3.models import S3Backend
from moto.events.models import events_backends
from moto.s3.responses import S3Response
from moto.sns.models import sns_backends
from moto.sqs.models import sqs_backends

from eddy.emulator.moto_seam.notifications.configurations import each_configuration
from eddy.emulator.moto_seam.notifications.destinations import arn_parts, queue_exists, refusal, topic_exists
from eddy.emulator.moto_seam.notifications.lifecycle_expirations import (
    LIFECYCLE_EVENTS,
    LIFECYCLE_PRINCIPAL,
    lifecycle_running,
)
from eddy.emulator.moto_seam.notifications import trace_headers
from eddy.emulator.moto_seam.notifications.target import Target, active
from eddy.emulator.moto_seam.s3.versioning import NULL, versioning_set
from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.services import moments
from eddy.emulator.notifications.s3_eventbridge import SOURCE, detail_type, event_detail
from eddy.emulator.notifications.s3_events import SOURCE_IP_ADDRESS, event_record, is_property_event, test_message

#: the events moto sends inside an operation that S3 does not send for it
QUIETED = {
    "complete_multipart_upload": frozenset({"s3:ObjectCreated:Put", "s3:ObjectTagging:Put"}),
    "put_object": frozenset({"s3:ObjectTagging:Put"}),  # S3Response's: PutObject's tags are part of the object
    "copy_object": frozenset({"s3:ObjectTagging:Put"}),  # ... and CopyObject's (x-amz-tagging-directive REPLACE)
}
#: the Subject S3 gives its messages to topics (AWS's recorded messages: test_s3_notifications_sns.snapshot.json)
SUBJECT = "Amazon S3 Notification"
RESTORE_POST, RESTORE_COMPLETED = "s3:ObjectRestore:Post", "s3:ObjectRestore:Completed"
#: the eTag of a delete marker (MD5 of no content), as S3's DeleteMarkerCreated records carry it
EMPTY_ETAG = hashlib.md5(b"").hexdigest()

log = logging.getLogger("eddy.notifications")

_moto_send_event = moto_notifications.send_event
_moto_send_test_event = moto_notifications.send_test_event
#: per thread: set while a versioned bucket's DeleteObject runs (its events are Eddy's, not moto's), while a
#: DeleteObjects runs, and the events to drop in the operation running (QUIETED)
_deleting = threading.local()
_batch = threading.local()
_quiet = threading.local()


_patches = Patches()


def install() -> None:
    _patches.set(moto_notifications, "send_event", _send_event)
    _patches.set(moto_notifications, "send_test_event", _send_test_event)
    _patches.set(S3Backend, "delete_object", _versioned_delete(S3Backend.delete_object))
    _patches.set(S3Backend, "delete_objects", _batch_delete(S3Backend.delete_objects))
    _patches.set(S3Backend, "put_object_acl", _acl_changes_only(S3Backend.put_object_acl))
    _patches.set(
        S3Backend,
        "complete_multipart_upload",
        _quieted(S3Backend.complete_multipart_upload, QUIETED["complete_multipart_upload"]),
    )
    _patches.set(S3Response, "put_object", _quieted(S3Response.put_object, QUIETED["put_object"]))
    _patches.set(S3Response, "copy_object", _quieted(S3Response.copy_object, QUIETED["copy_object"]))


def uninstall() -> None:
    _patches.restore()


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


def _acl_changes_only(put_object_acl: Any) -> Any:
    """S3Backend.put_object_acl, whose ObjectAcl:Put is sent only when the object's ACL changes: S3 sends none for an
    ACL put as it was (AWS's recorded test_object_put_acl, LocalStack's test_s3_notifications_{sqs,eventbridge}
    .snapshot.json: four PutObjectAcl, the first "private" as the object had it, three events)."""

    @functools.wraps(put_object_acl)
    def put(
        self: S3Backend, bucket_name: str, key_name: str, acl: Any, disable_notification: bool | None = False
    ) -> None:
        if active.target is not None and not disable_notification:
            key = self.buckets[bucket_name].keys.get(key_name) if bucket_name in self.buckets else None
            disable_notification = key is not None and _grants(key.acl) == _grants(acl)
        return put_object_acl(self, bucket_name, key_name, acl, disable_notification=disable_notification)

    return put


def _grants(acl: Any) -> set[tuple[str, str, str]]:
    """What an ACL grants: (grantee's id, grantee's URI, permission) for each grant."""
    grants = acl.grants if acl is not None else []
    return {
        (str(grantee.id), str(grantee.uri), str(permission))
        for grant in grants
        for grantee in grant.grantees
        for permission in (grant.permissions if isinstance(grant.permissions, list) else [grant.permissions])
    }


def _send_event(account_id: str, event_name: Any, bucket: Any, key: Any) -> None:
    target = active.target
    if target is None:
        return _moto_send_event(account_id, event_name, bucket, key)
    if getattr(_deleting, "active", False):
        return None  # _versioned_delete sends S3's own event
    name = str(event_name.value if hasattr(event_name, "value") else event_name)
    if name in getattr(_quiet, "events", ()):
        return None  # not an event S3 sends for the operation running (QUIETED)
    if name == RESTORE_COMPLETED:
        return None  # sent with its ObjectRestore:Post (moto sends it at the object's next read)
    removed = name.startswith("s3:ObjectRemoved")
    version = _named(key.version_id) if versioning_set(bucket) else None
    size, etag = (None, None) if removed else (key.size, key.etag.strip('"'))
    _notify(target, bucket, name, key.name, size, etag, version, key)
    if name == RESTORE_POST:  # moto's restored copy is there at once (HeadObject: ongoing-request="false")
        _notify(target, bucket, RESTORE_COMPLETED, key.name, size, etag, version, key)
    return None


def _send_test_event(account_id: str, bucket: Any) -> None:
    """S3's s3:TestEvent to each queue and topic a new configuration names (not counted as a delivery)."""
    if active.target is None:
        return _moto_send_test_event(account_id, bucket)
    configuration = bucket.notification_configuration
    message = json.dumps(test_message(bucket=bucket.name, now=moments.now(), random_bits=mock_random.getrandbits))
    for arn in dict.fromkeys(n.arn for n in configuration.queue):
        region, account, resource = arn_parts(arn)
        if queue_exists(arn):
            sqs_backends[account][region].send_message(queue_name=resource, message_body=message)
    for arn in dict.fromkeys(n.arn for n in configuration.topic):
        region, account, _ = arn_parts(arn)
        if topic_exists(arn):
            sns_backends[account][region].publish(arn=arn, message=message, subject=SUBJECT)
    return None


def _notify(
    target: Target,
    bucket: Any,
    name: str,
    key_name: str,
    size: int | None,
    etag: str | None,
    version: str | None,
    key: Any = None,
) -> None:
    """Each configuration of the bucket that matches event `name` ("s3:ObjectRemoved:Delete") gets its record, and
    the default event bus S3's event if the bucket sends its events to EventBridge (`key`: moto's, for a restore).
    A deletion S3 Lifecycle makes (lifecycle_expirations.py) is its event, s3:LifecycleExpiration:*, by S3 itself."""
    lifecycle = lifecycle_running() and name in LIFECYCLE_EVENTS
    if lifecycle:
        name, etag = LIFECYCLE_EVENTS[name], None
    configuration = bucket.notification_configuration
    if configuration is not None and configuration.event_bridge is not None and detail_type(name) is not None:
        _to_event_bus(target, bucket, name, key_name, size, etag, version, key, lifecycle)
    for kind, _, notification, prefix, suffix in each_configuration(bucket):
        if not (notification._event_matches(name) and key_name.startswith(prefix) and key_name.endswith(suffix)):
            continue
        record = event_record(
            event_name=name[3:],
            region=bucket.region_name,
            bucket=bucket.name,
            account_id=bucket.account_id,
            key=key_name,
            size=size,
            etag=etag,
            version_id=version,
            sequencer=None if is_property_event(name) else target.sequencer(),
            configuration_id=notification.id,
            now=moments.now(),  # the request's instant and random stream,
            random_bits=mock_random.getrandbits,
            restore_event_data=_restore_event_data(key) if name == RESTORE_COMPLETED else None,
            principal=LIFECYCLE_PRINCIPAL if lifecycle else None,
        )  # also when it is replayed
        _deliver(target, kind, notification.arn, {"Records": [record]}, ("s3", bucket.name, notification.id))


def _restore_event_data(key: Any) -> dict[str, str]:
    """An ObjectRestore:Completed record's restoreEventData: the restored copy's end and the object's storage class."""
    expiry = getattr(key, "_expiry", None)
    return {
        "lifecycleRestorationExpiryTime": expiry.strftime("%Y-%m-%dT%H:%M:%S.000Z") if expiry is not None else "",
        "lifecycleRestoreStorageClass": str(getattr(key, "storage_class", "GLACIER")),
    }


def _to_event_bus(
    target: Target,
    bucket: Any,
    name: str,
    key_name: str,
    size: int | None,
    etag: str | None,
    version: str | None,
    key: Any,
    lifecycle: bool = False,
) -> None:
    """S3's event on the bucket's region's default bus, through moto's PutEvents (whose rules Eddy's engine matches
    and whose targets Eddy delivers: eventbridge/rules.py); S3's caller never hears of a failure."""
    expiry = getattr(key, "_expiry", None)  # a restored copy's end (moto's FakeKey.restore)
    detail = event_detail(
        event_name=name,
        bucket=bucket.name,
        key=key_name,
        size=size,
        etag=etag,
        version_id=version,
        sequencer=target.sequencer(),
        request_id=f"{mock_random.getrandbits(64):016X}",
        requester=LIFECYCLE_PRINCIPAL if lifecycle else bucket.account_id,
        source_ip_address=LIFECYCLE_PRINCIPAL if lifecycle else SOURCE_IP_ADDRESS,
        storage_class=getattr(key, "storage_class", None),
        restore_expiry_time=expiry.strftime("%Y-%m-%dT%H:%M:%SZ") if expiry is not None else None,
    )
    entry = {
        "Source": SOURCE,
        "DetailType": detail_type(name),
        "Detail": json.dumps(detail),
        "Resources": [f"arn:aws:s3:::{bucket.name}"],
    }
    try:
        events_backends[bucket.account_id][bucket.region_name].put_events([entry])
    except Exception:  # moto's EventBridge refused it: S3 sends its events asynchronously, its caller never fails
        log.warning("S3's event for %s/%s was not put on the default event bus", bucket.name, key_name, exc_info=True)


def _versioned_delete(delete_object: Any) -> Any:
    """S3Backend.delete_object, sending S3's events for a bucket with versioning enabled (see the module's note)."""

    @functools.wraps(delete_object)
    def deleted(
        self: S3Backend, bucket_name: str, key_name: str, version_id: str | None = None, bypass: bool = False
    ) -> Any:
        target = active.target
        bucket = self.buckets.get(bucket_name)
        if target is None or bucket is None:
            return delete_object(self, bucket_name, key_name, version_id=version_id, bypass=bypass)
        if not versioning_set(bucket):
            missing = key_name not in bucket.keys
            result = delete_object(self, bucket_name, key_name, version_id=version_id, bypass=bypass)
            if missing and getattr(_batch, "active", False):  # DeleteObjects tells of a key that was not there
                _notify(target, bucket, "s3:ObjectRemoved:Delete", key_name, None, None, None)
            return result
        existed = (
            version_id is not None
            and key_name in bucket.keys
            and any(str(key.version_id) == str(version_id) for key in bucket.keys.getlist(key_name))
        )
        _deleting.active = True
        try:
            result = delete_object(self, bucket_name, key_name, version_id=version_id, bypass=bypass)
        finally:
            _deleting.active = False
        _, meta = result
        if version_id is None and meta.get("delete-marker"):
            _notify(
                target,
                bucket,
                "s3:ObjectRemoved:DeleteMarkerCreated",
                key_name,
                None,
                EMPTY_ETAG,
                _named(meta["version-id"]),
            )
        elif existed:
            _notify(target, bucket, "s3:ObjectRemoved:Delete", key_name, None, None, _named(str(version_id)))
        return result

    return deleted


def _named(version_id: str) -> str | None:
    """A version's id as S3's event names it: none for the null version (AWS's recorded ObjectCreated:Put of a
    Suspended bucket has no versionId, its deleted delete marker's has: test_object_created_put_versioned)."""
    return None if version_id == NULL else version_id


def _batch_delete(delete_objects: Any) -> Any:
    """S3Backend.delete_objects, known to its DeleteObject calls (see the module's note)."""

    @functools.wraps(delete_objects)
    def deleted(self: S3Backend, *args: Any, **kwargs: Any) -> Any:
        _batch.active = True
        try:
            return delete_objects(self, *args, **kwargs)
        finally:
            _batch.active = False

    return deleted


def _deliver(target: Target, kind: str, arn: str, event: dict[str, Any], trigger: tuple[str, ...]) -> None:
    """To the destination, as S3 does: asynchronously for S3's caller, whose request never fails for it. Counted
    for `trigger` (not while the log is replayed: figures are this run's, as the mappings' are)."""
    region, account, resource = arn_parts(arn)
    replaying = moments.replaying()
    error = None
    try:
        if kind == "queue":
            if not queue_exists(arn):
                error = f"The destination queue does not exist: {arn}"
            else:
                traced = trace_headers.system_attributes()
                sqs_backends[account][region].send_message(
                    queue_name=resource, message_body=json.dumps(event), system_attributes=traced
                )
        elif kind == "topic":
            if not topic_exists(arn):
                error = f"The destination topic does not exist: {arn}"
            else:
                sns_backends[account][region].publish(arn=arn, message=json.dumps(event), subject=SUBJECT)
        elif not replaying:  # replayed, a queue or topic gets its message again (moto's state is rebuilt so), a
            if not target.invoke_function(arn, event, "s3"):  # function does not: its asynchronous queue has it
                error = f"The destination function does not exist: {arn}"
    except Exception as failure:  # moto refused the message (its AWS error): S3's caller never hears of it
        error = refusal(failure)
    if replaying:
        return
    if error:
        target.failed(trigger, error)
    else:
        target.delivered(trigger)
