"""Lambda FilterCriteria (emulator/triggers/filters.py) on DynamoDB stream records in Lambda's event form.

Every operator is checked for and against, through the event-pattern engine's Lambda dialect (the engine itself:
tests/emulator/event_patterns/).
"""

from __future__ import annotations

import copy
import json
from typing import Any, NamedTuple

import pytest

from eddy.emulator.triggers.filters import (
    INVALID_PATTERN,
    MAX_FILTERS,
    FilterCriteriaError,
    FilterPattern,
    matches,
    validate_filter_criteria,
)

ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2024-05-01T00:00:00.000"


def _record(event_name: str, keys: dict, new: dict | None = None, old: dict | None = None,
            size: int = 120, ttl: bool = False) -> dict[str, Any]:
    dynamodb: dict[str, Any] = {"ApproximateCreationDateTime": 1714550400, "Keys": keys}
    if new is not None:
        dynamodb["NewImage"] = new
    if old is not None:
        dynamodb["OldImage"] = old
    dynamodb.update(SequenceNumber="4421584500000000017450439091", SizeBytes=size,
                    StreamViewType="NEW_AND_OLD_IMAGES")
    record = {"eventID": "c4ca4238a0b923820dcc509a6f75849b", "eventName": event_name, "eventVersion": "1.1",
              "eventSource": "aws:dynamodb", "awsRegion": "us-east-1", "dynamodb": dynamodb,
              "eventSourceARN": ARN}
    if ttl:  # a deletion by Time to Live
        record["userIdentity"] = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    return record


ORDER_KEYS = {"pk": {"S": "order#1001"}, "sk": {"S": "v0"}}
PENDING = {
    **ORDER_KEYS,
    "status": {"S": "pending"},
    "amount": {"N": "150"},
    "email": {"S": "Ana@Example.com"},
    "coupon": {"S": ""},
    "gift": {"BOOL": True},
    "note": {"NULL": True},
    "tags": {"SS": ["gift", "priority"]},
    "colors": {"L": [{"S": "blue"}, {"S": "red"}]},
    "lines": {"L": [
        {"M": {"sku": {"S": "A-1"}, "qty": {"N": "1"}}},
        {"M": {"sku": {"S": "B-2"}, "qty": {"N": "2"}}},
    ]},
    "shipping": {"M": {"city": {"S": "Lisbon"}, "zip": {"S": "1100-001"}}},
    "history": {"L": []},
    "attachment": {"S": "invoice.PDF"},
}
SHIPPED = {**PENDING, "status": {"S": "shipped"}, "coupon": {"S": "SAVE10"}}

INSERT = _record("INSERT", ORDER_KEYS, new=PENDING)
MODIFY = _record("MODIFY", ORDER_KEYS, new=SHIPPED, old=PENDING, size=240)
REMOVE = _record("REMOVE", ORDER_KEYS, old=SHIPPED)
TTL_REMOVE = _record("REMOVE", ORDER_KEYS, old=SHIPPED, ttl=True)
CUSTOMER = _record("INSERT", {"pk": {"S": "customer#7"}, "sk": {"S": "profile"}},
                   new={"pk": {"S": "customer#7"}, "sk": {"S": "profile"}, "name": {"S": "Ana"}}, size=60)
WITH_NULL = {**INSERT, "eventSourceARN": None}  # a JSON null somewhere in the record


def _new(**fields: Any) -> dict:
    return {"dynamodb": {"NewImage": fields}}


def _old(**fields: Any) -> dict:
    return {"dynamodb": {"OldImage": fields}}


class Case(NamedTuple):
    name: str
    pattern: dict
    record: dict
    expected: bool


