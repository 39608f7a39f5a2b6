"""SNS subscription filter policies on the event-pattern engine, with SNS's own rules.

A policy is an event pattern (the same grammar, compiled as SNS compiles it: the policy's JSON written compactly, so
AWS's places name columns of ``{"key":[...]}``) in SNS's dialect: no wildcard, anything-but of values or of one
prefix (Amazon SNS Developer Guide, "Amazon SNS message filtering"; LocalStack's AWS-validated
tests/aws/services/sns/test_sns_filter_policy.snapshot.json for the refusals). SNS's own limits ("Subscription
filter policy constraints"): at most 5 keys at the top; a MessageAttributes policy is flat; at most 150
combinations, each branch of the policy (its ``$or``s multiplied out) counting the product of its fields' value
counts, each multiplied by the field's nesting depth (the Guide's example: 3 x 4 x 2 x 3 x 1 x 3 = 216, refused).

Matching: FilterPolicyScope MessageAttributes matches the message's attributes (String as a string, Number as a
number, String.Array and Number.Array as their JSON array's elements; Binary never matches); MessageBody matches the message, which
must be a JSON object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from eddy.emulator.event_patterns import EventPattern, InvalidEventPattern
from eddy.emulator.event_patterns.conditions import Number
from eddy.emulator.event_patterns.grammar import MATCH_TYPES, Dialect
from eddy.emulator.event_patterns.json_source import JsonPatternError, read_document

SNS = Dialect("SNS", MATCH_TYPES - {"wildcard"}, frozenset({"prefix"}), frozenset())
SCOPES = ("MessageAttributes", "MessageBody")
MAX_KEYS = 5
MAX_COMBINATIONS = 150
SUBSCRIBE = "Invalid parameter: Attributes Reason: "  # Subscribe's Attributes
SET_ATTRIBUTES = "Invalid parameter: "  # SetSubscriptionAttributes


class InvalidFilterPolicy(ValueError):
    """SNS's refusal (its InvalidParameter message, whole)."""

    @property
    def message(self) -> str:
        return str(self)


def invalid_scope(scope: str) -> InvalidFilterPolicy:
    return InvalidFilterPolicy(
        f"Invalid parameter: FilterPolicyScope: Invalid value [{scope}]. Please use either "
        "MessageBody or MessageAttributes"
    )


def parsed_policy(text: str, name: str) -> Any:
    """A policy's JSON read as SNS reads it (Jackson's tree reader: its first value; what follows is not read), or
    SNS's refusal in Jackson's words: ``<name>: failed to parse JSON. <Jackson's reason>\\n at [Source: REDACTED ...]``
    (test_sns.snapshot.json: test_subscribe_invalid_filter_policy, test_validate_set_sub_attributes)."""
    try:
        return read_document(text)
    except JsonPatternError as refusal:
        raise InvalidFilterPolicy(f"{name}: failed to parse JSON. {refusal}") from None
    except ValueError as error:  # Python refuses what Jackson takes (NaN): no recording of SNS's answer
        raise InvalidFilterPolicy(f"{name}: failed to parse JSON. {error}") from None


@dataclass(frozen=True)
class FilterPolicy:
    pattern: EventPattern
    scope: str

    @classmethod
    def compile(cls, policy: str, scope: str | None, prefix: str = SET_ATTRIBUTES) -> "FilterPolicy":
        """The policy, or SNS's refusal worded for the operation (``prefix``: SUBSCRIBE or SET_ATTRIBUTES)."""
        scope = scope or "MessageAttributes"
        if scope not in SCOPES:
            raise invalid_scope(scope)
        parsed = parsed_policy(policy, f"{prefix}FilterPolicy")
        source = json.dumps(parsed, separators=(",", ":"), ensure_ascii=False) if isinstance(parsed, dict) else policy
        if isinstance(parsed, dict) and len(parsed) > MAX_KEYS:
            raise InvalidFilterPolicy(f"{prefix}FilterPolicy: Filter policy can not have more than {MAX_KEYS} keys")
        try:
            pattern = EventPattern.compile(source, SNS)
        except InvalidEventPattern as refusal:
            raise InvalidFilterPolicy(f"{prefix}FilterPolicy: {refusal}") from None
        if scope == "MessageAttributes" and _nested(parsed):
            raise InvalidFilterPolicy(
                "Invalid parameter: Filter policy scope MessageAttributes does not support nested filter policy"
            )
        if combinations(parsed) > MAX_COMBINATIONS:
            raise InvalidFilterPolicy(f"{prefix}FilterPolicy: Filter policy is too complex")
        return cls(pattern, scope)

    def matches(self, message_attributes: dict[str, Any] | None, message: str) -> bool:
        if self.scope == "MessageBody":
            try:
                body = json.loads(message)
            except (TypeError, ValueError):
                return False
            return isinstance(body, dict) and self.pattern.matches(body)
        return self.pattern.matches(attribute_values(message_attributes or {}))


def attribute_values(message_attributes: dict[str, Any]) -> dict[str, Any]:
    """Message attributes ({name: {"Type": ..., "Value": ...}}) as the values a policy matches."""
    values: dict[str, Any] = {}
    for name, attribute in message_attributes.items():
        kind, value = str(attribute.get("Type", "")), attribute.get("Value")
        if kind.endswith(".Array") and kind.startswith(("String", "Number")):
            try:
                values[name] = json.loads(value)
            except (TypeError, ValueError):
                continue
        elif kind.startswith("Number"):
            values[name] = Number.of(str(value))
        elif kind.startswith("String"):
            values[name] = value
    return values


def combinations(policy: dict[str, Any], depth: int = 1, so_far: int = 1) -> int:
    """SNS's measure of a policy's complexity (see the module's docstring)."""
    for key, value in policy.items():
        if isinstance(value, dict):
            so_far = combinations(value, depth + 1, so_far)
        elif key == "$or":
            so_far = sum(combinations(branch, depth, so_far) for branch in value)
        else:
            so_far *= len(value) * depth
    return so_far


def _nested(policy: dict[str, Any]) -> bool:
    return any(
        isinstance(value, dict) or (key == "$or" and any(_nested(branch) for branch in value))
        for key, value in policy.items()
    )
