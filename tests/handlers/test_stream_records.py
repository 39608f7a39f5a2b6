"""eddy.handlers.stream_records: table names from stream ARNs, plain values from DynamoDB JSON."""

from __future__ import annotations

import pytest

from eddy.handlers.stream_records import image, plain, table_name


def test_table_name_comes_from_the_stream_arn() -> None:
    arn = "arn:aws:dynamodb:us-east-1:123456789012:table/my-orders/stream/2024-05-01T12:00:00.000"
    assert table_name({"eventSourceARN": arn}) == "my-orders"


def test_plain_values_have_no_decimals_or_sets() -> None:
    item = {"n": {"N": "7"}, "f": {"N": "2.50"}, "big": {"N": "100000000000000000004"}, "s": {"S": "x"},
            "ns": {"NS": ["3", "1.5"]}, "ss": {"SS": ["b", "a"]}, "b": {"B": b"\x00"}, "null": {"NULL": True},
            "m": {"M": {"l": {"L": [{"N": "1"}, {"BOOL": False}]}}}}
    assert plain(item) == {"n": 7, "f": 2.5, "big": 100000000000000000004, "s": "x", "ns": [1.5, 3], "ss": ["a", "b"],
                           "b": b"\x00", "null": None, "m": {"l": [1, False]}}


def test_a_missing_image_names_the_view_type() -> None:
    record = {"eventID": "e1", "dynamodb": {"Keys": {}, "StreamViewType": "KEYS_ONLY"}}
    with pytest.raises(ValueError, match="e1 has no OldImage: the stream's view type is KEYS_ONLY"):
        image(record, "OldImage")
