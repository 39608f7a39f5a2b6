"""An answer compared whole with AWS's recorded one, as LocalStack's AWS-validated snapshots record it.

Those snapshots (github.com/localstack/localstack, tests/aws/services/**/*.snapshot.json) replace what differs from
run to run by placeholders: `<uuid:1>`, `<receipt-handle:2>`, `<sequence-number:3>`, `<resource:1>` (the same number
for the same value), `<md5-hash>`, `<sender-id>`, `timestamp`, `date`, the account 111111111111, `<region>`,
`<partition>`, `<unsubscribe-domain>`, `<cert-domain>`, `<signature>`, `datetime` (a timestamp botocore parsed); a JSON string (an SQS message's Body) is
recorded as the object it holds, and bytes as Python writes them.
`assert_recorded(answer, recorded)` walks both: every member AWS recorded and no other, each placeholder standing for
a value of its form (the same numbered placeholder for one value throughout, different numbers for different values),
every other value equal.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

ACCOUNT = "123456789012"
REGION = "us-east-1"
#: a whole recorded value, and the form of the value it stands for
WHOLE = {
    "timestamp": r"\d{13}",
    "date": r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z",
    "<md5-hash>": r"[0-9a-f]{32}",
    "<sender-id>": r"[A-Z0-9]+(:[\w.-]+)?",
    "<signature>": r"[A-Za-z0-9+/]+={0,2}",
}
#: the form of a numbered placeholder's value, by its name (others: any text without "/" or ":")
NUMBERED = {
    "uuid": r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    "sequence-number": r"\d{20,40}",
    "receipt-handle": r"\S+",
    "principal-id": r"[\w:.-]+",  # an IAM principal's, "AWS:AIDA...", holds a ":"
    "next-forward-token": r"f/\d+",  # CloudWatch Logs' tokens: "f/<digits>", "b/<digits>"
    "next-backward-token": r"b/\d+",
}
PLACEHOLDER = re.compile(r"<([a-z-]+)(?::(\d+))?>|111111111111")
FIXED = {"partition": "aws", "region": REGION, "unsubscribe-domain": r"https?://[^/]+", "cert-domain": r"https?://[^/]+"}


def recorded_shape(answer: dict) -> dict:
    """A boto3 answer as LocalStack records it: its ResponseMetadata without headers."""
    return {**answer, "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": answer["ResponseMetadata"][
        "HTTPStatusCode"]}}


def assert_recorded(answer: Any, recorded: Any) -> None:
    """`answer` is what AWS recorded (AssertionError naming the first place it differs)."""
    _match(answer, recorded, {}, "$")


def _match(answer: Any, recorded: Any, bound: dict[tuple[str, str], str], path: str) -> None:
    if isinstance(recorded, dict) and isinstance(answer, str):
        answer = json.loads(answer)  # recorded as the object the JSON text holds
    if isinstance(recorded, str) and isinstance(answer, bytes):
        answer = str(answer)  # recorded as Python writes bytes: "b'\\x02\\x03'"
    if recorded == "timestamp" and isinstance(answer, int) and not isinstance(answer, bool):
        answer = str(answer)  # epoch milliseconds (a log event's timestamp, ingestionTime)
    if isinstance(recorded, dict):
        assert isinstance(answer, dict), f"{path}: {answer!r} is not an object"
        assert sorted(answer) == sorted(recorded), f"{path}: members {sorted(answer)}, AWS's {sorted(recorded)}"
        for name, value in recorded.items():
            _match(answer[name], value, bound, f"{path}.{name}")
    elif isinstance(recorded, list):
        assert isinstance(answer, list) and len(answer) == len(recorded), f"{path}: {answer!r}, AWS's {recorded!r}"
        for index, (item, value) in enumerate(zip(answer, recorded)):
            _match(item, value, bound, f"{path}[{index}]")
    elif recorded == "datetime":
        assert isinstance(answer, datetime.datetime), f"{path}: {answer!r} is not a datetime"
    elif isinstance(recorded, str):
        assert isinstance(answer, str), f"{path}: {answer!r}, AWS's {recorded!r}"
        _match_text(answer, recorded, bound, path)
    else:
        assert answer == recorded, f"{path}: {answer!r}, AWS's {recorded!r}"


def _match_text(answer: str, recorded: str, bound: dict[tuple[str, str], str], path: str) -> None:
    if recorded in WHOLE:
        assert re.fullmatch(WHOLE[recorded], answer), f"{path}: {answer!r} is not a {recorded}"
        return
    pattern, groups = "", []
    position = 0
    for found in PLACEHOLDER.finditer(recorded):
        pattern += re.escape(recorded[position:found.start()])
        position = found.end()
        name, number = found.group(1), found.group(2)
        if name is None:
            pattern += ACCOUNT
        elif number is None:
            pattern += FIXED.get(name, re.escape(found.group(0)))
        else:
            pattern += f"({NUMBERED.get(name, r'[^/:]+')})"
            groups.append((name, number))
    pattern += re.escape(recorded[position:])
    matched = re.fullmatch(pattern, answer)
    assert matched, f"{path}: {answer!r}, AWS's {recorded!r}"
    for key, value in zip(groups, matched.groups()):
        if key in bound:
            assert bound[key] == value, f"{path}: <{key[0]}:{key[1]}> is {value!r} here, {bound[key]!r} before"
        else:
            taken = [other for other, text in bound.items() if other[0] == key[0] and text == value]
            assert not taken, f"{path}: {value!r} is <{key[0]}:{key[1]}> here, <{taken[0][0]}:{taken[0][1]}> before"
            bound[key] = value
