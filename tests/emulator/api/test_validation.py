"""Requests are validated as AWS validates them (botocore's own service model), with AWS's messages; unknown
operations and unreadable bodies get AWS's errors; nothing answers with HTML, a traceback or a Python name."""

from __future__ import annotations

import json

import pytest
import requests
from botocore.exceptions import ClientError

from eddy.emulator.api.validation import validate
from eddy.emulator.errors import SerializationException, UnknownOperationException, ValidationException

SIGNED = {"Authorization": "AWS4-HMAC-SHA256 Credential=testing/20250101/us-east-1/dynamodb/aws4_request, "
                           "SignedHeaders=host, Signature=0", "Content-Type": "application/x-amz-json-1.0"}
KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}


def post(url: str, target: str | None, body: bytes) -> tuple[int, dict]:
    headers = dict(SIGNED, **({"X-Amz-Target": target} if target else {}))
    response = requests.post(url, data=body, headers=headers, timeout=30)
    return response.status_code, response.json()


def refused(call) -> tuple[str, str]:
    with pytest.raises(ClientError) as error:
        call()
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


@pytest.mark.parametrize("target, body, code", [
    (None, b"{}", "UnknownOperationException"),
    ("DynamoDB_20120810.NoSuchThing", b"{}", "UnknownOperationException"),
    ("DynamoDBStreams_20120810.NoSuchThing", b"{}", "UnknownOperationException"),
    ("Foo.Bar", b"{}", "UnknownOperationException"),
    ("DynamoDB_20120810.ListTables", b"{not json", "SerializationException"),
    ("DynamoDB_20120810.ListTables", b"[1, 2]", "SerializationException"),
    ("DynamoDB_20120810.PutItem", b'{"TableName": "orders", "Item": 5}', "SerializationException"),
    ("DynamoDB_20120810.Scan", b'{"TableName": "orders", "Limit": 1.5}', "SerializationException"),
    ("DynamoDBStreams_20120810.GetRecords", json.dumps({"ShardIterator": "\ud800"}).encode(), "SerializationException"),
])
def test_the_former_500s_and_python_names_are_aws_errors(server_url, target, body, code):
    status, answer = post(server_url, target, body)
    assert status == 400
    assert answer["__type"] == f"com.amazonaws.dynamodb.v20120810#{code}"
    assert "Error:" not in answer["message"] and "Traceback" not in answer["message"]


