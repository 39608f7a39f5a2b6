"""A stream mapping's StartingPosition refused in Lambda's words, whole answers, in both doors. The expected answers
are AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json, TestLambdaEventSourceMappings::
test_create_event_source_validation and test_create_event_source_validation_kinesis (recorded 25-11-2025):
"no_starting_position", "invalid_starting_position", "incompatible_starting_position"."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import create_function
from tests.emulator.helpers import create_table
from tests.emulator.triggers.test_aws_recorded_answers import kinesis_stream

NULL = ("1 validation error detected: Value null at 'startingPosition' failed to satisfy constraint: Member must not be "
        "null.")
INVALID = ("1 validation error detected: Value 'invalid' at 'startingPosition' failed to satisfy constraint: Member "
           "must satisfy enum value set: [LATEST, AT_TIMESTAMP, TRIM_HORIZON]")


def refused(lam, **params) -> dict:
    with pytest.raises(ClientError) as error:
        lam.create_event_source_mapping(FunctionName="echo", **params)
    response = error.value.response
    return {key: value for key, value in response.items() if key != "ResponseMetadata"} | {
        "Status": response["ResponseMetadata"]["HTTPStatusCode"]}


def invalid_parameter(message: str) -> dict:
    return {"Error": {"Code": "InvalidParameterValueException", "Message": message}, "Type": "User",
            "message": message, "Status": 400}


@pytest.mark.parametrize("source", ["dynamodb", "kinesis"])
def test_a_starting_position_missing_or_invalid(door, source):
    lam = door.client("lambda")
    create_function(lam, "echo", "def handler(event, context):\n    return event\n")
    arn = (create_table(door.client("dynamodb"), "orders", "NEW_AND_OLD_IMAGES")["LatestStreamArn"]
           if source == "dynamodb" else kinesis_stream(door))
    assert refused(lam, EventSourceArn=arn) == invalid_parameter(NULL)
    assert refused(lam, EventSourceArn=arn, StartingPosition="invalid") == {
        "Error": {"Code": "ValidationException", "Message": INVALID}, "Status": 400}
    if source == "dynamodb":  # AT_TIMESTAMP is a Kinesis stream's only
        assert refused(lam, EventSourceArn=arn, StartingPosition="AT_TIMESTAMP",
                       StartingPositionTimestamp=1741010802) == invalid_parameter(
            f"Unsupported starting position for arn type: {arn}")
    assert lam.list_event_source_mappings()["EventSourceMappings"] == []
