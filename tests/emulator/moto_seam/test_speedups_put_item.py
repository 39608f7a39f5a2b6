"""Eddy's Table.put_item, item building and DynamoType hashing give exactly what moto's own give.

Each case runs through moto's original and through Eddy's replacement, on twin tables: the outcome (moto's
error, type and message, or the stored item), the tables' contents and what moto told `stream_shard` must be
equal. Items and DynamoTypes are compared by their raw type and value (DynamoType's own == would call "1" and
"1.0" equal).
"""

from __future__ import annotations

import base64
import json
import random
from decimal import Decimal
from typing import Any

import pytest
from moto.dynamodb.comparisons import OpDefault, get_expected, get_filter_expression
from moto.dynamodb.limits import HASH_KEY_MAX_LENGTH, RANGE_KEY_MAX_LENGTH
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table

from eddy.emulator.moto_seam.tables import write_hook
from eddy.emulator.moto_seam.speedups import dynamodb as moto_speedups
from eddy.emulator.moto_seam.speedups import dynamodb_items
from eddy.emulator.moto_seam.speedups import dynamodb_puts
from eddy.emulator.api import validation
from eddy.emulator.errors import AWSError


def raw(value: Any) -> Any:
    """A DynamoType (or an item, or a container of them) as nested plain values, type names included."""
    if isinstance(value, DynamoType):
        return ("DynamoType", value.type, raw(value.value), sorted(vars(value)))
    if isinstance(value, Item):
        return ("Item", raw(value.hash_key), raw(value.range_key), type(value.attrs).__name__, raw(dict(value.attrs)))
    if isinstance(value, dict):
        return {key: raw(element) for key, element in value.items()}
    if isinstance(value, list):
        return [raw(element) for element in value]
    return (type(value).__name__, value)


class _Recorder:
    """Stands in for change capture: records each key and old image moto reports through stream_shard.add."""

    def __init__(self) -> None:
        self.touches: list[Any] = []

    def touched(self, key: Any, make_touch: Any) -> None:
        self.touches.append((key, make_touch().old_image))


GSI = [{"IndexName": "by_city", "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"},
                                               {"AttributeName": "rank", "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "ALL"}}]


def _twin(ranged: bool) -> Table:
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "city", "AttributeType": "S"},
                  {"AttributeName": "rank", "AttributeType": "N"}]
    if ranged:
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": "N"})
    table = Table("t", "123456789012", "us-east-1", schema=schema, attr=attributes, global_indexes=GSI)
    for item in ({"pk": {"S": "old"}, "sk": {"N": "1"}, "v": {"S": "before"}},
                 {"pk": {"S": "n"}, "sk": {"N": "1.0"}, "v": {"N": "1"}}):
        table.put_item(item if ranged else {k: v for k, v in item.items() if k != "sk"})
    return table


def _put(put_item, table: Table, item: dict, **kwargs: Any) -> Any:
    recorder = _Recorder()
    with write_hook.writes_to(recorder):
        try:
            outcome = ("stored", raw(put_item(table, item, **kwargs)))
        except Exception as error:  # moto's refusals: compared by type and message
            outcome = ("refused", type(error).__name__, str(error), getattr(error, "message", None))
    # moto looks a put's item up (an empty partition left in its defaultdict) before it builds it, Eddy after: a
    # refused put leaves no trace (BatchWriteItem builds every item first). An empty partition holds no item.
    contents = [(raw(hash_key), raw(value)) for hash_key, value in table.items.items() if type(value) is not dict or value]
    return outcome, contents, raw(recorder.touches)


