"""A Query's KeyConditionExpression read as AWS reads it, before moto's parser (which takes an undefined value for a
string, and fails on OR or a list): names and values defined, key operators only, scalar values, a BETWEEN with its
AND, begins_with of a string or binary.

    check("#k = :v AND begins_with(sk, :p)", names, values)     # raises ValidationException in AWS's words

Checked by validation.py once the request satisfies botocore's model.
"""

from __future__ import annotations

import re
from typing import Any

from eddy.emulator.errors import UNDEFINED_NAME, UNDEFINED_VALUE, ValidationException

_KEY_CONDITION_TOKEN = re.compile(r"[:#]?[A-Za-z0-9_.\[\]-]+|<>|[(]")
#: what a KeyConditionExpression may not use (dynalite's rules, which follow AWS's answers)
_NOT_KEY_OPERATORS = frozenset({"OR", "NOT", "IN", "<>"})
_NOT_KEY_FUNCTIONS = frozenset({"attribute_exists", "attribute_not_exists", "attribute_type", "contains"})


def check(expression: str, names: dict[str, Any], values: dict[str, Any]) -> None:
    """Raise AWS's ValidationException for what is wrong with a Query's KeyConditionExpression (nothing: it reads)."""
    tokens = _KEY_CONDITION_TOKEN.findall(expression)
    for token in tokens:
        undefined = (
            UNDEFINED_NAME
            if token.startswith("#") and token not in names
            else (UNDEFINED_VALUE if token.startswith(":") and token not in values else None)
        )
        if undefined is not None:
            raise ValidationException("Invalid KeyConditionExpression: " + undefined.format(token))
    for token, following in zip(tokens, tokens[1:] + [""]):
        if token.upper() in _NOT_KEY_OPERATORS or (token in _NOT_KEY_FUNCTIONS and following == "("):
            shown = token.upper() if token.upper() in _NOT_KEY_OPERATORS else token
            raise ValidationException(f"Invalid operator used in KeyConditionExpression: {shown}")
    kinds = {
        token: next(iter(values[token])) if isinstance(values[token], dict) and len(values[token]) == 1 else None
        for token in tokens
        if token.startswith(":")
    }
    if any(kind not in ("S", "N", "B") for kind in kinds.values()):
        raise ValidationException(
            "One or more parameter values were invalid: Condition parameter type does not match schema type"
        )
    for at, token in enumerate(tokens):
        if token.upper() == "BETWEEN" and (len(tokens) < at + 4 or tokens[at + 2].upper() != "AND"):
            raise ValidationException(
                f'Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "{" ".join(tokens[at:])}"'
            )  # a BETWEEN without its "AND" and second value
    for at, token in enumerate(tokens[:-3]):
        if token == "begins_with" and tokens[at + 1] == "(" and kinds.get(tokens[at + 3]) == "N":
            raise ValidationException(
                "Invalid KeyConditionExpression: Incorrect operand type for operator or "
                "function; operator or function: begins_with, operand type: N"
            )
