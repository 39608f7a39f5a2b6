"""The S3 event notification record (Amazon S3 User Guide, "Event message structure"), as pure functions.

    {"Records": [{"eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion", "eventTime" (ISO 8601, milliseconds),
                  "eventName" ("ObjectCreated:Put", ...), "userIdentity": {"principalId"},
                  "requestParameters": {"sourceIPAddress"}, "responseElements": {"x-amz-request-id", "x-amz-id-2"},
                  "s3": {"s3SchemaVersion": "1.0", "configurationId", "bucket": {"name", "ownerIdentity", "arn"},
                         "object": {"key" (URL-encoded, spaces as +, slashes kept), "size", "eTag", "versionId", "sequencer"}}}]}

A delete's object has no size or eTag; versionId only in a bucket with versioning. The sequencer is a hexadecimal
string that grows with each event of a key, as S3's does (compare two of the same key after padding the shorter
with zeros on the left). A tagging or ACL event (ObjectTagging:Put, ObjectTagging:Delete, ObjectAcl:Put) is
eventVersion 2.3 and its object has its key, eTag (and versionId) only, as AWS's recorded records show
(LocalStack's test_s3_notifications_sqs.snapshot.json: test_object_tagging_put_event, test_object_put_acl).
"""

from __future__ import annotations

import base64
import hashlib
import threading
from datetime import datetime, timezone
from typing import Any, Callable
from urllib.parse import quote_plus

from eddy.emulator.storage.channels import Channel

PRINCIPAL_ID = "AWS:AIDAEDDYEMULATOR"
#: the events about an object's properties: eventVersion 2.3, no size, no sequencer
PROPERTY_EVENTS = ("ObjectTagging:", "ObjectAcl:")
SOURCE_IP_ADDRESS = "127.0.0.1"


def customer_id(account_id: str) -> str:
    """The bucket owner's Amazon customer ID, as S3's records name it (ownerIdentity.principalId, and S3's own
    "AmazonCustomer:<id>"): not the account's number (the S3 User Guide, "Event message structure": "A3NL1KOZZKExample";
    AWS's recorded records in LocalStack's test_s3_notifications_sqs.snapshot.json keep it apart from the account
    111111111111 of the queue's ARN). Eddy's is "A" and 13 letters and digits drawn from the account's number, the
    same on every run."""
    digest = base64.b32encode(hashlib.sha256(account_id.encode()).digest()).decode()
    return "A" + digest[:13]