PUTS = [
    {"pk": {"S": "a"}, "sk": {"N": "2"}, "n": {"N": "-12.50"}, "t": {"BOOL": False}, "z": {"NULL": True},
     "ss": {"SS": ["x", "é"]}, "ns": {"NS": ["1", "2.5"]}, "b": {"B": b"\x00\x01"}, "bs": {"BS": [b"x"]},
     "m": {"M": {"N": {"S": "named N"}, "S": {"N": "3"}, "l": {"L": [{"S": "x"}, {"M": {}}, {"NULL": True}]}}}},
    {"pk": {"S": "old"}, "sk": {"N": "1"}, "v": {"S": "after"}},  # replaces an item: moto reports the old one
    {"pk": {"S": "n"}, "sk": {"N": "1.00"}, "v": {"N": "2"}},  # the same key as "1.0": moto's Decimal equality
    {"pk": {"S": "g"}, "sk": {"N": "1"}, "city": {"S": "Lisbon"}, "rank": {"N": "7"}},
    {"sk": {"N": "1"}},  # no hash key
    {"pk": {"S": "a"}},  # no range key (on a ranged table)
    {"pk": {"N": "1"}, "sk": {"N": "1"}},  # hash key of the wrong type
    {"pk": {"S": "a"}, "sk": {"S": "1"}},  # range key of the wrong type
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "abc"}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": " 1"}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "1e200"}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": "1e-200"}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"M": {"y": {"N": "nan"}}}},
    *({"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": number}}  # around the plain numbers moto_speedups lets through
      for number in ("0", "-0", "007", "-3.25", "1" * 20 + "." + "9" * 20, "1" * 21, "0." + "0" * 19 + "1", "1.",
                     ".5", "+1", "1e5", "1_000", "\uff11", "1 ", "-", "", "inf", "1" * 39)),
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"NULL": False}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"S": 5}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"N": 5}},
    {"pk": {"S": "x" * (HASH_KEY_MAX_LENGTH + 1)}, "sk": {"N": "1"}},
    {"pk": {"S": "é" * (HASH_KEY_MAX_LENGTH // 2)}, "sk": {"N": "1"}},  # 2048 bytes: just within
    {"pk": {"S": "a"}, "sk": {"N": "1" * (RANGE_KEY_MAX_LENGTH + 1)}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "city": {"S": "c" * (HASH_KEY_MAX_LENGTH + 1)}},  # an index's key
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "rank": {"N": "9" * (RANGE_KEY_MAX_LENGTH + 1)}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "big": {"S": "x" * 404990}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "big": {"L": [{"S": "x" * 1000}] * 405}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "empty": {}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "odd": {"S": "x", "N": "1"}},  # two members: DynamoType takes the first
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "odd": {"L": "abc"}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "odd": {"M": {"k": "v"}}},
]


@pytest.mark.parametrize("ranged", [True, False])
@pytest.mark.parametrize("item", PUTS)
def test_put_item_answers_stores_and_reports_as_moto_does(item, ranged):
    if not ranged:
        item = {key: value for key, value in item.items() if key != "sk"}
    ours = _put(dynamodb_puts.put_item, _twin(ranged), item)
    assert ours == _put(dynamodb_puts.original_put_item, _twin(ranged), item)


@pytest.mark.parametrize("kwargs", [
    dict(condition_expression="attribute_not_exists(pk)"),
    dict(condition_expression="v = :v", expression_attribute_values={":v": {"S": "before"}}),
    dict(expected={"v": {"Value": {"S": "nope"}}}),
    dict(expected={}),
    dict(expression_attribute_names={"#v": "v"}),
    dict(overwrite=True),
])
def test_put_item_with_a_condition_answers_as_moto_does(kwargs):
    item = {"pk": {"S": "old"}, "sk": {"N": "1"}, "v": {"S": "after"}}
    ours = _put(dynamodb_puts.put_item, _twin(True), item, **kwargs)
    assert ours == _put(dynamodb_puts.original_put_item, _twin(True), item, **kwargs)


def test_absent_conditions_are_moto_s_always_true_op():
    """_put_item skips the two checks moto makes when a put has no condition: both are OpDefault."""
    assert isinstance(get_expected({}), OpDefault) and get_expected({}).expr(None)
    assert isinstance(get_filter_expression(None, {"#n": "n"}, {":v": {"S": "v"}}), OpDefault)
    assert isinstance(get_filter_expression("", None, None), OpDefault)


VALUES = [
    {"S": "héllo"}, {"S": ""}, {"N": "-12.500"}, {"N": "1"}, {"N": "1.0"}, {"B": b"\x00\x01"}, {"B": b""},
    {"BOOL": False}, {"BOOL": True}, {"NULL": True}, {"SS": ["a", "bé"]}, {"NS": ["1", "22.5"]}, {"BS": [b"x", b"yz"]},
    {"L": [{"S": "a"}, {"N": "1"}, {"L": [{"BOOL": True}]}]}, {"L": []}, {"M": {}},
    {"M": {"k": {"M": {"é": {"SS": ["x"]}, "n": {"NULL": True}}}, "l": {"L": []}}},
    {"S": "x", "N": "1"}, {"L": [{"S": "a"}, {"BS": [b"q"]}]}, {"S": 5}, {"N": 5}, {"SS": ["a", 1]},
]


@pytest.mark.parametrize("value", VALUES)
def test_dynamotypes_are_built_and_measured_as_moto_does(value):
    built = dynamodb_items.dynamo(value)
    assert raw(built) == raw(DynamoType(value))
    sized = dynamodb_items._sized(value)
    if sized is not None:  # None: the caller builds and measures apart (above)
        assert raw(sized[0]) == raw(DynamoType(value))
        assert sized[1] == DynamoType(value).size()


