"""Lambda event source mapping FilterCriteria for DynamoDB stream records.

``{"Filters": [{"Pattern": "<json>"}, ...]}``: at most 5 filters, ORed, each an EventBridge-style pattern applied
to a record in its Lambda-event form (``eventName``, ``dynamodb.Keys``, ``dynamodb.NewImage`` ...). Lambda compiles
patterns with AWS's event-ruler, so the rules here are that engine's (github.com/aws/event-ruler).

From moto: ``EventPattern._does_item_match_named_filter`` (moto.events.models, reached through
moto_seam/eventbridge/patterns.py) decides each operator on one leaf value: prefix, suffix (also with ``{"equals-ignore-case": ...}``), equals-ignore-case, anything-but (a value, a
list, or prefix / suffix / equals-ignore-case), numeric comparisons and ranges, exists. Tested operator by operator
(tests/emulator/test_filters.py) it agrees with AWS, except that Python's ``True == 1`` lets a JSON boolean pass
``numeric`` and fail ``anything-but`` of a number; ``_rule_matches`` corrects those two cases.

Here, because moto's EventPattern gets them wrong or does not do them:
- validation. moto checks only that values are objects or non-empty arrays (not inside ``$or``); it accepts
  unknown operators (which then match everything), non-numeric ``numeric`` operands, ``exists: "yes"`` and
  one-branch ``$or``s, and crashes on others. Lambda rejects them all. ``wildcard`` and ``cidr`` are rejected too:
  Lambda's operator list does not have them.
- walking the record. moto flattens nested objects but not arrays of objects, so DynamoDB lists of maps
  (``{"L": [{"M": ...}]}``) never match; event-ruler crushes arrays out of the path and takes every field a pattern
  matches under one array from the same element. An object, or an empty array, is no leaf: ``exists`` sees none.
- exact values compare as JSON values: ``true`` is not ``1``, ``"1"`` is not ``1``, ``1`` is ``1.0``.
- numeric matching applies to JSON numbers only. DynamoDB ``N`` values are strings in a stream record, so
  ``{"N": [{"numeric": [">", 100]}]}`` never matches, as in AWS (DynamoDB Developer Guide, "Tutorial #2: Using
  filters to process some events with DynamoDB and Lambda"; localstack's AWS-validated test_dynamodb_event_filter).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Iterable

from eddy.emulator.moto_seam.eventbridge.patterns import UNDEFINED, operator_matches

MAX_FILTERS = 5  # Lambda's default quota per event source mapping (a quota increase allows up to 10)
MAX_PATTERN_LENGTH = 4096  # Filter.Pattern length constraint in the Lambda API model
NUMERIC_LIMIT = 5e9  # event-ruler compares numbers in [-5e9, 5e9] only
INVALID_PATTERN = "Invalid filter pattern definition."

_OPERATORS = {"prefix", "suffix", "equals-ignore-case", "anything-but", "numeric", "exists"}
# event-ruler's reserved words, which may not be field names inside a $or branch.
_RESERVED_IN_OR = _OPERATORS | {"exactly", "wildcard", "cidr", "=", "<", "<=", ">", ">="}
_LOWER_BOUNDS, _UPPER_BOUNDS = (">", ">="), ("<", "<=")


class FilterCriteriaError(ValueError):
    """A FilterCriteria Lambda would refuse: ``message`` and ``code`` are AWS's answer (InvalidParameterValueException,
    or ValidationException for the API model's length limit), ``reason`` says what exactly is wrong."""

    def __init__(self, reason: str, message: str = INVALID_PATTERN,
                 code: str = "InvalidParameterValueException") -> None:
        super().__init__(f"{message} Reason: {reason}")
        self.reason, self.message, self.code = reason, message, code


@dataclass(frozen=True)
class FilterPattern:
    """One validated filter: the Pattern string as given, and its parsed rules."""

    source: str
    rules: dict[str, Any]

    def matches(self, record: dict[str, Any]) -> bool:
        return _object_matches(record, self.rules)


def validate_filter_criteria(criteria: dict[str, Any] | None) -> list[FilterPattern]:
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
        raise FilterCriteriaError(f"{len(filters)} filters given; at most {MAX_FILTERS} are allowed",
                                  f"Invalid FilterCriteria: at most {MAX_FILTERS} filters are allowed.")
    return [_compile(position, item) for position, item in enumerate(filters, start=1)]