def test_a_missing_member_a_bad_enum_and_a_short_name_are_listed_as_aws_lists_them(door):
    dynamodb = door.client("dynamodb", validate=False)
    assert refused(lambda: dynamodb.put_item(Item={"pk": {"S": "a"}})) == (
        "ValidationException", "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: "
                               "Member must not be null")
    assert refused(lambda: dynamodb.create_table(TableName="a", **KEY)) == (
        "ValidationException", "1 validation error detected: Value 'a' at 'tableName' failed to satisfy constraint: "
                               "Member must have length greater than or equal to 3")
    code, message = refused(lambda: dynamodb.scan(TableName="bad name!", Limit=0))
    assert code == "ValidationException" and message.startswith("2 validation errors detected: ")
    assert ("Value 'bad name!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression "
            "pattern: [a-zA-Z0-9_.-]+") in message
    assert "Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1" \
        in message
    # an enum is moto's to check, in AWS's words
    assert refused(lambda: dynamodb.create_table(
        TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASHY"}], BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}]))[1] == (
        "1 validation error detected: Value 'HASHY' at 'keySchema.1.member.keyType' failed to satisfy constraint: "
        "Member must satisfy enum value set: [HASH, RANGE]")
    assert dynamodb.list_tables()["TableNames"] == []  # nothing reached moto


def test_streams_and_lambda_requests_are_validated_too(door):
    streams = door.client("dynamodbstreams", validate=False)
    assert refused(lambda: streams.list_streams(TableName="ab"))[1] == (
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have "
        "length greater than or equal to 3")
    lam = door.client("lambda", validate=False)
    code, message = refused(lambda: lam.create_event_source_mapping(
        FunctionName="f", EventSourceArn="arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/x", BatchSize=0))
    assert code == "ValidationException"
    assert "Value '0' at 'batchSize' failed to satisfy constraint: Member must have value greater than or equal to 1" \
        in message


def test_an_unknown_rest_path_is_404_not_moto(server_url):
    response = requests.post(server_url + "/2015-03-31/invocations", data=b"{}", headers=SIGNED, timeout=30)
    assert response.status_code == 404 and response.headers["x-amzn-ErrorType"] == "UnknownOperationException"
    assert "is not an operation Eddy serves" in response.json()["message"]


def test_the_validator_itself():
    with pytest.raises(UnknownOperationException):
        validate("dynamodb", "Nope", {})
    with pytest.raises(SerializationException, match="STRING_VALUE cannot be converted to Integer"):
        validate("dynamodb", "Scan", {"TableName": "orders", "Limit": "10"})
    with pytest.raises(ValidationException, match="Member must have value greater than or equal to 1"):
        validate("dynamodb", "Scan", {"TableName": "orders", "Limit": 0})
    validate("dynamodb", "Scan", {"TableName": "orders", "Limit": 10, "Unknown": "ignored"})
    validate("dynamodb", "GetItem", {"TableName": "arn:aws:dynamodb:us-east-1:123456789012:table/orders",
                                     "Key": {"pk": {"S": "a"}}})


ITEMS = [
    {"pk": {"S": "a"}, "n": {"N": "1"}, "t": {"BOOL": True}, "z": {"NULL": True}},
    {"pk": {"S": "é\u00e9"}, "m": {"M": {"x": {"L": [{"S": "a"}, {"N": "2"}, {"M": {}}]}, "y": {"SS": ["a", "b"]}}}},
    {"pk": {"S": "a"}, "ns": {"NS": ["1", "2"]}, "b": {"B": "AAE="}, "bs": {"BS": ["AAE=", "AA=="]}},
    {"pk": {"S": "\ud800"}},                                          # a lone surrogate
    {"pk": {"S": 5}}, {"pk": {"N": 1.5}}, {"pk": {"BOOL": "yes"}}, {"pk": {"NULL": 1}},
    {"pk": {"SS": "a"}}, {"pk": {"SS": ["a", 1]}}, {"pk": {"L": {"S": "a"}}}, {"pk": {"M": ["a"]}},
    {"pk": {"M": {"x" * 65536: {"S": "a"}}}}, {"pk": {"M": {"\ud800": {"S": "a"}}}},
    {"pk": {"B": "not base64!"}}, {"pk": {"L": [None, {"S": "a"}]}}, {"pk": {"S": None, "N": "1"}},
    {"pk": {"Q": "unknown member"}}, {"pk": "text"}, {"pk": [1]}, {"pk": {}}, {":v" * 40000: {"S": "a"}},
    {"pk": {"N": 5}}, {"pk": {"N": "\ud800"}}, {"pk": {"S": "a"}, "q": {"Q": "x"}}, {"pk": {"S": None}},
    {"pk": {"S": "a"}, "v": None}, {"pk": {"N": ["1"]}}, {"pk": {"S": {"S": "a"}}},
]


@pytest.mark.parametrize("operation, member", [("PutItem", "Item"), ("DeleteItem", "Key"),
                                               ("DeleteItem", "ExpressionAttributeValues"),
                                               ("BatchWriteItem", "PutRequest"), ("BatchWriteItem", "with others")])
@pytest.mark.parametrize("item", ITEMS)
def test_the_attribute_value_shortcut_answers_as_the_whole_walk(operation: str, member: str, item: dict,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Items skip the generic walk when it could find nothing: whatever it would say, validate() still says."""
    from eddy.emulator.api.dynamodb import plain_attribute_values

    params = {"TableName": "orders", "Key": {"pk": {"S": "a"}}, member: item}
    if operation == "BatchWriteItem":  # a put of the item alone, or beside other members (the whole walk's)
        request = {"PutRequest": {"Item": item}} if member == "PutRequest" else {
            "PutRequest": {"Item": item, "Unknown": 1}, "DeleteRequest": None if item.get("n") else {"Key": item}}
        params = {"RequestItems": {"orders": [request, {"PutRequest": {"Item": item}}]}}

    def outcome() -> tuple[str, str]:
        try:
            validate("dynamodb", operation, params)
        except (SerializationException, ValidationException) as error:
            return type(error).__name__, str(error)
        return "valid", ""

    with_shortcut = outcome()
    monkeypatch.setattr(plain_attribute_values, "plain", lambda value: False)
    assert with_shortcut == outcome()


def test_what_the_model_leaves_optional_and_dynamodb_still_requires(door):
    """CreateTable's KeySchema and AttributeDefinitions (optional in botocore's model today, which moto failed on), a
    TransactWriteItems item without an action, a timestamp no date can be read from: AWS's errors, not a fallback."""
    dynamodb = door.client("dynamodb", validate=False)
    billing = {"BillingMode": "PAY_PER_REQUEST"}
    assert refused(lambda: dynamodb.create_table(TableName="orders", **billing)) == ("ValidationException", (
        "2 validation errors detected: Value null at 'attributeDefinitions' failed to satisfy constraint: Member must "
        "not be null; Value null at 'keySchema' failed to satisfy constraint: Member must not be null"))
    assert refused(lambda: dynamodb.create_table(TableName="orders", KeySchema=KEY["KeySchema"], **billing)) == (
        "ValidationException", "1 validation error detected: Value null at 'attributeDefinitions' failed to satisfy "
                               "constraint: Member must not be null")
    assert refused(lambda: dynamodb.create_table(TableName="orders", KeySchema=[], AttributeDefinitions=[],
                                                 **billing)) == (
        "ValidationException", "1 validation error detected: Value '[]' at 'keySchema' failed to satisfy constraint: "
                               "Member must have length greater than or equal to 1")
    assert dynamodb.list_tables()["TableNames"] == []  # nothing half-made
    dynamodb.create_table(TableName="orders", **KEY)
    assert refused(lambda: dynamodb.transact_write_items(TransactItems=[{}])) == (
        "ValidationException", "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request")
    assert refused(lambda: dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": "orders", "Item": {"pk": {"S": "a"}}},
         "Delete": {"TableName": "orders", "Key": {"pk": {"S": "a"}}}}])) == (
        "ValidationException", "TransactItems can only contain one of Check, Put, Update or Delete")
    assert refused(lambda: dynamodb.transact_get_items(TransactItems=[{}])) == (
        "ValidationException", "1 validation error detected: Value null at 'transactItems.1.member.get' failed to "
                               "satisfy constraint: Member must not be null")
    assert dynamodb.scan(TableName="orders")["Items"] == []