CASES = [
    # exact strings; several values in one list are ORed; fields are ANDed
    Case("eventName equals", {"eventName": ["INSERT"]}, INSERT, True),
    Case("eventName differs", {"eventName": ["INSERT"]}, MODIFY, False),
    Case("one of several values", {"eventName": ["INSERT", "MODIFY"]}, MODIFY, True),
    Case("none of several values", {"eventName": ["INSERT", "MODIFY"]}, REMOVE, False),
    Case("key attribute", {"dynamodb": {"Keys": {"pk": {"S": ["order#1001"]}}}}, REMOVE, True),
    Case("NewImage attribute", _new(status={"S": ["shipped"]}), MODIFY, True),
    Case("NewImage attribute differs", _new(status={"S": ["shipped"]}), INSERT, False),
    Case("attribute needs its type key", _new(status=["shipped"]), MODIFY, False),
    Case("fields are ANDed", {"eventName": ["MODIFY"], **_new(status={"S": ["shipped"]})}, MODIFY, True),
    Case("one ANDed field fails",
         {"dynamodb": {"NewImage": {"status": {"S": ["shipped"]}}, "OldImage": {"status": {"S": ["shipped"]}}}},
         MODIFY, False),
    Case("status changed pending to shipped",
         {"dynamodb": {"NewImage": {"status": {"S": ["shipped"]}}, "OldImage": {"status": {"S": ["pending"]}}}},
         MODIFY, True),
    Case("case matters", {"eventName": ["insert"]}, INSERT, False),
    # exact numbers and DynamoDB N strings
    Case("N is matched as a string", _new(amount={"N": ["150"]}), INSERT, True),
    Case("N string is not a number", _new(amount={"N": [150]}), INSERT, False),
    Case("N string 150.0 is not 150", _new(amount={"N": ["150.0"]}), INSERT, False),
    Case("JSON number equals", {"dynamodb": {"SizeBytes": [120]}}, INSERT, True),
    Case("JSON number equals 120.0", {"dynamodb": {"SizeBytes": [120.0]}}, INSERT, True),
    Case("JSON number is not its string", {"dynamodb": {"SizeBytes": ["120"]}}, INSERT, False),
    # booleans
    Case("BOOL true", _new(gift={"BOOL": [True]}), INSERT, True),
    Case("BOOL false", _new(gift={"BOOL": [False]}), INSERT, False),
    Case("true is not 1", _new(gift={"BOOL": [1]}), INSERT, False),
    Case("DynamoDB NULL attribute", _new(note={"NULL": [True]}), INSERT, True),
    # null and empty
    Case("null matches JSON null", {"eventSourceARN": [None]}, WITH_NULL, True),
    Case("null does not match a string", {"eventSourceARN": [None]}, INSERT, False),
    Case("null does not match a missing field", {"userIdentity": {"type": [None]}}, INSERT, False),
    Case("null is not a DynamoDB NULL attribute", _new(note=[None]), INSERT, False),
    Case("empty string", _new(coupon={"S": [""]}), INSERT, True),
    Case("empty string vs non-empty", _new(coupon={"S": [""]}), MODIFY, False),
    Case("empty string vs missing", _new(coupon={"S": [""]}), REMOVE, False),
    # prefix
    Case("prefix", {"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "order#"}]}}}}, INSERT, True),
    Case("prefix differs", {"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "order#"}]}}}}, CUSTOMER, False),
    Case("prefix is case sensitive", {"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "ORDER#"}]}}}}, INSERT, False),
    Case("prefix ignoring case", {"dynamodb": {"Keys": {"pk": {"S": [{"prefix": {"equals-ignore-case": "ORDER#"}}]}}}},
         INSERT, True),
    Case("prefix of an N string", _new(amount={"N": [{"prefix": "15"}]}), INSERT, True),
    Case("prefix never matches a number", {"dynamodb": {"SizeBytes": [{"prefix": "12"}]}}, INSERT, False),
    Case("prefix on a missing field", _new(status={"S": [{"prefix": "p"}]}), REMOVE, False),
    # suffix
    Case("suffix", _new(email={"S": [{"suffix": "@Example.com"}]}), INSERT, True),
    Case("suffix differs", _new(email={"S": [{"suffix": "@example.org"}]}), INSERT, False),
    Case("suffix is case sensitive", _new(attachment={"S": [{"suffix": ".pdf"}]}), INSERT, False),
    Case("suffix ignoring case", _new(attachment={"S": [{"suffix": {"equals-ignore-case": ".pdf"}}]}), INSERT, True),
    # equals-ignore-case
    Case("equals-ignore-case", _new(status={"S": [{"equals-ignore-case": "SHIPPED"}]}), MODIFY, True),
    Case("equals-ignore-case differs", _new(status={"S": [{"equals-ignore-case": "SHIPPED"}]}), INSERT, False),
    Case("equals-ignore-case is whole-string", _new(status={"S": [{"equals-ignore-case": "SHIP"}]}), MODIFY, False),
    Case("equals-ignore-case never matches a number",
         {"dynamodb": {"SizeBytes": [{"equals-ignore-case": "120"}]}}, INSERT, False),
    # anything-but
    Case("anything-but value", _new(status={"S": [{"anything-but": "pending"}]}), MODIFY, True),
    Case("anything-but value excluded", _new(status={"S": [{"anything-but": "pending"}]}), INSERT, False),
    Case("anything-but list", _new(status={"S": [{"anything-but": ["pending", "cancelled"]}]}), MODIFY, True),
    Case("anything-but list excluded", _new(status={"S": [{"anything-but": ["pending", "cancelled"]}]}), INSERT,
         False),
    Case("anything-but needs the field", _new(status={"S": [{"anything-but": "pending"}]}), REMOVE, False),
    Case("anything-but on an N string", _new(amount={"N": [{"anything-but": ["0"]}]}), INSERT, True),
    Case("anything-but number", {"dynamodb": {"SizeBytes": [{"anything-but": 120}]}}, INSERT, False),
    Case("anything-but numbers", {"dynamodb": {"SizeBytes": [{"anything-but": [60, 240]}]}}, INSERT, True),
    Case("anything-but numbers excluded", {"dynamodb": {"SizeBytes": [{"anything-but": [60, 240]}]}}, MODIFY, False),
    Case("anything-but a string of a number", {"dynamodb": {"SizeBytes": [{"anything-but": "120"}]}}, INSERT, True),
    Case("anything-but prefix", {"dynamodb": {"Keys": {"pk": {"S": [{"anything-but": {"prefix": "order#"}}]}}}},
         CUSTOMER, True),
    Case("anything-but prefix excluded",
         {"dynamodb": {"Keys": {"pk": {"S": [{"anything-but": {"prefix": "order#"}}]}}}}, INSERT, False),
    Case("anything-but suffix", _new(email={"S": [{"anything-but": {"suffix": "@example.org"}}]}), INSERT, True),
    Case("anything-but suffix excluded", _new(email={"S": [{"anything-but": {"suffix": ".com"}}]}), INSERT, False),
    Case("anything-but ignoring case", _new(status={"S": [{"anything-but": {"equals-ignore-case": "PENDING"}}]}),
         MODIFY, True),
    Case("anything-but ignoring case excluded",
         _new(status={"S": [{"anything-but": {"equals-ignore-case": ["CANCELLED", "PENDING"]}}]}), INSERT, False),
    Case("anything-but a number vs true", _new(gift={"BOOL": [{"anything-but": [1]}]}), INSERT, True),
    # numeric: JSON numbers only
    Case("numeric >", {"dynamodb": {"SizeBytes": [{"numeric": [">", 100]}]}}, INSERT, True),
    Case("numeric > fails", {"dynamodb": {"SizeBytes": [{"numeric": [">", 120]}]}}, INSERT, False),
    Case("numeric >=", {"dynamodb": {"SizeBytes": [{"numeric": [">=", 120]}]}}, INSERT, True),
    Case("numeric <", {"dynamodb": {"SizeBytes": [{"numeric": ["<", 100]}]}}, CUSTOMER, True),
    Case("numeric < fails", {"dynamodb": {"SizeBytes": [{"numeric": ["<", 120]}]}}, INSERT, False),
    Case("numeric <=", {"dynamodb": {"SizeBytes": [{"numeric": ["<=", 120]}]}}, INSERT, True),
    Case("numeric =", {"dynamodb": {"SizeBytes": [{"numeric": ["=", 120]}]}}, INSERT, True),
    Case("numeric = fails", {"dynamodb": {"SizeBytes": [{"numeric": ["=", 120.5]}]}}, INSERT, False),
    Case("numeric range", {"dynamodb": {"SizeBytes": [{"numeric": [">", 0, "<=", 120]}]}}, INSERT, True),
    Case("numeric range open top", {"dynamodb": {"SizeBytes": [{"numeric": [">", 0, "<", 120]}]}}, INSERT, False),
    Case("numeric range low end", {"dynamodb": {"SizeBytes": [{"numeric": [">=", 60, "<", 100]}]}}, CUSTOMER, True),
    Case("numeric on the creation time",
         {"dynamodb": {"ApproximateCreationDateTime": [{"numeric": [">", 1700000000]}]}}, INSERT, True),
    # AWS: "numbers in DynamoDB are stored as strings", so numeric filters do not apply to N attributes
    Case("numeric never matches an N string", _new(amount={"N": [{"numeric": [">", 100]}]}), INSERT, False),
    Case("numeric = never matches an N string", _new(amount={"N": [{"numeric": ["=", 150]}]}), INSERT, False),
    Case("numeric never matches a boolean", _new(gift={"BOOL": [{"numeric": [">", 0]}]}), INSERT, False),
    Case("numeric on a missing field", {"dynamodb": {"Missing": [{"numeric": [">", 0]}]}}, INSERT, False),
    # exists: leaves only
    Case("exists", _new(email={"S": [{"exists": True}]}), INSERT, True),
    Case("exists, missing", _new(phone={"S": [{"exists": True}]}), INSERT, False),
    Case("not exists", _new(phone={"S": [{"exists": False}]}), INSERT, True),
    Case("not exists, present", _new(email={"S": [{"exists": False}]}), INSERT, False),
    Case("not exists without a NewImage", _new(email={"S": [{"exists": False}]}), REMOVE, True),
    Case("an attribute is not a leaf: exists", _new(email=[{"exists": True}]), INSERT, False),
    Case("an attribute is not a leaf: not exists", _new(email=[{"exists": False}]), INSERT, True),
    Case("a TTL deletion", {"userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}},
         TTL_REMOVE, True),
    Case("a user's deletion is not a TTL deletion", {"userIdentity": {"type": ["Service"]}}, REMOVE, False),
    Case("deleted by a user", {"eventName": ["REMOVE"], "userIdentity": {"type": [{"exists": False}]}},
         REMOVE, True),
    Case("deleted by TTL, not by a user", {"eventName": ["REMOVE"], "userIdentity": {"type": [{"exists": False}]}},
         TTL_REMOVE, False),
    # $or
    Case("$or first branch", {"$or": [{"eventName": ["INSERT"]}, _new(status={"S": ["shipped"]})]}, INSERT, True),
    Case("$or second branch", {"$or": [{"eventName": ["INSERT"]}, _new(status={"S": ["shipped"]})]}, MODIFY, True),
    Case("$or no branch", {"$or": [{"eventName": ["INSERT"]}, _new(status={"S": ["shipped"]})]}, REMOVE, False),
    Case("$or nested, ANDed with a field",
         {"eventName": ["MODIFY"], "dynamodb": {"$or": [{"NewImage": {"coupon": {"S": [""]}}},
                                                       {"SizeBytes": [{"numeric": [">", 200]}]}]}}, MODIFY, True),
    Case("$or nested, ANDed field fails",
         {"eventName": ["INSERT"], "dynamodb": {"$or": [{"NewImage": {"coupon": {"S": ["x"]}}},
                                                       {"SizeBytes": [{"numeric": [">", 100]}]}]}}, MODIFY, False),
    # arrays: a value list matches if any element matches
    Case("string set contains", _new(tags={"SS": ["priority"]}), INSERT, True),
    Case("string set does not contain", _new(tags={"SS": ["fragile"]}), INSERT, False),
    Case("string set element prefix", _new(tags={"SS": [{"prefix": "prio"}]}), INSERT, True),
    Case("string set anything-but: one element is not excluded", _new(tags={"SS": [{"anything-but": ["gift"]}]}),
         INSERT, True),
    Case("string set anything-but: every element excluded",
         _new(tags={"SS": [{"anything-but": ["gift", "priority"]}]}), INSERT, False),
    Case("list of S", _new(colors={"L": {"S": ["red"]}}), INSERT, True),
    Case("list of S, no element", _new(colors={"L": {"S": ["green"]}}), INSERT, False),
    Case("list of maps", _new(lines={"L": {"M": {"sku": {"S": ["B-2"]}}}}), INSERT, True),
    Case("list of maps, both fields from one element",
         _new(lines={"L": {"M": {"sku": {"S": ["B-2"]}, "qty": {"N": ["2"]}}}}), INSERT, True),
    Case("list of maps, fields from different elements",
         _new(lines={"L": {"M": {"sku": {"S": ["B-2"]}, "qty": {"N": ["1"]}}}}), INSERT, False),
    Case("an empty list has no leaves", _new(history={"L": [{"exists": False}]}), INSERT, True),
    Case("map attribute", _new(shipping={"M": {"city": {"S": ["Lisbon"]}}}), INSERT, True),
]


def _criteria(*patterns: dict | str) -> dict:
    return {"Filters": [{"Pattern": p if isinstance(p, str) else json.dumps(p)} for p in patterns]}


def _keeps(pattern: dict, record: dict) -> bool:
    return matches(validate_filter_criteria(_criteria(pattern)), record)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_operator(case: Case) -> None:
    assert _keeps(case.pattern, case.record) is case.expected


def test_matching_does_not_change_the_record() -> None:
    record = copy.deepcopy(MODIFY)
    for case in CASES:
        _keeps(case.pattern, record)
    assert record == MODIFY


# --- FilterCriteria: filters are ORed --------------------------------------------------------------------------

def test_no_filters_keep_every_record() -> None:
    for criteria in (None, {}, {"Filters": []}, {"Filters": None}):
        patterns = validate_filter_criteria(criteria)
        assert patterns == []
        assert all(matches(patterns, record) for record in (INSERT, MODIFY, REMOVE, TTL_REMOVE))


def test_filters_are_ored() -> None:
    patterns = validate_filter_criteria(_criteria(
        {"eventName": ["INSERT"]},
        {"dynamodb": {"NewImage": {"status": {"S": ["shipped"]}}, "OldImage": {"status": {"S": ["pending"]}}}},
    ))
    assert [matches(patterns, r) for r in (INSERT, MODIFY, REMOVE, TTL_REMOVE)] == [True, True, False, False]


def test_five_filters_any_of_which_keeps_a_record() -> None:
    names = ["customer#1", "customer#2", "customer#3", "customer#4", "customer#7"]
    patterns = validate_filter_criteria(_criteria(*[{"dynamodb": {"Keys": {"pk": {"S": [n]}}}} for n in names]))
    assert len(patterns) == MAX_FILTERS
    assert matches(patterns, CUSTOMER)
    assert not matches(patterns, INSERT)


def test_compiled_pattern_keeps_the_source() -> None:
    source = '{ "eventName" : [ "INSERT" ] }'
    (pattern,) = validate_filter_criteria({"Filters": [{"Pattern": source}]})
    assert isinstance(pattern, FilterPattern) and pattern.source == source
    assert pattern.matches(INSERT) and not pattern.matches(REMOVE)


def test_a_pattern_of_4096_characters_is_allowed() -> None:
    source = json.dumps({"eventName": ["INSERT"], "dynamodb": {"Keys": {"pk": {"S": [""]}}}})
    source = source[:-4] + " " * (4096 - len(source)) + source[-4:]
    assert len(source) == 4096
    assert validate_filter_criteria({"Filters": [{"Pattern": source}]})


# --- what Lambda refuses ---------------------------------------------------------------------------------------

INVALID_PATTERNS = {
    "not JSON": '{"eventName": ["INSERT"]',
    "a bare string": "single-string",
    "broken JSON": '[{"eventName": ["INSERT"=123}]',
    "empty": "",
    "a JSON array": '[{"eventName": ["INSERT"]}]',
    "a JSON string": '"INSERT"',
    "a JSON number": "1",
    "NaN": '{"dynamodb": {"SizeBytes": [NaN]}}',
    "an empty object": "{}",
    "a nested empty object": {"dynamodb": {}},
    "a leaf that is not an array": {"eventName": "INSERT"},
    "a leaf that is a number": {"dynamodb": {"SizeBytes": 120}},
    "a leaf that is null": {"eventName": None},
    "an empty array": {"eventName": []},
    "an array inside the value list": {"eventName": [["INSERT"]]},
    "an unknown operator": {"eventName": [{"contains": "INS"}]},
    "wildcard": {"eventName": [{"wildcard": "IN*"}]},
    "cidr": {"sourceIp": [{"cidr": "10.0.0.0/24"}]},
    "an empty match expression": {"eventName": [{}]},
    "two operators in one expression": {"eventName": [{"prefix": "IN", "suffix": "RT"}]},
    "prefix a number": {"eventName": [{"prefix": 1}]},
    "prefix a list": {"eventName": [{"prefix": ["IN"]}]},
    "prefix an unknown object": {"eventName": [{"prefix": {"ignore-case": "in"}}]},
    "suffix null": {"eventName": [{"suffix": None}]},
    "equals-ignore-case a list": {"eventName": [{"equals-ignore-case": ["insert"]}]},
    "exists a string": {"eventName": [{"exists": "true"}]},
    "exists null": {"eventName": [{"exists": None}]},
    "numeric a string operand": _new(amount={"N": [{"numeric": [">", "100"]}]}),
    "numeric a boolean operand": {"dynamodb": {"SizeBytes": [{"numeric": [">", True]}]}},
    "numeric an unknown operator": {"dynamodb": {"SizeBytes": [{"numeric": ["!=", 1]}]}},
    "numeric upper bound first": {"dynamodb": {"SizeBytes": [{"numeric": ["<", 5, ">", 0]}]}},
    "numeric two lower bounds": {"dynamodb": {"SizeBytes": [{"numeric": [">", 0, ">=", 5]}]}},
    "numeric = in a range": {"dynamodb": {"SizeBytes": [{"numeric": ["=", 0, "<", 5]}]}},
    "numeric three terms": {"dynamodb": {"SizeBytes": [{"numeric": [">", 0, "<", 5, "<", 6]}]}},
    "numeric a missing operand": {"dynamodb": {"SizeBytes": [{"numeric": [">"]}]}},
    "numeric empty": {"dynamodb": {"SizeBytes": [{"numeric": []}]}},
    "numeric not a list": {"dynamodb": {"SizeBytes": [{"numeric": 5}]}},
    "numeric bottom above top": {"dynamodb": {"SizeBytes": [{"numeric": [">", 10, "<", 5]}]}},
    "numeric bottom equal to top": {"dynamodb": {"SizeBytes": [{"numeric": [">=", 5, "<=", 5]}]}},
    "numeric beyond 5e9": {"dynamodb": {"SizeBytes": [{"numeric": [">", 6e9]}]}},
    "anything-but mixed strings and numbers": {"eventName": [{"anything-but": ["INSERT", 1]}]},
    "anything-but an empty list": {"eventName": [{"anything-but": []}]},
    "anything-but a boolean": {"eventName": [{"anything-but": True}]},
    "anything-but null": {"eventName": [{"anything-but": None}]},
    "anything-but a list with null": {"eventName": [{"anything-but": ["INSERT", None]}]},
    "anything-but an empty prefix": {"eventName": [{"anything-but": {"prefix": ""}}]},
    "anything-but a numeric prefix": {"eventName": [{"anything-but": {"prefix": 1}}]},
    "anything-but a list of prefixes": {"eventName": [{"anything-but": {"prefix": ["IN"]}}]},
    "anything-but wildcard": {"eventName": [{"anything-but": {"wildcard": "IN*"}}]},
    "anything-but numeric": {"dynamodb": {"SizeBytes": [{"anything-but": {"numeric": [">", 1]}}]}},
    "anything-but ignoring case of a number": {"eventName": [{"anything-but": {"equals-ignore-case": 1}}]},
    "anything-but a number beyond 5e9": {"dynamodb": {"SizeBytes": [{"anything-but": 6e9}]}},
    "$or with one branch": {"$or": [{"eventName": ["INSERT"]}]},
    "$or not an array": {"$or": {"eventName": ["INSERT"]}},
    "$or with a non-object": {"$or": [{"eventName": ["INSERT"]}, ["MODIFY"]]},
    "$or with an empty branch": {"$or": [{"eventName": ["INSERT"]}, {}]},
    "$or with an invalid branch": {"$or": [{"eventName": ["INSERT"]}, {"eventName": "MODIFY"}]},
    "an operator name as a field inside $or": {"$or": [{"numeric": [1]}, {"prefix": ["a"]}]},
}


@pytest.mark.parametrize("pattern", INVALID_PATTERNS.values(), ids=INVALID_PATTERNS.keys())
def test_invalid_pattern(pattern: dict | str) -> None:
    with pytest.raises(FilterCriteriaError) as raised:
        validate_filter_criteria(_criteria(pattern))
    error = raised.value
    assert isinstance(error, ValueError)
    assert (error.message, error.code) == (INVALID_PATTERN, "InvalidParameterValueException")
    assert error.reason and str(error) == f"{INVALID_PATTERN} Reason: {error.reason}"


def test_an_invalid_pattern_is_named_in_the_reason() -> None:
    with pytest.raises(FilterCriteriaError, match=r"filter 2: Bottom must be less than top"):
        validate_filter_criteria(_criteria({"eventName": ["INSERT"]},
                                           {"dynamodb": {"SizeBytes": [{"numeric": [">", 10, "<", 5]}]}}))
    with pytest.raises(FilterCriteriaError, match="filter 2: Filter is not an object"):
        validate_filter_criteria(_criteria({"eventName": ["INSERT"]}, "[]"))


def test_an_operator_name_outside_or_is_a_field_name() -> None:
    assert _keeps({"dynamodb": {"NewImage": {"prefix": {"S": ["x"]}}}},
                  _record("INSERT", ORDER_KEYS, new={**ORDER_KEYS, "prefix": {"S": "x"}}))


@pytest.mark.parametrize("criteria", [
    "{}",
    ["Filters"],
    {"Filters": {"Pattern": '{"eventName": ["INSERT"]}'}},
    {"Filters": ['{"eventName": ["INSERT"]}']},
    {"Filters": [{}]},
    {"Filters": [{"pattern": '{"eventName": ["INSERT"]}'}]},
    {"Filters": [{"Pattern": {"eventName": ["INSERT"]}}]},
    {"Filters": [{"Pattern": None}]},
], ids=["a string", "a list", "Filters an object", "a filter a string", "a filter without Pattern",
        "pattern in lower case", "Pattern an object", "Pattern null"])
def test_invalid_filter_criteria_shape(criteria: Any) -> None:
    with pytest.raises(FilterCriteriaError):
        validate_filter_criteria(criteria)


def test_more_than_five_filters() -> None:
    with pytest.raises(FilterCriteriaError, match="at most 5 filters") as raised:
        validate_filter_criteria(_criteria(*[{"eventName": [name]} for name in
                                             ("INSERT", "MODIFY", "REMOVE", "A", "B", "C")]))
    assert raised.value.code == "InvalidParameterValueException"


def test_a_pattern_over_4096_characters() -> None:
    source = json.dumps({"eventName": ["INSERT"], "dynamodb": {"Keys": {"pk": {"S": ["x" * 4096]}}}})
    with pytest.raises(FilterCriteriaError) as raised:
        validate_filter_criteria(_criteria({"eventName": ["INSERT"]}, source))
    assert raised.value.code == "ValidationException"
    assert raised.value.message.startswith("1 validation error detected: Value at "
                                           "'filterCriteria.filters.2.member.pattern' failed to satisfy constraint")
