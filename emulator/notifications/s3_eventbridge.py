"""The event S3 puts on the default event bus of a bucket with EventBridge notifications on
(`{"EventBridgeConfiguration": {}}`), as pure functions (Amazon S3 User Guide, "EventBridge event message structure";
AWS's recorded events in LocalStack's test_s3_notifications_eventbridge.snapshot.json):

    detail-type "Object Created", "Object Deleted", "Object ACL Updated", "Object Tags Added", "Object Tags Deleted",
                "Object Restore Initiated", "Object Restore Completed", "Object Restore Expired"; source "aws.s3";
                resources [the bucket's ARN]
    detail      {"version": "0", "bucket": {"name"}, "object": {"key", "size", "etag", "version-id", "sequencer"},
                 "request-id", "requester", "source-ip-address", "reason", "deletion-type", ...}

An object's fields are those its event has: a created object all of them, a deleted one its key and sequencer (a
delete marker also the eTag of its empty content), an ACL or tags event its key and eTag, a restore its key, size
and eTag; "version-id" only in a bucket with versioning. "reason" is the API that created or deleted the object
(PutObject, POST Object, CopyObject, CompleteMultipartUpload; DeleteObject, Lifecycle Expiration), "deletion-type"
"Permanently Deleted" or "Delete Marker Created"; a restore names the object's "source-storage-class", a completed
one its "restore-expiry-time" and no "source-ip-address" (AWS's recorded test_restore_object).
"""

from __future__ import annotations

from typing import Any

SOURCE = "aws.s3"
#: S3's event name (without "s3:") -> (detail-type, reason)
EVENTS = {
    "ObjectCreated:Put": ("Object Created", "PutObject"),
    "ObjectCreated:Post": ("Object Created", "POST Object"),
    "ObjectCreated:Copy": ("Object Created", "CopyObject"),
    "ObjectCreated:CompleteMultipartUpload": ("Object Created", "CompleteMultipartUpload"),
    "ObjectRemoved:Delete": ("Object Deleted", "DeleteObject"),
    "ObjectRemoved:DeleteMarkerCreated": ("Object Deleted", "DeleteObject"),
    "LifecycleExpiration:Delete": ("Object Deleted", "Lifecycle Expiration"),
    "LifecycleExpiration:DeleteMarkerCreated": ("Object Deleted", "Lifecycle Expiration"),
    "ObjectAcl:Put": ("Object ACL Updated", None),
    "ObjectTagging:Put": ("Object Tags Added", None),
    "ObjectTagging:Delete": ("Object Tags Deleted", None),
    "ObjectRestore:Post": ("Object Restore Initiated", None),
    "ObjectRestore:Completed": ("Object Restore Completed", None),
    "ObjectRestore:Delete": ("Object Restore Expired", None),
}
#: the object's fields each kind of event has (version-id besides, in a bucket with versioning)
OBJECT_FIELDS = {
    "Object Created": ("size", "etag", "sequencer"),
    "Object Deleted": ("etag", "sequencer"),  # etag: a delete marker's only
    "Object ACL Updated": ("etag",),
    "Object Tags Added": ("etag",),
    "Object Tags Deleted": ("etag",),
    "Object Restore Initiated": ("size", "etag"),
    "Object Restore Completed": ("size", "etag"),
    "Object Restore Expired": ("size", "etag"),
}


def detail_type(event_name: str) -> str | None:
    """The detail-type of S3's event ("s3:ObjectCreated:Put" or "ObjectCreated:Put"); None: S3 puts none."""
    known = EVENTS.get(event_name.removeprefix("s3:"))
    return known[0] if known else None


def event_detail(
    *,
    event_name: str,
    bucket: str,
    key: str,
    size: int | None,
    etag: str | None,
    version_id: str | None,
    sequencer: str,
    request_id: str,
    requester: str,
    source_ip_address: str,
    storage_class: str | None = None,
    restore_expiry_time: str | None = None,
) -> dict[str, Any]:
    """The detail of S3's event `event_name` (one of EVENTS) about `key`."""
    name = event_name.removeprefix("s3:")
    kind, reason = EVENTS[name]
    values = {"size": size, "etag": etag, "sequencer": sequencer}
    obj: dict[str, Any] = {"key": key}
    obj.update((field, values[field]) for field in OBJECT_FIELDS[kind] if values[field] is not None)
    if version_id is not None:
        obj["version-id"] = version_id
    detail: dict[str, Any] = {
        "version": "0",
        "bucket": {"name": bucket},
        "object": obj,
        "request-id": request_id,
        "requester": requester,
    }
    if kind != "Object Restore Completed":  # S3 restored it, no client: AWS's recorded event has no address
        detail["source-ip-address"] = source_ip_address
    if reason is not None:
        detail["reason"] = reason
    if kind == "Object Deleted":
        detail["deletion-type"] = (
            "Delete Marker Created" if name.endswith("DeleteMarkerCreated") else "Permanently Deleted"
        )
    if kind.startswith("Object Restore") and storage_class is not None:
        detail["source-storage-class"] = storage_class
    if kind == "Object Restore Completed" and restore_expiry_time is not None:
        detail["restore-expiry-time"] = restore_expiry_time
    return detail