def test_a_key_schema_aws_refuses_is_refused_before_moto_creates_the_table(door):
    """Key schemas moto created a table for, answered in AWS's words (dynalite's, and a catalogue of DynamoDB's
    messages), in dynalite's order; what moto refuses stays moto's (AWS's words too)."""
    dynamodb = door.client("dynamodb", validate=False)
    both = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}]
    cases = [
        ([{"AttributeName": "pk", "KeyType": "RANGE"}], both[:1],
         "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
        ([{"AttributeName": "sk", "KeyType": "RANGE"}, {"AttributeName": "pk", "KeyType": "HASH"}], both,
         "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
        ([{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "HASH"}], both,
         "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"),
        ([{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}], both[:1],
         "Invalid KeySchema: Some index key attribute have no definition"),
        ([{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}], both[:1] * 2,
         "Both the Hash Key and the Range Key element in the KeySchema have the same name"),
        ([{"AttributeName": "pk", "KeyType": "HASH"}], [{"AttributeName": "pk", "AttributeType": "BOOL"}],
         "1 validation error detected: Value 'BOOL' at 'attributeDefinitions.1.member.attributeType' failed to "
         "satisfy constraint: Member must satisfy enum value set: [B, N, S]"),
        ([{"AttributeName": "sk", "KeyType": "RANGE"}], both[:1],  # an undefined key: moto's answer, AWS's words
         "One or more parameter values were invalid: Some index key attributes are not defined in "
         "AttributeDefinitions. Keys: [sk], AttributeDefinitions: [pk]"),
    ]
    for keys, definitions, message in cases:
        assert refused(lambda: dynamodb.create_table(TableName="orders", KeySchema=keys, AttributeDefinitions=definitions,
                                                     BillingMode="PAY_PER_REQUEST")) == ("ValidationException", message)
    assert dynamodb.list_tables()["TableNames"] == []
    dynamodb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {
        "AttributeName": "sk", "KeyType": "RANGE"}], AttributeDefinitions=both, BillingMode="PAY_PER_REQUEST")
    assert dynamodb.list_tables()["TableNames"] == ["orders"]


