"""An AttributeValue's content checked as DynamoDB checks it, after the model's checks, with AWS's words.

    check("PutItem", params, input_shape)   # raises ValidationException for the first bad AttributeValue

The model says what type each member has; DynamoDB also refuses, in this order, member by member:
- a number it cannot read ("The parameter cannot be converted to a numeric value: b"), one beyond its range
  (magnitude 1E-130 to 9.99...E+125: "Number overflow. ...", "Number underflow. ...") or with more than 38
  significant digits; `NULL: false`; an empty set; a set with duplicates (numbers compared by value: 1 and 1.0);
- then, the members read, a value with none ("Supplied AttributeValue is empty, ...") or several ("... has
  more than one datatypes set, ..."). Members of M and L are checked the same way, in order.
Where the value is says how the message is worded: in ExpressionAttributeValues it is "ExpressionAttributeValues
contains invalid value: <message> for key :v"; in an ExclusiveStartKey most messages start "The provided
starting key is invalid: ". Values are checked in the order DynamoDB checks the request's members (for
Query: QueryFilter, ExclusiveStartKey, ExpressionAttributeValues, then KeyConditions), the first one wrong
answers. (dynalite's tests, written against DynamoDB, are the reference for the words and the order.)

The legacy parameters are held to their own rules (`check_legacy`, after the model's checks): an Expected
condition's Value, AttributeValueList, Exists and ComparisonOperator together as DynamoDB allows them,
each ComparisonOperator's number of values (in Expected, KeyConditions, QueryFilter and ScanFilter), an
AttributeUpdates action's value (ADD a number, a set or a list; DELETE a set, or nothing).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from botocore.model import Shape

from eddy.emulator.api.dynamodb.rules import numbers
from eddy.emulator.errors import ValidationException

INVALID = "One or more parameter values were invalid: "
#: a message AWS gives whole wherever the value is (not wrapped for ExpressionAttributeValues)
WHOLE = "1 validation error detected: "
EMPTY = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
SEVERAL = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
NOT_A_NUMBER = "The parameter cannot be converted to a numeric value"
NULL_FALSE = "Null attribute value types must have the value of true"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
TOO_PRECISE = "Attempting to store more than 38 significant digits in a Number"
STARTING_KEY = "The provided starting key is invalid: "
#: the messages an ExclusiveStartKey's problem is given without STARTING_KEY in front
_BARE_IN_STARTING_KEY = re.compile(
    r"contains duplicates|number set|numeric value|significant digits|number with "
    r"magnitude"
)
_EXPRESSION_VALUE_KEY = re.compile(r":[0-9a-zA-Z_]+")
#: a number as Java's BigDecimal reads it: sign, digits with an optional point, optional exponent
_NUMBER = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")
MAX_DIGITS, MAX_EXPONENT, MIN_EXPONENT = 38, 125, -130
_KINDS = ("S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL")

#: the members that hold items and keys (a value's problem there is worded `_in_item`)
_ITEMS = frozenset({"Item", "Key", "Keys"})
#: members checked before the others, in this order, where DynamoDB does not follow the model's order
FIRST = {"Query": ("QueryFilter", "ExclusiveStartKey", "ExpressionAttributeValues", "KeyConditions")}


def check(operation: str, params: dict[str, Any], shape: Shape) -> None:
    """Raise AWS's ValidationException for the first AttributeValue in `params` DynamoDB would refuse. The
    model's own checks have passed: every member has the type the model gives it."""
    first = FIRST.get(operation, ())
    names = list(first) + [name for name in shape.members if name not in first]
    _members(shape, params, names)


def _members(shape: Shape, value: dict[str, Any], names: Any, in_item: bool = False) -> None:
    for name in names:
        member = value.get(name)
        if member is None:
            continue
        if name == "ExpressionAttributeValues":
            _expression_values(member)
        elif name == "ExclusiveStartKey":
            message = _first_problem(member.values())
            if message:
                bare = message.startswith(WHOLE) or _BARE_IN_STARTING_KEY.search(message)
                raise ValidationException(message if bare else STARTING_KEY + message)
        else:
            _walk(shape.members[name], member, in_item or name in _ITEMS)


def _expression_values(values: dict[str, Any]) -> None:
    for key, value in values.items():
        message = problem(value)
        if not message:
            continue
        if message.startswith(WHOLE):
            raise ValidationException(message)
        for other in values:  # DynamoDB reads every key before any value (a bad key alone is moto's to word)
            if not _EXPRESSION_VALUE_KEY.fullmatch(other):
                raise ValidationException(
                    f'ExpressionAttributeValues contains invalid key: Syntax error; key: "{other}"'
                )
        raise ValidationException(f"ExpressionAttributeValues contains invalid value: {message} for key {key}")


