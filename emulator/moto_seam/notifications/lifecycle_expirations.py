"""S3 Lifecycle expiration on moto's S3, which keeps a bucket's lifecycle rules but applies none.

`due(now)` reads every bucket's rules (moto's LifecycleRule, as objects/lifecycle_rules.py's Rule) and names the
objects they expire on the emulator's clock: a current object under Expiration (Days or Date), a noncurrent
version under NoncurrentVersionExpiration. Eddy deletes each by a DeleteObject of its own through its front door
(objects/lifecycle.py), so the deletion is journaled and replayed as any S3 change is; the request carries
LIFECYCLE_HEADER, by which this module (S3Response.delete_object, patched) knows it for S3 Lifecycle's while it runs,
live or replayed, and object_events.py sends S3 Lifecycle's events for it: s3:LifecycleExpiration:Delete (an
unversioned object, or a version deleted for good) and s3:LifecycleExpiration:DeleteMarkerCreated (a versioned
object's current version, behind a delete marker), in the record the Amazon S3 User Guide shows ("Configuring S3
Lifecycle event notifications": eventVersion 2.3, userIdentity and sourceIPAddress s3.amazonaws.com, the object's key
and sequencer).
"""

from __future__ import annotations

import functools
import sys
import threading
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, NamedTuple

from eddy.emulator.moto_seam import Patches
from eddy.emulator.objects.lifecycle_rules import Rule, current_expired, noncurrent_expired, parse_date

if TYPE_CHECKING:
    from moto.s3.responses import S3Response

#: the header of Eddy's own DeleteObject that carries out a lifecycle rule (its value: the rule's ID)
LIFECYCLE_HEADER = "x-eddy-lifecycle-rule"
#: S3's event for a deletion -> S3 Lifecycle's
LIFECYCLE_EVENTS = {
    "s3:ObjectRemoved:Delete": "s3:LifecycleExpiration:Delete",
    "s3:ObjectRemoved:DeleteMarkerCreated": "s3:LifecycleExpiration:DeleteMarkerCreated",
}
#: who S3 Lifecycle's events say did it (userIdentity.principalId, requestParameters.sourceIPAddress)
LIFECYCLE_PRINCIPAL = "s3.amazonaws.com"

_running = threading.local()
_patches = Patches()


class Expired(NamedTuple):
    """An object a rule expires: DeleteObject's arguments (a version's id for a noncurrent one)."""

    account_id: str
    region: str
    bucket: str
    key: str
    version_id: str | None
    rule_id: str


def install() -> None:
    # imported here: the housekeeper's sweep imports this module (`due`) every round, and moto's S3 (with
    # `cryptography`) loads with the first S3 request, not with the first round (issue 39: services load on first use)
    from moto.s3.responses import S3Response

    _patches.set(S3Response, "delete_object", _marked(S3Response.delete_object))


def uninstall() -> None:
    _patches.restore()


def lifecycle_running() -> bool:
    """Whether the DeleteObject running on this thread is S3 Lifecycle's."""
    return bool(getattr(_running, "rule", None))


def _marked(delete_object: Any) -> Any:
    @functools.wraps(delete_object)
    def delete(self: S3Response) -> Any:
        before = getattr(_running, "rule", None)
        _running.rule = self.headers.get(LIFECYCLE_HEADER)
        try:
            return delete_object(self)
        finally:
            _running.rule = before

    return delete


def due(now: float) -> list[Expired]:
    """Every object some enabled rule of its bucket expires at `now` (seconds since the epoch), each once however many
    rules expire it (the first rule's ID)."""
    if "moto.s3.models" not in sys.modules:  # moto's S3 not loaded: no bucket, nothing to load for it
        return []
    from moto.s3.models import FakeDeleteMarker, s3_backends

    moment = datetime.fromtimestamp(now, timezone.utc)
    expired = []
    named: set[tuple[str, ...]] = set()  # the noncurrent versions named so far: two rules expire one version once
    for account_id, partitions in list(s3_backends.items()):
        for backend in list(partitions.values()):
            for bucket in list(backend.buckets.values()):
                rules = [_rule(rule) for rule in bucket.rules]
                if not any(rule.enabled for rule in rules):
                    continue
                for name in list(bucket.keys.keys()):
                    versions = bucket.keys.getlist(name)
                    tags = {}
                    current = versions[-1]
                    if not isinstance(current, FakeDeleteMarker):
                        tags = {t["Key"]: t["Value"] for t in backend.get_object_tagging(current)["Tags"]}
                    for rule in rules:
                        if not rule.covers(name, tags):
                            continue
                        where = (account_id, bucket.region_name, bucket.name, name)
                        if not isinstance(current, FakeDeleteMarker) and current_expired(
                            rule, _utc(current.last_modified), moment
                        ):
                            expired.append(Expired(*where, None, rule.rule_id))
                            break
                        for older, newer in zip(versions, versions[1:]):
                            if (
                                not isinstance(older, FakeDeleteMarker)
                                and (*where, str(older.version_id)) not in named  # by an earlier rule: once
                                and noncurrent_expired(rule, _utc(newer.last_modified), moment)
                            ):
                                named.add((*where, str(older.version_id)))
                                expired.append(Expired(*where, str(older.version_id), rule.rule_id))
    return expired


def _rule(rule: Any) -> Rule:
    """moto's LifecycleRule as a Rule: its filter's prefix and tags (or its top-level Prefix)."""
    prefix, tags = rule.prefix or "", {}
    lc_filter = rule.filter
    if lc_filter is not None:
        if lc_filter.and_filter is not None:
            prefix, tags = lc_filter.and_filter.prefix or "", dict(lc_filter.and_filter.tags)
        else:
            prefix = lc_filter.prefix or ""
            if lc_filter.tag_key is not None:
                tags = {lc_filter.tag_key: lc_filter.tag_value or ""}
    return Rule(
        rule_id=rule.id or "",
        enabled=rule.status == "Enabled",
        prefix=prefix,
        tags=tags,
        expiration_days=int(rule.expiration_days) if rule.expiration_days else None,
        expiration_date=parse_date(rule.expiration_date),
        noncurrent_days=int(rule.nve_noncurrent_days) if rule.nve_noncurrent_days else None,
    )


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