@pytest.mark.parametrize("value, token", [
    ("x", "STRING_VALUE"), ("", "STRING_VALUE"), ("1700000000", "STRING_VALUE"), ("2024-01-01T00:00:00Z", "STRING_VALUE"),
    (True, "BOOLEAN_VALUE"), (1e20, "NUMBER_VALUE"), (253402300800, "NUMBER_VALUE")])
def test_a_timestamp_that_is_not_epoch_seconds_of_a_date_is_a_serialization_error(server_url, value, token):
    """AWS's JSON protocol reads a timestamp as a number of seconds: a string, even a date's or a number's, is refused
    in its JSON reader's words (X-Ray's answer in aws-sdk-js-v3#4343; SWF's and CognitoSync's older 'class
    java.lang.String can not be converted to milliseconds since epoch')."""
    status, answer = post(server_url, "DynamoDB_20120810.ListBackups",
                          json.dumps({"TimeRangeLowerBound": value}).encode())
    assert (status, answer["__type"].rsplit("#", 1)[-1], answer["message"]) == (
        400, "SerializationException", f"{token} can not be converted to milliseconds since epoch")
    with pytest.raises(SerializationException, match=f"^{token} can not be converted to milliseconds since epoch$"):
        validate("dynamodb", "ListBackups", {"TimeRangeUpperBound": value})


@pytest.mark.parametrize("value", [1700000000, 1700000000.5, 0])
def test_a_timestamp_as_epoch_seconds_is_read(server_url, value):
    status, answer = post(server_url, "DynamoDB_20120810.ListBackups",
                          json.dumps({"TimeRangeLowerBound": value, "TimeRangeUpperBound": 1900000000}).encode())
    assert (status, answer) == (200, {"BackupSummaries": []})


def test_an_expression_motos_parser_cannot_read_is_a_validation_error_and_writes_nothing(door):
    """moto's Query and conditional writes let its condition parser's ValueError through (its Scan does not)."""
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", **KEY)
    key = {"pk": {"S": "a"}}
    calls = {
        ("Query", "FilterExpression: Incomplete condition x"): lambda: dynamodb.query(
            TableName="orders", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": key["pk"]},
            FilterExpression="x"),
        ("PutItem", "ConditionExpression: Incomplete condition x"): lambda: dynamodb.put_item(
            TableName="orders", Item=key, ConditionExpression="x"),
        ("UpdateItem", "ConditionExpression: Bad comparison a ="): lambda: dynamodb.update_item(
            TableName="orders", Key=key, UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "1"}},
            ConditionExpression="a ="),
        ("TransactWriteItems", "ConditionExpression: Incomplete condition x"): lambda: dynamodb.transact_write_items(
            TransactItems=[{"ConditionCheck": {"TableName": "orders", "Key": key, "ConditionExpression": "x"}},
                           {"Put": {"TableName": "orders", "Item": {"pk": {"S": "b"}}}}]),
    }
    for (operation, message), call in calls.items():
        assert refused(call) == ("ValidationException", f"Invalid {message}"), operation
    assert dynamodb.scan(TableName="orders")["Items"] == []


RANGED = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
          "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                   {"AttributeName": "sk", "AttributeType": "N"}], "BillingMode": "PAY_PER_REQUEST"}


@pytest.mark.parametrize("expression, values, names, message", [
    ("pk = :v AND begins_with(sk, :n)", {":v": {"S": "a"}}, None,
     "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute "
     "value: :n"),
    ("#p = :v", {":v": {"S": "a"}}, None, "Invalid KeyConditionExpression: An expression attribute name used in the "
                                         "document path is not defined; attribute name: #p"),
    ("pk = :v OR sk = :n", {":v": {"S": "a"}, ":n": {"N": "1"}}, None,
     "Invalid operator used in KeyConditionExpression: OR"),
    ("pk = :v AND sk IN (:n)", {":v": {"S": "a"}, ":n": {"N": "1"}}, None,
     "Invalid operator used in KeyConditionExpression: IN"),
    ("pk = :v AND contains(sk, :n)", {":v": {"S": "a"}, ":n": {"N": "1"}}, None,
     "Invalid operator used in KeyConditionExpression: contains"),
    ("#p = :v", {":v": {"SS": ["a"]}}, {"#p": "pk"},
     "One or more parameter values were invalid: Condition parameter type does not match schema type"),
    ("pk = :v AND begins_with(sk, :n)", {":v": {"S": "a"}, ":n": {"N": "1"}}, None,
     "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: "
     "begins_with, operand type: N"),
])
def test_a_key_condition_aws_refuses_is_refused_in_its_words(door, expression, values, names, message):
    """moto's key-condition parser read an undefined value as a string and failed with Python errors on OR, IN or a
    set: these are AWS's answers (dynalite's rules, which follow AWS)."""
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", **RANGED)
    extra = {"ExpressionAttributeNames": names} if names else {}
    assert refused(lambda: dynamodb.query(TableName="orders", KeyConditionExpression=expression,
                                          ExpressionAttributeValues=values, **extra)) == ("ValidationException", message)