@pytest.mark.parametrize("value", [{}, {"L": "ab"}, {"M": {"k": "v"}}, {"L": [{}]}, "text"])
def test_dynamotypes_that_moto_cannot_build_fail_as_moto_does(value):
    def failure(build):
        try:
            build(value)
        except Exception as error:
            return type(error), str(error)
        return None

    assert failure(dynamodb_items.dynamo) == failure(DynamoType) is not None
    assert dynamodb_items._sized(value) is None


KEYS = [{"S": "a"}, {"S": "b"}, {"S": ""}, {"N": "1"}, {"N": "1.0"}, {"N": "-0"}, {"N": "0"}, {"N": "2"},
        {"B": b"a"}, {"B": "a"}, {"BOOL": True}, {"BOOL": False}, {"NULL": True}, {"SS": ["a", "b"]}, {"SS": ["b", "a"]},
        {"NS": ["1", "1.0"]}, {"L": [{"N": "1"}]}, {"L": [{"N": "1.0"}]}, {"M": {"a": {"S": "x"}}}, {"S": "1"}]


@pytest.mark.parametrize("value", KEYS)
def test_cast_values_hashes_and_equality_are_moto_s(value):
    this = DynamoType(value)
    assert raw(moto_speedups._cast_value(this)) == raw(moto_speedups.original_cast_value.fget(this))
    if this.type not in ("SS", "NS", "BS", "L", "M"):  # moto cannot hash those (sets, lists, dicts)
        assert moto_speedups._hash(this) == moto_speedups.original_hash(this)
    for other in KEYS:
        that = DynamoType(other)
        assert moto_speedups._eq(this, that) == moto_speedups.original_eq(this, that), other


def test_numbers_hash_as_decimals():
    assert moto_speedups._hash(DynamoType({"N": "1.0"})) == hash(("N", Decimal("1")))


@pytest.mark.parametrize("attrs", [
    {"pk": {"S": "a"}, "n": {"N": "1"}, "m": {"M": {"N": {"N": "x"}}}},
    {"pk": {"S": "a"}, "N": {"S": "attribute named N"}, "S": {"N": "1"}, "NULL": {"S": "x"}},
    {"pk": {"S": "a"}, "m": {"M": {"S": {"M": {}}}}},
    {"pk": {"S": "a"}, "M": {"S": {"S": "x"}}},  # an attribute named M: a key attribute's name below
    {"pk": {"S": {"S": "nested"}}},
    {"pk": {"S": "a"}, "x": {"NULL": False}, "y": {"N": "bad"}},
    {"pk": {"S": "a"}, "x": {"S": 1}},
    {"pk": {"S": "a"}, "x": {"S": True}},
    {"pk": {"S": "a"}, "x": {"L": [{"N": "bad"}]}},  # moto does not look into lists
    {"pk": {"S": "a"}, "x": {"N": 1.5}},
])
@pytest.mark.parametrize("key_attrs", [["pk"], ["pk", "M"], ["pk", "S"]])
def test_item_types_are_validated_as_moto_validates_them(attrs, key_attrs):
    table = _twin(False)
    table.table_key_attrs = key_attrs

    def outcome(validate):
        try:
            validate(table, attrs)
        except Exception as error:
            return type(error).__name__, str(error)
        return None

    assert outcome(dynamodb_puts._validate_item_types) == outcome(Table._validate_item_types)


def test_the_put_path_replacements_are_installed_only_while_an_emulator_is_active():
    from eddy import emulate

    originals = (dynamodb_puts.original_put_item, moto_speedups.original_cast_value, moto_speedups.original_hash,
                 moto_speedups.original_eq)

    def installed():
        return Table.put_item, DynamoType.__dict__["cast_value"], DynamoType.__hash__, DynamoType.__eq__

    assert installed() == originals
    with emulate(housekeeping_interval=None):
        assert installed()[0] is dynamodb_puts.put_item and installed()[2:] == (moto_speedups._hash, moto_speedups._eq)
        assert installed()[1].fget is moto_speedups._cast_value
    assert installed() == originals


def _numbers() -> list[str]:
    """Number spellings, written out and drawn (seeded): signs, points, exponents, blanks, underscores, extremes."""
    written = ["1", "-0", "+1", ".5", "5.", "1e5", "1E-130", "9.9999999999999999999999999999999999999E+125",
               "1E+126", "1E-131", "1e500", "-1e-500", "NaN", "Infinity", "-inf", " 1", "1 ", "1_000", "0x10",
               "1" * 38, "1" * 39, "0." + "0" * 40 + "1", "1.5e", "--1", "", ".", "1..2", "١٢"]
    rng = random.Random(11)
    drawn = ["".join(rng.choice("0123456789.-+eE _") for _ in range(rng.randint(1, 8))) for _ in range(400)]
    return written + drawn