def _in_item(message: str) -> str:
    """A value's problem as DynamoDB words it in an item or a key: an empty set without the envelope, NULL false as a
    parameter value (the AWS-run conformance suite nubo-db/dynamodb-conformance,
    tests/tier3/error-messages/putItem.test.ts; dynalite's test/putItem.js, getItem.js, updateItem.js "for invalid
    values in Item/Key"). Elsewhere (legacy parameters' values, PartiQL's Parameters) AWS's words are not recorded."""
    if message.startswith(WHOLE):
        return message[len(WHOLE) :]
    return INVALID + message if message == NULL_FALSE else message


def _first_problem(values: Any) -> str | None:
    for value in values:
        message = problem(value)
        if message:
            return message
    return None


def _walk(shape: Shape, value: Any, in_item: bool = False) -> None:
    if shape.name == "AttributeValue":
        message = problem(value)
        if message:
            raise ValidationException(_in_item(message) if in_item else message)
        return
    kind = shape.type_name
    if kind == "structure":
        if shape.name == "WriteRequest" and all(value.get(name) is None for name in shape.members):
            raise ValidationException(SEVERAL)  # an empty request in BatchWriteItem: AWS's words
        _members(shape, value, shape.members, in_item)
    elif kind == "list":
        for element in value:
            if element is not None or shape.member.name == "AttributeValue":
                _walk(shape.member, element, in_item)
    elif kind == "map":
        for element in value.values():
            if element is not None or shape.value.name == "AttributeValue":
                _walk(shape.value, element, in_item)


def problem(value: Any) -> str | None:
    """AWS's message for what is wrong with an AttributeValue (None: nothing). `value` is a dict whose members
    have the model's types; members that are None or unknown to the model are not there, as for AWS."""
    if value is None:
        return EMPTY  # a null where a value belongs (AWS's words for it unknown: read as a value with no type)
    kinds = 0
    for kind, member in value.items():
        if member is None or kind not in _KINDS:
            continue
        kinds += 1
        message = None
        if kind == "N":
            message = number_problem(member)
            if not message:
                value[kind] = numbers.as_stored(member)
        elif kind == "NULL" and member is not True:
            message = NULL_FALSE
        elif kind == "SS" or kind == "NS" or kind == "BS":
            message = _set_problem(kind, member)
        elif kind == "M":
            message = _first_problem(member.values())
        elif kind == "L":
            message = _first_problem(member)
        if message:
            return message
    if kinds == 0:
        return EMPTY
    return SEVERAL if kinds > 1 else None


def _set_problem(kind: str, members: list[Any]) -> str | None:
    if not members:  # SS and NS: AWS's words, as moto's AWS-verified tests record them in ExpressionAttributeValues
        return {
            "SS": WHOLE + INVALID + "An string set  may not be empty",
            "NS": WHOLE + INVALID + "An number set  may not be empty",
            "BS": INVALID + "Binary sets should not be empty",
        }[kind]
    if kind == "NS":
        for member in members:
            message = number_problem(member) if member is not None else NOT_A_NUMBER
            if message:
                return message
        if len({_number_value(member) for member in members}) < len(members):
            return "Input collection contains duplicates"
        members[:] = [numbers.as_stored(member) for member in members]
        return None
    if any(member is None for member in members):
        return EMPTY  # a null inside a set (AWS's words for it unknown: read as a value with no type)
    if kind == "SS":
        if len(set(members)) < len(members):
            return INVALID + f"Input collection [{', '.join(members)}] contains duplicates."
    elif len({_bytes(member) for member in members}) < len(members):
        return INVALID + f"Input collection [{', '.join(members)}]of type BS contains duplicates."
    return None


def _bytes(text: str) -> bytes:
    try:
        return base64.b64decode(text)
    except (binascii.Error, ValueError):
        return text.encode()


def number_problem(text: str) -> str | None:
    """AWS's message for a number it would refuse (None: it is a number DynamoDB stores)."""
    if not text:
        return NOT_A_NUMBER
    parsed = _parse(text)
    if parsed is None:
        return f"{NOT_A_NUMBER}: {text}"
    digits, exponent = parsed
    if not digits:
        return None  # zero
    if exponent > MAX_EXPONENT:
        return OVERFLOW
    if exponent < MIN_EXPONENT:
        return UNDERFLOW
    if len(digits) > MAX_DIGITS:
        return TOO_PRECISE
    return None


