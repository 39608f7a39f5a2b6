"""SNS filter policies (emulator/event_patterns/sns_policies.py): SNS's refusals in its recorded words, its limits,
and what a policy matches in message attributes and message bodies.

Source of the refusals: LocalStack's AWS-validated tests/aws/services/sns/test_sns_filter_policy.py and its
snapshot (github.com/localstack/localstack), TestSNSFilterPolicyConditions (Subscribe with Attributes: "Invalid
parameter: Attributes Reason: FilterPolicy: ...") and TestSNSFilterPolicyCrud (SetSubscriptionAttributes:
"Invalid parameter: FilterPolicy: ..."); each row names its snapshot key. The matching rows follow the same file's
TestSNSFilterPolicyAttributes / TestSNSFilterPolicyBody deliveries and the Amazon SNS Developer Guide's examples.
"""

from __future__ import annotations

import json

import pytest

from eddy.emulator.event_patterns.sns_policies import SUBSCRIBE, FilterPolicy, InvalidFilterPolicy, combinations

R = "Invalid parameter: Attributes Reason: FilterPolicy: "


def at(policy: dict, column: int) -> str:
    return f'\n at [Source: (String)"{json.dumps(policy, separators=(",", ":"))}"; line: 1, column: {column}]'


RECORDED = [  # (snapshot key, policy, AWS's message when subscribing with it)
    ("error-condition-list", {"key": [["value"]]}, 10, "Match value must be String, number, true, false, or null"),
    ("error-condition-operator", {"key": [{"wrong-operator": True}]}, 31, "Unrecognized match type wrong-operator"),
    ("error-condition-two-operators", {"key": [{"suffix": "value", "prefix": "value2"}]}, 37,
     "Only one key allowed in match expression"),
    ("error-condition-empty-array", {"key": []}, 10, "Empty arrays are not allowed"),
    ("error-condition-is-numeric", {"key": [{"suffix": 100}]}, 22, "suffix match pattern must be a string"),
    ("error-condition-is-none", {"key": [{"suffix": None}]}, 23, "suffix match pattern must be a string"),
    ("error-condition-is-not-list-and-operator", {"key": {"suffix": "value"}}, 19,
     '"suffix" must be an object or an array'),
    ("error-condition-empty-list", {"key": [{"suffix": []}]}, 20, "suffix match pattern must be a string"),
    ("error-condition-list-wrong-type", {"key": [{"suffix": ["test", "test2"]}]}, 20,
     "suffix match pattern must be a string"),
    ("error-condition-is-not-list-two-ops", {"key": {"suffix": "value", "prefix": "value"}}, 19,
     '"suffix" must be an object or an array'),
    ("error-condition-is-not-list-and-no-operator", {"key": {"not-an-operator": "value"}}, 28,
     '"not-an-operator" must be an object or an array'),
    ("error-condition-bad-type", {"key": [{"cidr": ["bad-filter"]}]}, 18, "prefix match pattern must be a string"),
    ("error-condition-bad-cidr-str", {"key": [{"cidr": "bad-filter"}]}, None, "Malformed CIDR, one '/' required"),
    ("error-condition-bad-cidr-str-slash", {"key": [{"cidr": "bad-filter/64"}]}, None,
     "Nonstandard IP address: bad-filter"),
    ("error-condition-bad-cidr-str-slash-2", {"key": [{"cidr": "bad-/64filter"}]}, None,
     "Malformed CIDR, mask bits must be an integer"),
    ("error-condition-bad-cidr-v4", {"key": [{"cidr": "xx.11.xx/8"}]}, None, "Nonstandard IP address: xx.11.xx"),
    ("error-condition-bad-cidr-v6", {"key": [{"cidr": "xxxx:db8:1234:1a00::/64"}]}, None,
     "Nonstandard IP address: xxxx:db8:1234:1a00::"),
    ("error-numeric-empty", {"key": [{"numeric": []}]}, 22, "Invalid member in numeric match: ]"),
    ("error-numeric-wrong-operator", {"key": [{"numeric": ["operator"]}]}, 32,
     "Unrecognized numeric range operator: operator"),
    ("error-numeric-operator-order", {"key": [{"numeric": [1, "<="]}]}, 22, "Invalid member in numeric match: 1"),
    ("error-numeric-type", {"key": [{"numeric": ["=", "000"]}]}, 26, "Value of equals must be numeric"),
    ("error-numeric-missing-value", {"key": [{"numeric": [">="]}]}, 26, "Value of >= must be numeric"),
    ("error-numeric-wrong-range-order", {"key": [{"numeric": ["<", 100, ">", 10]}]}, 30,
     "Too many elements in numeric expression"),
    ("error-numeric-wrong-range-operators", {"key": [{"numeric": [">=", 1, ">", 2]}]}, 31,
     "Bad numeric range operator: >"),
    ("error-numeric-wrong-value-order", {"key": [{"numeric": [">", 3, "<", 1]}]}, 33, "Bottom must be less than top"),
    ("error-numeric-missing-range-value", {"key": [{"numeric": [">", 20, "<="]}]}, 33, "Value of <= must be numeric"),
    ("error-numeric-missing-range-operator", {"key": [{"numeric": [">", 20, 30]}]}, 30,
     "Bad value in numeric range: 30"),
    ("error-numeric-wrong-second-range-operator", {"key": [{"numeric": [">", 20, "test"]}]}, 34,
     "Bad numeric range operator: test"),
    ("error-numeric-wrong-range-value-1-type", {"key": [{"numeric": [">", "20", "<", "30"]}]}, 26,
     "Value of > must be numeric"),
    ("error-numeric-wrong-range-value-2-type", {"key": [{"numeric": [">", 20, "<", "30"]}]}, 33,
     "Value of < must be numeric"),
    ("error-numeric-too-many-range", {"key": [{"numeric": [">", 20, "<", 30, "<", 50]}]}, 36,
     "Too many terms in numeric range expression"),
    ("error-condition-none", {"key": [{"exists": None}]}, 23, "exists match pattern must be either true or false."),
    ("error-condition-string", {"key": [{"exists": "no"}]}, 20, "exists match pattern must be either true or false."),
    ("error-condition-wrong-operator", {"key": [{"anything-but": {"wrong-operator": None}}]}, 47,
     "Unsupported anything-but pattern: wrong-operator"),
    ("error-condition-anything-but-suffix", {"key": [{"anything-but": {"suffix": "test"}}]}, 36,
     "Unsupported anything-but pattern: suffix"),
    ("error-condition-anything-but-exists", {"key": [{"anything-but": {"exists": False}}]}, 40,
     "Unsupported anything-but pattern: exists"),
    ("error-condition-anything-but-prefix-wrong-type", {"key": [{"anything-but": {"prefix": False}}]}, 40,
     "prefix match pattern must be a string"),
    ("error-complexity-in-one-condition", {"key": [f"value{i}" for i in range(151)]}, None,
     "Filter policy is too complex"),
    ("error-complexity-in-two-conditions", {"key1": [f"value{i}" for i in range(100)],
                                            "key2": [f"value{i}" for i in range(51)]}, None,
     "Filter policy is too complex"),
    ("error-complexity-too-many-fields", {f"key{n}": [f"value{n}"] for n in range(1, 7)}, None,
     "Filter policy can not have more than 5 keys"),
    ("error-complexity-or-flat", {  # (4 * 6) + (4 * 4 * 4) + (4 * 4 * 4) = 152
        "source": ["aws.cloudwatch", "aws.events", "aws.test", "aws.test2"],
        "$or": [{"metricName": ["CPUUtilization", "ReadLatency", "t1", "t2", "t3", "t4"]},
                {"metricType": ["MetricType", "TestType", "TestType2", "TestType3"],
                 "$or": [{"metricId": [1234, 4321, 5678, 9012]}, {"spaceId": [1, 2, 3, 4]}]}]}, None,
     "Filter policy is too complex"),
]