def test_undefined_names_and_values_in_filters_and_conditions_are_named(door):
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", **KEY)
    not_defined = "An expression attribute value used in expression is not defined; attribute value: :x"
    assert refused(lambda: dynamodb.scan(TableName="orders", FilterExpression="a = :x")) == (
        "ValidationException", f"Invalid FilterExpression: {not_defined}")
    assert refused(lambda: dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}},
                                             ConditionExpression="#n = :x", ExpressionAttributeValues={
                                                 ":x": {"S": "1"}})) == (
        "ValidationException", "Invalid ConditionExpression: An expression attribute name used in the document path "
                               "is not defined; attribute name: #n")
    assert dynamodb.scan(TableName="orders")["Items"] == []


def test_projections_updates_and_between_moto_failed_on(door):
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", **RANGED)
    key = {"pk": {"S": "a"}, "sk": {"N": "1"}}
    dynamodb.put_item(TableName="orders", Item=key)
    assert refused(lambda: dynamodb.get_item(TableName="orders", Key=key, ProjectionExpression="")) == (
        "ValidationException", "Invalid ProjectionExpression: The expression can not be empty;")
    assert refused(lambda: dynamodb.batch_get_item(RequestItems={"orders": {
        "Keys": [key], "ProjectionExpression": "pk,,sk"}})) == (
        "ValidationException", 'Invalid ProjectionExpression: Syntax error; token: ",", near: ",,sk"')  # dynalite's a,,b
    assert refused(lambda: dynamodb.update_item(
        TableName="orders", Key=key, UpdateExpression="SET #x = :v, a.b = :v", ExpressionAttributeValues={
            ":v": {"S": "1"}})) == (
        "ValidationException", "Invalid UpdateExpression: An expression attribute name used in the document path is "
                               "not defined; attribute name: #x")
    assert refused(lambda: dynamodb.query(
        TableName="orders", KeyConditionExpression="pk = :v AND sk BETWEEN :n", ExpressionAttributeValues={
            ":v": {"S": "a"}, ":n": {"N": "1"}})) == (
        "ValidationException", 'Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "BETWEEN :n"')
    assert dynamodb.get_item(TableName="orders", Key=key)["Item"] == key


def test_a_starting_key_without_the_keys_is_refused(door):
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="orders", **RANGED)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
    partial = {"pk": {"S": "a"}}
    assert refused(lambda: dynamodb.scan(TableName="orders", ExclusiveStartKey=partial)) == (
        "ValidationException", "The provided starting key is invalid: The provided key element does not match the schema")
    assert refused(lambda: dynamodb.query(TableName="orders", KeyConditionExpression="pk = :v", ExpressionAttributeValues={
        ":v": {"S": "a"}}, ExclusiveStartKey=partial)) == ("ValidationException", "The provided starting key is invalid")
    whole = {"pk": {"S": "a"}, "sk": {"N": "0"}}
    assert dynamodb.scan(TableName="orders", ExclusiveStartKey=whole)["Count"] == 1


def test_list_streams_refuses_a_starting_arn_that_is_no_streams(door):
    """AWS answers a ValidationException where Eddy answered an empty page (the independent AWS-recorded suite of issue
    37: ExclusiveStartStreamArn of 48 random letters); in DescribeStream's words for an ARN that is not a stream's."""
    streams = door.client("dynamodbstreams")
    start = "abcdefghij" * 4 + "abcdefgh"
    with pytest.raises(ClientError) as error:
        streams.list_streams(ExclusiveStartStreamArn=start)
    assert (error.value.response["ResponseMetadata"]["HTTPStatusCode"], error.value.response["Error"]) == (
        400, {"Code": "ValidationException", "Message": f"Invalid StreamArn: {start}"})