def _parse(text: str) -> tuple[str, int] | None:
    """A number's significant digits (no leading or trailing zeros; "" for zero) and the power of ten of the
    first of them (1.5 -> ("15", 0), 0.02 -> ("2", -2)); None if it is no number."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return None
    _, whole, fraction, exponent = match.groups()
    if not whole and not fraction:
        return None
    fraction = fraction or ""
    written = (whole + fraction).lstrip("0")
    digits = written.rstrip("0")
    if not digits:
        return "", 0
    if exponent is None:
        power = 0
    elif len(exponent.lstrip("+-").lstrip("0")) > 30:  # beyond any range: only its sign matters
        power = -(10**31) if exponent.startswith("-") else 10**31
    else:
        power = int(exponent)
    leading_zeros = len(whole) + len(fraction) - len(written)
    return digits, len(whole) - 1 - leading_zeros + power


def _number_value(text: str) -> tuple[str, str, int]:
    """A number's value, for comparing a set's members: 1, 1.0 and 10E-1 are one value."""
    parsed = _parse(text)
    digits, exponent = parsed if parsed is not None else (text, 0)
    sign = "-" if text.startswith("-") and digits else ""
    return sign, digits, exponent


# -- the legacy (non-expression) parameters: their conditions' and updates' values --------------------------------

#: each operation's legacy parameters whose conditions or updates are checked, in DynamoDB's order (dynalite's); a
#: request mixing them with expressions was refused before (rules/expression_parameters.py)
LEGACY = {
    "PutItem": ("Expected",),
    "DeleteItem": ("Expected",),
    "UpdateItem": ("AttributeUpdates", "Expected"),
    "Query": ("QueryFilter", "KeyConditions"),
    "Scan": ("ScanFilter",),
}
#: how many values each ComparisonOperator takes (IN: one or more), in the order AWS lists its enum value set
_ARGUMENTS = {
    "IN": None,
    "NULL": 0,
    "BETWEEN": 2,
    "LT": 1,
    "NOT_CONTAINS": 1,
    "EQ": 1,
    "GT": 1,
    "NOT_NULL": 0,
    "NE": 1,
    "LE": 1,
    "BEGINS_WITH": 1,
    "GE": 1,
    "CONTAINS": 1,
}
_ACTIONS = ("ADD", "PUT", "DELETE")


def check_legacy(operation: str, params: dict[str, Any]) -> None:
    """Raise AWS's ValidationException for the first legacy condition or update DynamoDB would refuse (moto failed on
    these with Python errors, or let them through). A request without legacy parameters costs a look-up or two."""
    for member in LEGACY[operation]:
        entries = params.get(member)
        if entries is None:
            continue
        path = member[:1].lower() + member[1:]
        for name, entry in entries.items() if isinstance(entries, dict) else ():
            if isinstance(entry, dict) and member == "AttributeUpdates":
                _update(path, name, entry)
            elif isinstance(entry, dict):
                _condition(path, name, entry, member == "Expected")


def _condition(path: str, name: str, condition: dict[str, Any], expected: bool) -> None:
    operator, values, value = (condition.get(key) for key in ("ComparisonOperator", "AttributeValueList", "Value"))
    if operator is not None and operator not in _ARGUMENTS:
        raise ValidationException(
            f"{WHOLE}Value '{operator}' at '{path}.{name}.member.comparisonOperator' failed to "
            f"satisfy constraint: Member must satisfy enum value set: [{', '.join(_ARGUMENTS)}]"
        )
    if expected:
        if values is not None and value is not None:
            raise ValidationException(
                f"{INVALID}Value and AttributeValueList cannot be used together for Attribute: {name}"
            )
        if operator is None:
            _exists(name, condition.get("Exists"), value, values)
            return
        if condition.get("Exists") is not None:
            raise ValidationException(
                f"{INVALID}Exists and ComparisonOperator cannot be used together for Attribute: {name}"
            )
        if operator not in ("NULL", "NOT_NULL") and values is None and value is None:
            raise ValidationException(
                f"{INVALID}Value or AttributeValueList must be used with ComparisonOperator: "
                f"{operator} for Attribute: {name}"
            )
    elif operator is None:
        return  # the model requires it: refused before this
    count = len(values) if values is not None else int(value is not None)
    wanted = _ARGUMENTS[operator]
    if (count == 0) if wanted is None else (count != wanted):
        raise ValidationException(f"{INVALID}Invalid number of argument(s) for the {operator} ComparisonOperator")


def _exists(name: str, exists: Any, value: Any, values: Any) -> None:
    if values is not None:
        raise ValidationException(
            f"{INVALID}AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"
        )
    if exists is not False and value is None:
        shown = "null" if exists is None else "true"
        raise ValidationException(f"{INVALID}Value must be provided when Exists is {shown} for Attribute: {name}")
    if exists is False and value is not None:
        raise ValidationException(f"{INVALID}Value cannot be used when Exists is false for Attribute: {name}")


def _update(path: str, name: str, update: dict[str, Any]) -> None:
    action, value = update.get("Action"), update.get("Value")
    if action is not None and action not in _ACTIONS:
        raise ValidationException(
            f"{WHOLE}Value '{action}' at '{path}.{name}.member.action' failed to satisfy "
            f"constraint: Member must satisfy enum value set: [{', '.join(_ACTIONS)}]"
        )
    kind = next((kind for kind, member in value.items() if member is not None), None) if value is not None else None
    if value is None and action != "DELETE":  # no Action is PUT
        raise ValidationException(f"{INVALID}Only DELETE action is allowed when no attribute value is specified")
    if action == "DELETE" and value is not None and kind not in ("SS", "NS", "BS"):
        raise ValidationException(f"{INVALID}DELETE action with value is not supported for the type {kind}")
    if action == "ADD" and value is not None and kind not in ("L", "SS", "NS", "BS", "N"):
        raise ValidationException(f"{INVALID}ADD action is not supported for the type {kind}")