@pytest.mark.parametrize(("key", "policy", "column", "reason"), RECORDED, ids=[row[0] for row in RECORDED])
def test_subscribe_refuses_as_sns_recorded(key, policy, column, reason):
    with pytest.raises(InvalidFilterPolicy) as refused:
        FilterPolicy.compile(json.dumps(policy), "MessageAttributes", SUBSCRIBE)
    assert refused.value.message == R + reason + (at(policy, column) if column else "")


NESTED = {"object": {"key": [{"prefix": "auto-"}]}}
TOO_DEEP = {  # the Developer Guide's example: 3 x 4 x 2 x 3 x 1 x 3 = 216
    "key_a": {"key_b": {"key_c": ["value_one", "value_two", "value_three", "value_four"]}},
    "key_d": {"key_e": ["value_one", "value_two", "value_three"]},
    "key_f": ["value_one", "value_two", "value_three"]}
OR_NESTED = {  # (3 * 4 * 2) + (3 * 4 * 6) + (2 * 4 * 2) + (2 * 4 * 6) = 160
    "$or": [{"metricName": ["CPUUtilization", "ReadLatency", "TestValue"]}, {"namespace": ["AWS/EC2", "AWS/ES"]}],
    "detail": {"scope": ["Service", "Test"],
               "$or": [{"source": ["aws.cloudwatch"]}, {"type": ["CloudWatch Alarm State Change", "a", "b"]}]}}
