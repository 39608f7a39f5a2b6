"""moto's DynamoDB answers made plain in less time: `dynamo_to_dict`, which moto's handlers run over every answer
(responses.DynamoResult), read by the type of each value rather than by a chain of checks.

moto's own (moto.dynamodb.models.utilities.dynamo_to_dict) imports DynamoType and asks isinstance(datetime),
isinstance(DynamoType) and hasattr(to_json) of every dict, list, string and number of an answer before it recurses:
a GetItem's one item of seven attributes is twenty such calls, a tenth of the request's time in the server. Here a
plain dict (or moto's LimitedSizeDict of an item's attributes), list, string, number, boolean or None, and a
DynamoType other than B and BS, go the way moto's function sends them, read by their exact type (none of them is a
datetime or has a to_json of its own); anything else (datetimes, objects with to_json, binary values, subclasses)
goes to moto's own function. Pinned against moto's by tests/emulator/moto_seam/test_speedups_results.py.

    dynamo_to_dict({"Item": {"pk": DynamoType({"S": "a"})}})   # {"Item": {"pk": {"S": "a"}}}, as moto's
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from moto.dynamodb.models import utilities
from moto.dynamodb.models.dynamo_type import DynamoType, LimitedSizeDict

original_dynamo_to_dict = utilities.dynamo_to_dict

_AS_THEY_ARE = frozenset({str, int, float, bool, type(None), bytes, Decimal})  # moto's function returns them as given
_DICTS = frozenset({dict, LimitedSizeDict})  # mappings without a to_json: their values made plain, by key
_BINARY = frozenset({"B", "BS"})  # base64 read back to bytes: moto's function does it


def dynamo_to_dict(value: Any) -> Any:
    """What moto's dynamo_to_dict answers for `value`."""
    kind = type(value)
    if kind in _DICTS:
        return {key: dynamo_to_dict(member) for key, member in value.items()}
    if kind in _AS_THEY_ARE:
        return value
    if kind is list:
        return [dynamo_to_dict(member) for member in value]
    if kind is DynamoType and value.type not in _BINARY:
        return {value.type: dynamo_to_dict(value.value)}
    return original_dynamo_to_dict(value)
