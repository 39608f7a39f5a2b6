"""A shape's check of a scalar other than a string (shape_checks/): numbers, booleans, blobs and timestamps."""

from __future__ import annotations

import base64
import binascii
import math
from datetime import timezone
from typing import Any

from botocore.model import Shape
from botocore.utils import parse_timestamp

from eddy.emulator.api.shape_checks.reports import Check, Problems, length_check, type_error, violation
from eddy.emulator.errors import SerializationException


def nothing(value: Any, path: str, problems: Problems) -> None:
    """A kind nothing is checked of."""


def number(shape: Shape) -> Check:
    whole = shape.type_name in ("integer", "long")
    low, high = shape.metadata.get("min"), shape.metadata.get("max")

    def check(value: Any, path: str, problems: Problems) -> None:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or (whole and value != int(value))
        ):
            raise type_error(shape, value)
        if whole:
            value = int(value)
        if low is not None and value < low:
            violation(problems, path, value, f"Member must have value greater than or equal to {low}")
        elif high is not None and value > high:
            violation(problems, path, value, f"Member must have value less than or equal to {high}")

    return check


def boolean(shape: Shape) -> Check:
    def check(value: Any, path: str, problems: Problems) -> None:
        if not isinstance(value, bool):
            raise type_error(shape, value)

    return check


def blob(shape: Shape) -> Check:
    lengths = length_check(shape)

    def check(value: Any, path: str, problems: Problems) -> None:
        if not isinstance(value, str):
            raise type_error(shape, value)
        try:
            decoded = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise SerializationException(f"Base64 encoded value is invalid at '{path}'") from None
        if lengths is not None:
            lengths(decoded, path, problems)

    return check


def timestamp(shape: Shape) -> Check:
    def check(value: Any, path: str, problems: Problems) -> None:
        # epoch seconds: AWS's JSON reader takes a number, never a string (not even a date's)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _readable_timestamp(value):
            raise type_error(shape, value)

    return check


def _readable_timestamp(value: int | float) -> bool:
    try:
        parse_timestamp(value).astimezone(timezone.utc)
    except (ValueError, TypeError, OverflowError, OSError, RuntimeError):  # not a time, or none a datetime holds
        return False
    return True


_BY_KIND = {
    "integer": number,
    "long": number,
    "double": number,
    "float": number,
    "boolean": boolean,
    "blob": blob,
    "timestamp": timestamp,
}


def check_of(shape: Shape) -> Check:
    """The check of a scalar shape other than a string (nothing is checked of a kind not named here)."""
    made = _BY_KIND.get(shape.type_name)
    return nothing if made is None else made(shape)
