"""What an EventBridge target receives for an event: the event, or its Input, InputPath or InputTransformer (pure).

The answer is the exact text EventBridge sends (an SQS target's message body; a Lambda target's payload), or None
where EventBridge delivers nothing (a JSON template that does not make JSON). Sources: Amazon EventBridge User
Guide, "Amazon EventBridge input transformation" (predefined variables; "the JSON that is passed to the target is
minified"; a path that is not in the event makes an empty value; values are not escaped), the API reference's
InputTransformer (string and JSON templates), and LocalStack's AWS-validated test_events_inputs.snapshot.json (each
case in tests/emulator/eventbridge/test_target_input.py names its recording):

- an event, an Input's JSON and a JSON template's result are minified JSON;
- InputPath: dot notation, array indices and wildcards (`$.detail.items[0]`, `$.detail.*`); nothing found is null;
- a template that is a JSON object (or array) is JSON: a placeholder outside quotes is its value as JSON (a missing
  one `""`), inside quotes its text (a string as it is, anything else as JSON, unescaped: an object or a list inside
  quotes makes invalid JSON, and the event is not delivered);
- any other template is text: each placeholder its value's text (a string as it is, anything else as JSON without
  its quotes: {acc_id:0a787ecb-4015,sf_id:baz}, [HIGH]), a missing one nothing;
- the predefined variables aws.events.rule-arn, aws.events.rule-name, aws.events.event.ingestion-time,
  aws.events.event (the event without its detail, detail-type as detailType) and aws.events.event.json (the event).
"""

from __future__ import annotations

import json
import re
from typing import Any

#: a placeholder: an InputPathsMap key ([A-Za-z0-9_-]+, botocore's model) or a predefined variable's name
PLACEHOLDER = re.compile(r"<([A-Za-z0-9_.\-]+)>")
PREDEFINED = (
    "aws.events.rule-arn",
    "aws.events.rule-name",
    "aws.events.event.ingestion-time",
    "aws.events.event",
    "aws.events.event.json",
)
#: the fields of `aws.events.event` in the order EventBridge writes them (test_input_transformer_predefined_variables)
EVENT_WITHOUT_DETAIL = (
    ("id", "id"),
    ("account", "account"),
    ("detail-type", "detailType"),
    ("time", "time"),
    ("source", "source"),
    ("region", "region"),
    ("resources", "resources"),
    ("version", "version"),
)
#: what json_path finds where the event has nothing at the path
MISSING = object()
_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+|\*)\]")


def minified(value: Any) -> str:
    """JSON as EventBridge passes it to a target: without spaces, characters as they are."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def target_input(target: dict[str, Any], event: dict[str, Any], rule_arn: str, ingestion_time: str) -> str | None:
    """The text `target` receives for `event` (EventBridge's fields), or None where nothing is delivered."""
    if target.get("Input") is not None:
        return minified(json.loads(target["Input"]))
    if target.get("InputPath"):
        found = json_path(event, target["InputPath"])
        return minified(None if found is MISSING else found)
    transformer = target.get("InputTransformer")
    if transformer:
        return transformed(transformer, event, rule_arn, ingestion_time)
    return minified(event)


def transformed(transformer: dict[str, Any], event: dict[str, Any], rule_arn: str, ingestion_time: str) -> str | None:
    """An InputTransformer's template filled from `event`: minified JSON for a JSON template (None where the result is
    not JSON), the text itself for any other."""
    values = {name: json_path(event, path) for name, path in (transformer.get("InputPathsMap") or {}).items()}
    values.update(_predefined(event, rule_arn, ingestion_time))
    template = transformer["InputTemplate"]
    if template.lstrip()[:1] not in ("{", "["):
        return PLACEHOLDER.sub(lambda found: _text(values, found), template)
    filled = []
    at, quoted = 0, False
    for position, character in enumerate(template):
        if position < at:
            continue
        found = PLACEHOLDER.match(template, position) if character == "<" else None
        if found and found.group(1) in values:
            value = values[found.group(1)]
            if quoted:
                filled.append("" if value is MISSING else value if isinstance(value, str) else minified(value))
            else:
                filled.append('""' if value is MISSING else minified(value))
            at = found.end()
            continue
        if character == '"' and not _escaped(template, position):
            quoted = not quoted
        filled.append(character)
    try:
        return minified(json.loads("".join(filled)))
    except ValueError:
        return None


def json_path(event: Any, path: str) -> Any:
    """The value at an EventBridge JSON path (`$`, `.name`, `[n]`, `.*` / `[*]`: the values found, as a list), or
    MISSING."""
    if not path.startswith("$"):
        return MISSING
    values, rest, wildcard = [event], path[1:], False
    while rest:
        step = _PATH_STEP.match(rest)
        if step is None:
            return MISSING
        rest = rest[step.end() :]
        name, index = step.group(1), step.group(2)
        found = []
        for value in values:
            if name == "*" or index == "*":
                wildcard = True
                found.extend(value.values() if isinstance(value, dict) else value if isinstance(value, list) else [])
            elif name is not None and isinstance(value, dict) and name in value:
                found.append(value[name])
            elif index is not None and isinstance(value, list) and int(index) < len(value):
                found.append(value[int(index)])
        values = found
    if wildcard:
        return values
    return values[0] if values else MISSING


def placeholders_not_defined(transformer: dict[str, Any]) -> list[str]:
    """The template's placeholders that name neither an InputPathsMap key nor a predefined variable (PutTargets
    refuses the first: "InputTemplate for target <id> contains invalid placeholder <name>.")."""
    defined = set(transformer.get("InputPathsMap") or {}) | set(PREDEFINED)
    return [name for name in PLACEHOLDER.findall(transformer.get("InputTemplate") or "") if name not in defined]


def _predefined(event: dict[str, Any], rule_arn: str, ingestion_time: str) -> dict[str, Any]:
    return {
        "aws.events.rule-arn": rule_arn,
        "aws.events.rule-name": rule_arn.rsplit("/", 1)[-1],
        "aws.events.event.ingestion-time": ingestion_time,
        "aws.events.event": {shown: event[field] for field, shown in EVENT_WITHOUT_DETAIL if field in event},
        "aws.events.event.json": event,
    }


def _text(values: dict[str, Any], found: re.Match[str]) -> str:
    """A placeholder's value in a text template."""
    value = values.get(found.group(1), found.group(0))  # an undefined one: PutTargets refused it (kept as written)
    if value is MISSING:
        return ""
    return value if isinstance(value, str) else minified(value).replace('"', "")


def _escaped(text: str, position: int) -> bool:
    backslashes = 0
    while position - backslashes - 1 >= 0 and text[position - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1
