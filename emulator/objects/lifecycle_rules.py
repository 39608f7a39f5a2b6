"""S3 Lifecycle expiration as pure functions: when a rule expires an object (Amazon S3 User Guide, "Lifecycle
configuration elements", Expiration and NoncurrentVersionExpiration).

"Amazon S3 calculates the time by adding the number of days specified in the rule to the object creation time and
rounding the resulting time to the next day midnight UTC": an object made 2014-01-15 10:30 UTC under a 3-day rule
expires 2014-01-19 00:00 UTC. An Expiration Date expires every object the rule covers from that midnight on. A
noncurrent version's days count from when it became noncurrent (its successor's creation). A rule applies to the
keys its filter (or its older top-level Prefix) names: a prefix, a tag, or an And of a prefix and tags; only an
Enabled rule acts.

    >>> from datetime import datetime, timezone
    >>> expires_at(datetime(2014, 1, 15, 10, 30, tzinfo=timezone.utc), 3)
    datetime.datetime(2014, 1, 19, 0, 0, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone


@dataclass(frozen=True)
class Rule:
    """What of a lifecycle rule decides expiration (from moto's LifecycleRule, by the seam)."""

    rule_id: str
    enabled: bool
    prefix: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    expiration_days: int | None = None
    expiration_date: datetime | None = None
    noncurrent_days: int | None = None

    def covers(self, key: str, tags: dict[str, str]) -> bool:
        return self.enabled and key.startswith(self.prefix) and all(tags.get(k) == v for k, v in self.tags.items())


def expires_at(created: datetime, days: int) -> datetime:
    """The midnight UTC after `created` plus `days`."""
    moment = created.astimezone(timezone.utc) + timedelta(days=days)
    midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight if midnight == moment else midnight + timedelta(days=1)


def current_expired(rule: Rule, created: datetime, now: datetime) -> bool:
    """Whether `rule`'s Expiration has come for a current object made at `created`."""
    if rule.expiration_days is not None and expires_at(created, rule.expiration_days) <= now:
        return True
    return rule.expiration_date is not None and rule.expiration_date <= now


def noncurrent_expired(rule: Rule, noncurrent_since: datetime, now: datetime) -> bool:
    """Whether `rule`'s NoncurrentVersionExpiration has come for a version noncurrent since `noncurrent_since`."""
    return rule.noncurrent_days is not None and expires_at(noncurrent_since, rule.noncurrent_days) <= now


def parse_date(text: str | None) -> datetime | None:
    """An Expiration Date as the API gives it (ISO 8601, midnight UTC), or None."""
    if not text:
        return None
    moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
