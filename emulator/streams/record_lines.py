"""A stream record as one line of text: what `eddy tail` prints and the dashboard's live tail shows.

    describe(record)   # '12:00:01 MODIFY  pk='a'  n: 1 -> 2  +tag='x'  -old'

`record` is a record as GetRecords returns it (botocore's parsed form or the wire JSON).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

_plain = TypeDeserializer()


def _show(value: dict[str, Any]) -> str:
    try:
        shown = _plain.deserialize(value)
    except (TypeError, ValueError):
        return str(value)
    return repr(int(shown) if hasattr(shown, "as_integer_ratio") and shown == int(shown) else shown)


def describe(record: dict[str, Any]) -> str:
    """A record as one line: `12:00:01 MODIFY  pk='a'  n: 1 -> 2  +tag='x'  -old`."""
    data = record["dynamodb"]
    when = data.get("ApproximateCreationDateTime")
    if isinstance(when, datetime):
        moment = when.astimezone(timezone.utc)
    else:
        moment = datetime.fromtimestamp(float(when or 0), timezone.utc)
    keys = "  ".join(f"{name}={_show(value)}" for name, value in data.get("Keys", {}).items())
    old, new = data.get("OldImage") or {}, data.get("NewImage") or {}
    changes = []
    for name in sorted(set(old) | set(new)):
        if name in data.get("Keys", {}):
            continue
        if name not in old and name in new:
            changes.append(f"+{name}={_show(new[name])}")
        elif name in old and name not in new:
            changes.append(f"-{name}" if record["eventName"] != "REMOVE" or not new else f"{name}={_show(old[name])}")
        elif old[name] != new[name]:
            changes.append(f"{name}: {_show(old[name])} -> {_show(new[name])}")
    if record.get("userIdentity"):
        changes.append("(TTL)")
    return "  ".join(part for part in (f"{moment:%H:%M:%S} {record['eventName']:<6}", keys, *changes) if part)
