"""Lambda event source mapping FilterCriteria (and EventBridge Pipes' filters): patterns over a record.

``{"Filters": [{"Pattern": "<json>"}, ...]}``: at most 5 filters, ORed, each an event pattern compiled by the one
engine (emulator/event_patterns/) in its Lambda dialect, or Pipes' for a pipe, and matched against the record in its
Lambda-event form (``eventName``, ``dynamodb.Keys``, ``dynamodb.NewImage`` ...; an SQS record's body parsed when it
is JSON: sqs_events.filter_view). The documented differences from EventBridge's rules (AWS Lambda Developer Guide,
"Lambda event filtering"; Amazon EventBridge User Guide, "Comparison operators ...", Pipe support column): no
``wildcard`` and no ``cidr``; anything-but of a prefix, a suffix or strings in any case (a list only of the last) for
Lambda, none of them for Pipes; an invalid pattern is refused in Lambda's words only ("Invalid filter pattern
definition.", recorded in tests/emulator/triggers/test_aws_recorded_answers.py), the reason kept for Eddy's own log.

DynamoDB ``N`` values are strings in a stream record, so ``{"N": [{"numeric": [">", 100]}]}`` never matches, as in
AWS (DynamoDB Developer Guide, "Tutorial #2: Using filters to process some events with DynamoDB and Lambda").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eddy.emulator.event_patterns import LAMBDA, Dialect, EventPattern, InvalidEventPattern

MAX_FILTERS = 5  # Lambda's default quota per event source mapping (a quota increase allows up to 10)
MAX_PATTERN_LENGTH = 4096  # Filter.Pattern length constraint in the Lambda API model
INVALID_PATTERN = "Invalid filter pattern definition."


class FilterCriteriaError(ValueError):
    """A FilterCriteria Lambda would refuse: ``message`` and ``code`` are AWS's answer (InvalidParameterValueException,
    or ValidationException for the API model's length limit), ``reason`` says what exactly is wrong."""

    def __init__(
        self, reason: str, message: str = INVALID_PATTERN, code: str = "InvalidParameterValueException"
    ) -> None:
        super().__init__(f"{message} Reason: {reason}")
        self.reason, self.message, self.code = reason, message, code


@dataclass(frozen=True)
class FilterPattern:
    """One validated filter: the Pattern string as given, and its compiled pattern."""

    source: str
    pattern: EventPattern

    def matches(self, record: dict[str, Any]) -> bool:
        return self.pattern.matches(record)


def validate_filter_criteria(criteria: dict[str, Any] | None, dialect: Dialect = LAMBDA) -> list[FilterPattern]:
    """The compiled patterns of a FilterCriteria; ``[]`` (keep every record) for None, ``{}`` or no Filters."""
    if criteria is None:
        return []
    if not isinstance(criteria, dict):
        raise FilterCriteriaError("FilterCriteria must be an object", "Invalid FilterCriteria.")
    filters = criteria.get("Filters")
    if filters is None:
        return []
    if not isinstance(filters, list):
        raise FilterCriteriaError("Filters must be a list", "Invalid FilterCriteria.")
    if len(filters) > MAX_FILTERS:
        raise FilterCriteriaError(
            f"{len(filters)} filters given; at most {MAX_FILTERS} are allowed",
            f"Invalid FilterCriteria: at most {MAX_FILTERS} filters are allowed.",
        )
    return [_compile(position, item, dialect) for position, item in enumerate(filters, start=1)]


def matches(patterns: list[FilterPattern], record: dict[str, Any]) -> bool:
    """Whether Lambda would pass this Lambda-event-form record on: no patterns, or any pattern matches."""
    return not patterns or any(pattern.matches(record) for pattern in patterns)


def _compile(position: int, item: Any, dialect: Dialect) -> FilterPattern:
    source = item.get("Pattern") if isinstance(item, dict) else None
    if not isinstance(source, str):
        raise FilterCriteriaError(f"filter {position} has no Pattern string")
    if len(source) > MAX_PATTERN_LENGTH:
        raise FilterCriteriaError(
            f"filter {position}'s Pattern is {len(source)} characters long",
            f"1 validation error detected: Value at 'filterCriteria.filters.{position}.member.pattern' failed to "
            f"satisfy constraint: Member must have length less than or equal to {MAX_PATTERN_LENGTH}",
            "ValidationException",
        )
    try:
        return FilterPattern(source, EventPattern.compile(source, dialect))
    except InvalidEventPattern as error:
        raise FilterCriteriaError(f"filter {position}: {error}") from None