def matches(patterns: list[FilterPattern], record: dict[str, Any]) -> bool:
    """Whether Lambda would pass this Lambda-event-form record on: no patterns, or any pattern matches."""
    return not patterns or any(pattern.matches(record) for pattern in patterns)


# --- validation (event-ruler's JsonRuleCompiler rules) ------------------------------------------------------------

def _compile(position: int, item: Any) -> FilterPattern:
    source = item.get("Pattern") if isinstance(item, dict) else None
    if not isinstance(source, str):
        raise FilterCriteriaError(f"filter {position} has no Pattern string")
    if len(source) > MAX_PATTERN_LENGTH:
        raise FilterCriteriaError(
            f"filter {position}'s Pattern is {len(source)} characters long",
            f"1 validation error detected: Value at 'filterCriteria.filters.{position}.member.pattern' failed to "
            f"satisfy constraint: Member must have length less than or equal to {MAX_PATTERN_LENGTH}",
            "ValidationException")
    try:
        rules = json.loads(source, parse_constant=lambda name: {}[name])  # NaN and Infinity are not JSON
    except (ValueError, KeyError) as error:
        raise FilterCriteriaError(f"filter {position}'s Pattern is not valid JSON ({error})") from None
    if not isinstance(rules, dict):
        raise FilterCriteriaError(f"filter {position}'s Pattern is not a JSON object")
    _check_object(rules, in_or=False)
    return FilterPattern(source, rules)


def _check_object(node: dict[str, Any], in_or: bool) -> None:
    if not node:
        raise FilterCriteriaError("empty objects are not allowed")
    for key, value in node.items():
        if key == "$or":
            if not isinstance(value, list) or len(value) < 2 or not all(isinstance(b, dict) for b in value):
                raise FilterCriteriaError('"$or" must be an array of at least 2 objects')
            for branch in value:
                _check_object(branch, in_or=True)
        elif in_or and key in _RESERVED_IN_OR:
            raise FilterCriteriaError(f'"{key}" is a reserved word and cannot be a field name inside "$or"')
        elif isinstance(value, dict):
            _check_object(value, in_or)
        elif isinstance(value, list):
            if not value:
                raise FilterCriteriaError(f'"{key}": empty arrays are not allowed')
            for rule in value:
                _check_rule(key, rule)
        else:
            raise FilterCriteriaError(f'"{key}" must be an object or an array')


def _check_rule(key: str, rule: Any) -> None:
    if rule is None or isinstance(rule, (str, bool, int, float)):
        return
    if not isinstance(rule, dict):
        raise FilterCriteriaError(f'"{key}": a match value must be a string, number, true, false, null or an object')
    if len(rule) != 1:
        raise FilterCriteriaError(f'"{key}": a match expression has exactly one key, not {sorted(rule)}')
    ((operator, arg),) = rule.items()
    if operator not in _OPERATORS:
        raise FilterCriteriaError(f'"{key}": unrecognized match type "{operator}"')
    ignore_case = isinstance(arg, dict) and len(arg) == 1 and isinstance(arg.get("equals-ignore-case"), str)
    if operator in ("prefix", "suffix") and not (isinstance(arg, str) or ignore_case):
        raise FilterCriteriaError(f'"{key}": {operator} must be a string or {{"equals-ignore-case": string}}')
    if operator == "equals-ignore-case" and not isinstance(arg, str):
        raise FilterCriteriaError(f'"{key}": equals-ignore-case must be a string')
    if operator == "exists" and not isinstance(arg, bool):
        raise FilterCriteriaError(f'"{key}": exists must be true or false')
    if operator == "numeric":
        _check_numeric(key, arg)
    if operator == "anything-but":
        _check_anything_but(key, arg)