@pytest.mark.parametrize("attrs", [
    *({"pk": {"S": "a"}, "n": {"N": text}, "m": {"M": {"n": {"N": text}}}} for text in _numbers()),
    {"pk": {"S": "a"}, "n": {"N": 1}}, {"pk": {"S": "a"}, "x": {"S": 1}}, {"pk": {"S": "a"}, "x": {"NULL": False}},
    {"pk": {"S": {"S": "nested"}}}, {"pk": {"S": "a"}, "m": {"M": {"x": {"NULL": False}}}},
    {"pk": {"S": "a"}, "N": {"S": "attribute named N"}, "S": {"N": "1"}, "NULL": {"NULL": True}},
])
@pytest.mark.parametrize("operation", ["BatchWriteItem", "PutItem"])
def test_what_eddys_validation_lets_through_moto_s_attribute_value_checks_pass(attrs, operation):
    """BatchWriteItem's and PutItem's fast paths skip moto's Table._validate_item_types (item_to_put(types_checked=
    True); moto_seam/tables/batch_writes.py, puts.py) for items Eddy's validation has passed: sound only while that
    validation refuses everything moto's check does."""
    request = (
        {"RequestItems": {"orders": [{"PutRequest": {"Item": attrs}}]}}
        if operation == "BatchWriteItem"
        else {"TableName": "orders", "Item": attrs}
    )
    try:
        validation.validate("dynamodb", operation, request)
    except AWSError:
        return  # refused at the door: moto never sees it
    table = _twin(False)
    Table._validate_item_types(table, attrs)  # raises if moto would refuse what the door let through


@pytest.mark.parametrize("value", [
    {"S": "é☃😀"}, {"N": "-0.000123"}, {"N": "1" * 38}, {"B": b"\xff" * 30}, {"BS": [b"", b"\x00"]}, {"BOOL": False},
    {"NULL": True}, {"SS": ["é", "x"]}, {"NS": ["1", "-2.5"]}, {"L": [{"NULL": True}, {"L": []}, {"M": {}}]},
    {"M": {"é": {"S": ""}, "k": {"BS": [b"ab"]}}},
])
def test_an_items_size_is_below_the_length_of_its_json(value):
    """What `fits` rests on: moto's measure of an item never passes the length of the JSON that carries it (the
    JSON as botocore writes it: ASCII, binary in base64; or with text as UTF-8)."""
    def as_sent(element: Any) -> Any:
        if isinstance(element, bytes):
            return base64.b64encode(element).decode()
        if isinstance(element, dict):
            return {key: as_sent(member) for key, member in element.items()}
        return [as_sent(member) for member in element] if isinstance(element, list) else element

    attrs = {"pk": {"S": "a"}, "attribute": value}
    size = Item(DynamoType(attrs["pk"]), None, attrs).size()
    assert size <= len(json.dumps({"Item": as_sent(attrs)}, ensure_ascii=False).encode())
    assert size <= len(json.dumps({"Item": as_sent(attrs)}).encode())


def _empty_sets_outcome(check, item: dict, table: Table) -> Any:
    try:
        return "passed", check(item, table)
    except Exception as error:  # moto's refusal: compared by type and message
        return "refused", type(error).__name__, str(error)


EMPTY_SETS = [
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"S": "x"}, "ss": {"SS": ["a"]}, "ns": {"NS": ["1"]}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "ss": {"SS": []}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "ns": {"NS": []}},
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "ns": {"NS": []}, "ss": {"SS": []}},  # the first met is named
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "m": {"M": {"inner": {"M": {"ss": {"SS": []}}}}}},  # inside maps
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "l": {"L": [{"SS": []}]}},  # a list's members are not walked
    {"pk": {"SS": []}, "sk": {"N": "1"}},  # a key attribute is not this check's
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "city": {"SS": []}, "rank": {"NS": []}},  # nor an index's key
    {"pk": {"S": "a"}, "sk": {"N": "1"}, "bs": {"BS": []}, "odd": {"SS": [], "NS": ["1"]}},
]


@pytest.mark.parametrize("item", EMPTY_SETS)
def test_the_empty_set_check_answers_as_moto_does(item):
    table = _twin(ranged=True)
    assert _empty_sets_outcome(dynamodb_puts.validate_put_has_empty_attrs, item, table) == _empty_sets_outcome(
        dynamodb_puts.original_validate_put_has_empty_attrs, item, table)