AT_THE_LIMIT = {  # (3 * 6) + (3 * 4 * 4) + (3 * 4 * 7) = 150: accepted
    "source": ["aws.cloudwatch", "aws.events", "aws.test"],
    "$or": [{"metricName": ["CPUUtilization", "ReadLatency", "TestVal", "TestVal2", "TestVal3", "TestVal4"]},
            {"metricType": ["MetricType", "TestType", "TestType2", "TestType3"],
             "$or": [{"metricId": [1234, 4321, 5678, 9012]}, {"spaceId": [1, 2, 3, 4, 5, 6, 7]}]}]}


@pytest.mark.parametrize(("policy", "scope", "message"), [
    # TestSNSFilterPolicyCrud (SetSubscriptionAttributes)
    (NESTED, "MessageAttributes",
     "Invalid parameter: Filter policy scope MessageAttributes does not support nested filter policy"),
    (TOO_DEEP, "MessageBody", "Invalid parameter: FilterPolicy: Filter policy is too complex"),
    ({f"key_{n}": [f"value_{n}"] for n in "abcdef"}, "MessageBody",
     "Invalid parameter: FilterPolicy: Filter policy can not have more than 5 keys"),
    ({"key_a": "value_one"}, "MessageBody", 'Invalid parameter: FilterPolicy: "key_a" must be an object or an array'
                                            '\n at [Source: (String)"{"key_a":"value_one"}"; line: 1, column: 11]'),
    (OR_NESTED, "MessageBody", "Invalid parameter: FilterPolicy: Filter policy is too complex"),
    ({"attr": ["x"]}, "RandomValue", "Invalid parameter: FilterPolicyScope: Invalid value [RandomValue]. Please use "
                                     "either MessageBody or MessageAttributes"),
])
def test_set_subscription_attributes_refuses_as_sns_recorded(policy, scope, message):
    with pytest.raises(InvalidFilterPolicy) as refused:
        FilterPolicy.compile(json.dumps(policy), scope)
    assert refused.value.message == message


def test_what_sns_accepts():
    assert combinations(AT_THE_LIMIT) == 150 and combinations(TOO_DEEP) == 216 and combinations(OR_NESTED) == 160
    for policy, scope in ((AT_THE_LIMIT, "MessageAttributes"), (NESTED, "MessageBody"),
                          ({"key": [{"anything-but": {"prefix": "test-"}}]}, None),
                          ({"key": [{"anything-but": ["test", "test2"]}]}, None), ({"key": [{"anything-but": "t"}]}, None)):
        assert FilterPolicy.compile(json.dumps(policy), scope).scope == scope or "MessageAttributes"


def attributes(**values: tuple[str, str]) -> dict:
    return {name: {"Type": kind, "Value": value} for name, (kind, value) in values.items()}


@pytest.mark.parametrize(("policy", "message_attributes", "matches"), [
    # test_filter_policy: 99 is delivered, 111 is not; [null, anything-but] does not take a message without it
    ({"attr1": [{"numeric": [">", 0, "<=", 100]}]}, attributes(attr1=("Number", "99")), True),
    ({"attr1": [{"numeric": [">", 0, "<=", 100]}]}, attributes(attr1=("Number", "111")), False),
    ({"attr1": [None, {"anything-but": "whatever"}]}, {}, False),
    # test_exists_filter_policy
    ({"store": [{"exists": True}]}, attributes(store=("Number", "99"), **{"def": ("Number", "99")}), True),
    ({"store": [{"exists": True}]}, attributes(attr1=("Number", "111")), False),
    ({"store": [{"exists": False}]}, attributes(**{"def": ("Number", "99")}), True),
    ({"store": [{"exists": False}]}, attributes(store=("Number", "99")), False),
    # test_exists_filter_policy_attributes_array: a String.Array matches by any element
    ({"store": ["value1"]}, attributes(store=("String", "value1")), True),
    ({"store": ["value1"]}, attributes(store=("String.Array", json.dumps(["value1", "value2"]))), True),
    ({"store": ["value1"]}, attributes(store=("String.Array", json.dumps(["value2", "value3"]))), False),
    # the Developer Guide: a number matches as a number, a string as a string; Binary never matches
    ({"price_usd": [{"numeric": ["=", 301.5]}]}, attributes(price_usd=("Number", "3.015e2")), True),
    ({"price": [{"anything-but": [100, 500]}]}, attributes(price=("Number.Array", "[100, 50]")), True),  # 50
    ({"price": [{"anything-but": [100, 500]}]}, attributes(price=("Number", "101")), True),
    ({"price": [100]}, attributes(price=("String", "100")), False),
    ({"customer_interests": [{"prefix": "bas"}]}, attributes(customer_interests=("String", "basketball")), True),
    ({"source_ip": [{"cidr": "10.0.0.0/24"}]}, attributes(source_ip=("String", "10.0.0.8")), True),
    ({"blob": [{"exists": True}]}, attributes(blob=("Binary", b"\x00")), False),
])
def test_message_attributes(policy, message_attributes, matches):
    assert FilterPolicy.compile(json.dumps(policy), None).matches(message_attributes, "any message") is matches