def _check_numeric(key: str, arg: Any) -> None:
    if not isinstance(arg, list) or not arg or len(arg) % 2:
        raise FilterCriteriaError(f'"{key}": numeric must be an array of operator, number pairs')
    operators, values = arg[0::2], arg[1::2]
    if not all(_is_bounded_number(value) for value in values):
        raise FilterCriteriaError(f'"{key}": numeric operands must be numbers between -5e9 and 5e9, not {values}')
    shape_ok = (len(operators) == 1 and operators[0] in ("=", *_LOWER_BOUNDS, *_UPPER_BOUNDS)) or (
        len(operators) == 2 and operators[0] in _LOWER_BOUNDS and operators[1] in _UPPER_BOUNDS)
    if not shape_ok:
        raise FilterCriteriaError(f'"{key}": numeric takes "=", ">", ">=", "<" or "<=" with a number, or a lower '
                                  f'bound (">" / ">=") followed by an upper bound ("<" / "<="), not {operators}')
    if len(values) == 2 and values[0] >= values[1]:
        raise FilterCriteriaError(f'"{key}": numeric range bottom must be less than top')


def _check_anything_but(key: str, arg: Any) -> None:
    if isinstance(arg, dict):
        operator, value = next(iter(arg.items())) if len(arg) == 1 else (None, None)
        strings = value if isinstance(value, list) else [value]
        if (operator in ("prefix", "suffix") and isinstance(value, str) and value) or (
                operator == "equals-ignore-case" and all(isinstance(v, str) for v in strings)):
            return
        raise FilterCriteriaError(f'"{key}": anything-but takes a non-empty prefix or suffix string, or '
                                  f'equals-ignore-case with a string or strings, not {arg}')
    values = arg if isinstance(arg, list) else [arg]
    if not values or not (all(isinstance(v, str) for v in values) or all(_is_bounded_number(v) for v in values)):
        raise FilterCriteriaError(f'"{key}": anything-but takes a string, a number, or a list of only strings or '
                                  f'only numbers, not {arg!r}')


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_bounded_number(value: Any) -> bool:
    return _is_number(value) and math.isfinite(value) and abs(value) <= NUMERIC_LIMIT


# --- matching ----------------------------------------------------------------------------------------------------

def _object_matches(node: Any, rules: dict[str, Any]) -> bool:
    """All of ``rules``' fields match ``node`` (an event object; anything else has no fields)."""
    fields = node if isinstance(node, dict) else {}
    for key, wanted in rules.items():
        if key == "$or":
            if not any(_object_matches(node, branch) for branch in wanted):
                return False
        elif not _field_matches(fields.get(key, UNDEFINED), wanted):
            return False
    return True


def _field_matches(value: Any, wanted: dict[str, Any] | list[Any]) -> bool:
    if isinstance(wanted, dict):
        if isinstance(value, list):  # arrays are crushed out of the path; one element must match the whole rule
            objects = [item for item in _flatten(value) if isinstance(item, dict)]
            return any(_object_matches(o, wanted) for o in objects) if objects else _object_matches({}, wanted)
        return _object_matches(value, wanted)
    leaves = _leaf_values(value)
    return any(_rule_matches(leaves, rule) for rule in wanted)


def _leaf_values(value: Any) -> list[Any] | None:
    """The scalar values at a path, or None where the path has no leaf (missing, an object, an empty array)."""
    if value is UNDEFINED or isinstance(value, dict):
        return None
    if isinstance(value, list):
        scalars = [item for item in _flatten(value) if not isinstance(item, dict)]
        return scalars or None
    return [value]


def _flatten(items: list[Any]) -> Iterable[Any]:
    for item in items:
        if isinstance(item, list):
            yield from _flatten(item)
        else:
            yield item


def _rule_matches(leaves: list[Any] | None, rule: Any) -> bool:
    if not isinstance(rule, dict):
        return leaves is not None and any(_same_json_value(leaf, rule) for leaf in leaves)
    ((operator, arg),) = rule.items()
    if operator == "exists":
        return operator_matches(UNDEFINED if leaves is None else leaves, rule)
    if leaves is None:
        return False
    if operator == "numeric":  # moto would compare JSON true/false as 1/0
        leaves = [leaf for leaf in leaves if _is_bounded_number(leaf)]
    elif operator == "anything-but" and not isinstance(arg, dict) and any(isinstance(v, bool) for v in leaves):
        return True  # moto finds True in [1]; a JSON boolean is never one of anything-but's strings or numbers
    return any(operator_matches(leaf, rule) for leaf in leaves)


def _same_json_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if _is_number(a) and _is_number(b):
        return a == b
    return type(a) is type(b) and a == b