def event_time(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Sequencer:
    """S3's per-key sequencer: one increasing counter for every key (so it grows for each key, too)."""

    def __init__(self) -> None:
        self.last = 0
        self._lock = threading.Lock()

    def next(self) -> str:
        with self._lock:
            self.last += 1
            return f"{self.last:018X}"

    def restore(self, last: int) -> None:
        """After a restart: go on from the last one given before it (a snapshot keeps it; replayed requests draw
        theirs again in order), so a key's sequencers keep growing across restarts."""
        with self._lock:
            self.last = max(self.last, last)


class SequencerChannel(Channel):
    """The S3 sequencer's durable channel (storage/channels.py): its last value in the snapshot's header (replayed
    requests draw theirs again, in order, so the log needs no entry of its own)."""

    name = "s3_sequencer"

    def __init__(self, notifications: Any) -> None:
        #: what has the sequencer: its last_sequencer and restore_sequencer (notifications.py's Notifications)
        self.notifications = notifications

    def header_fields(self) -> dict[str, Any]:
        return {"s3_sequencer": self.notifications.last_sequencer}

    def restore_header(self, header: dict[str, Any]) -> None:
        self.notifications.restore_sequencer(header.get("s3_sequencer", 0))  # absent in older snapshots


def is_property_event(event_name: str) -> bool:
    """ObjectTagging:* and ObjectAcl:Put ("ObjectAcl:Put" or "s3:ObjectAcl:Put")."""
    return event_name.removeprefix("s3:").startswith(PROPERTY_EVENTS)


def event_record(
    *,
    event_name: str,
    region: str,
    bucket: str,
    account_id: str,
    key: str,
    size: int | None,
    etag: str | None,
    version_id: str | None,
    sequencer: str | None,
    configuration_id: str,
    now: float,
    random_bits: Callable[[int], int],
    restore_event_data: dict[str, str] | None = None,
    principal: str | None = None,
) -> dict[str, Any]:
    """One record of an S3 event notification ("ObjectCreated:Put", not "s3:ObjectCreated:Put"); a property event
    has no size or sequencer. An ObjectRestore:Completed record (`restore_event_data`: lifecycleRestorationExpiryTime,
    lifecycleRestoreStorageClass) ends with glacierEventData, and S3 itself is its user, "AmazonCustomer:" and the
    bucket owner's id (AWS's recorded test_restore_object, LocalStack's test_s3_notifications_sqs.snapshot.json).
    A service's own event (`principal`: S3 Lifecycle's expirations, "s3.amazonaws.com") names it as its user and
    source, eventVersion 2.3 (the Amazon S3 User Guide, "Configuring S3 Lifecycle event notifications")."""
    properties = is_property_event(event_name)
    obj: dict[str, Any] = {"key": quote_plus(key, safe="/")}
    if size is not None and not properties:
        obj["size"] = size
    if etag is not None:
        obj["eTag"] = etag
    if version_id is not None:
        obj["versionId"] = version_id
    if sequencer is not None and not properties:
        obj["sequencer"] = sequencer
    record = {
        "eventVersion": "2.3" if properties or principal else "2.1",
        "eventSource": "aws:s3",
        "awsRegion": region,
        "eventTime": event_time(now),
        "eventName": event_name,
        "userIdentity": {
            "principalId": principal or (f"AmazonCustomer:{customer_id(account_id)}" if restore_event_data else PRINCIPAL_ID)
        },
        "requestParameters": {"sourceIPAddress": principal or SOURCE_IP_ADDRESS},
        # S3's ids for the request, drawn from `random_bits` (the request's own random stream: a replay draws them again)
        "responseElements": {"x-amz-request-id": f"{random_bits(64):016X}", "x-amz-id-2": f"{random_bits(384):096x}"},
        "s3": {
            "s3SchemaVersion": "1.0",
            "configurationId": configuration_id,
            "bucket": {"name": bucket, "ownerIdentity": {"principalId": customer_id(account_id)}, "arn": f"arn:aws:s3:::{bucket}"},
            "object": obj,
        },
    }
    if restore_event_data is not None:
        record["glacierEventData"] = {"restoreEventData": restore_event_data}
    return record


def test_message(*, bucket: str, now: float, random_bits: Callable[[int], int]) -> dict[str, Any]:
    """The message S3 sends a queue or topic when a configuration names it (Amazon S3 User Guide, "Event message
    structure": Service, Event, Time, Bucket, RequestId, HostId); its ids drawn as event_record's are."""
    return {
        "Service": "Amazon S3",
        "Event": "s3:TestEvent",
        "Time": event_time(now),
        "Bucket": bucket,
        "RequestId": f"{random_bits(64):016X}",
        "HostId": f"{random_bits(384):096x}",
    }


def overlapping(first: tuple[list[str], str, str], second: tuple[list[str], str, str]) -> bool:
    """Two configurations (events, prefix, suffix) overlap when they share an event type (a wildcard covers its
    family) and a key could match both filters; S3 refuses such a pair ("Configurations overlap")."""
    events_a, prefix_a, suffix_a = first
    events_b, prefix_b, suffix_b = second
    shared = any(_covers(a, b) or _covers(b, a) for a in events_a for b in events_b)
    prefixes = prefix_a.startswith(prefix_b) or prefix_b.startswith(prefix_a)
    suffixes = suffix_a.endswith(suffix_b) or suffix_b.endswith(suffix_a)
    return shared and prefixes and suffixes


def _covers(pattern: str, event: str) -> bool:
    if pattern == event:
        return True
    return pattern.endswith(":*") and event.startswith(pattern[:-1])