@pytest.mark.parametrize(("policy", "body", "matches"), [
    # test_filter_policy_on_message_body
    ({"object": {"key": [{"prefix": "auto-"}, "hardcodedvalue"], "nested_key": [{"exists": False}]},
      "test": [{"exists": False}]}, {"object": {"key": "auto-test"}}, True),
    ({"object": {"key": [{"prefix": "auto-"}, "hardcodedvalue"], "nested_key": [{"exists": False}]},
      "test": [{"exists": False}]}, {"object": {"key": "hardcodedvalue", "nested_key": 1}}, False),
    ({"object": {"key": ["x"]}}, "not JSON", False),
    ({"object": {"key": ["x"]}}, json.dumps("a JSON string, not an object"), False),
    # test_filter_policy_on_message_body_dot_attribute
    ({"object.nested": ["string.value"]}, {"object": {"nested": "string.value"}}, True),
    ({"object.nested.test": ["string.value"]}, {"object": {"nested": {"test": "string.value"}}}, True),
    # test_filter_policy_on_message_body_array_attributes
    ({"headers": {"route-to": ["queue1"]}}, {"headers": {"route-to": ["queue1", "queue2"]}}, True),
    ({"headers": {"route-to": ["queue1"]}}, {"headers": {"route-to": ["queue3"]}}, False),
    # test_filter_policy_on_message_body_array_of_object_attributes
    ({"Records": {"s3": {"object": {"key": [{"prefix": "auto-"}]}}, "eventName": [{"prefix": "ObjectCreated:"}]}},
     {"Records": [{"s3": {"object": {"key": "auto-file"}}, "eventName": "ObjectCreated:Put"}]}, True),
    ({"Records": {"s3": {"object": {"key": [{"prefix": "auto-"}]}}, "eventName": [{"prefix": "ObjectCreated:"}]}},
     {"Records": [{"s3": {"object": {"key": "auto-file"}}, "eventName": "ObjectRemoved:Delete"}]}, False),
    # test_filter_policy_on_message_body_or_attribute
    ({"$or": [{"metricName": ["CPUUtilization"]}, {"namespace": ["AWS/EC2"]}],
      "detail": {"scope": ["Service"], "$or": [{"source": ["aws.cloudwatch"]}, {"type": ["Alarm"]}]}},
     {"namespace": "AWS/EC2", "detail": {"scope": "Service", "type": "Alarm"}}, True),
    ({"$or": [{"metricName": ["CPUUtilization"]}, {"namespace": ["AWS/EC2"]}],
      "detail": {"scope": ["Service"], "$or": [{"source": ["aws.cloudwatch"]}, {"type": ["Alarm"]}]}},
     {"namespace": "AWS/EC2", "detail": {"scope": "Other", "type": "Alarm"}}, False),
    # test_filter_policy_empty_array_payload
    ({"detail": {"eventVersion": [""]}}, {"resources": [], "detail": {"eventVersion": ""}}, True),
    # test_filter_policy_ip_address_condition
    ({"detail": {"$or": [{"sourceIPAddress": [{"cidr": "10.0.0.0/24"}]},
                         {"sourceIPAddressV6": [{"cidr": "2001:db8:1234:1a00::/64"}]}]}},
     {"detail": {"sourceIPAddressV6": "2001:0db8:1234:1a00:0000:0000:0000:0000"}}, True),
    ({"detail": {"$or": [{"sourceIPAddress": [{"cidr": "10.0.0.0/24"}]},
                         {"sourceIPAddressV6": [{"cidr": "2001:db8:1234:1a00::/64"}]}]}},
     {"detail": {"sourceIPAddress": "10.0.1.1"}}, False),
])
def test_message_body(policy, body, matches):
    message = body if isinstance(body, str) else json.dumps(body)
    assert FilterPolicy.compile(json.dumps(policy), "MessageBody").matches(None, message) is matches
