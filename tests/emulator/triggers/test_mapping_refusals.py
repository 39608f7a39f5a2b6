"""Event source mapping requests on missing things, answered as AWS answers them, whole, in both doors. The expected
answers are AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json, TestLambdaEventSourceMappings::
test_event_source_mapping_exceptions (recorded 27-11-2025): "create_no_event_source_arn", "create_unknown_params",
"destination_config_failure", "get_unknown_uuid", "delete_unknown_uuid", "update_unknown_uuid", and the listings by a
function or a source that do not exist (no refusal)."""

from __future__ import annotations

import uuid

from tests.emulator.api.lambda_.test_error_documents import not_found, refused
from tests.emulator.triggers.test_stream_mapping_validation import invalid_parameter

QUEUE = "arn:aws:sqs:us-east-1:111111111111:somequeue"


def test_a_mapping_of_nothing(door):
    lam = door.client("lambda")
    create = lam.create_event_source_mapping
    assert refused(create, FunctionName="doesnotexist") == invalid_parameter("Unrecognized event source.")
    assert refused(create, FunctionName="doesnotexist", EventSourceArn=QUEUE) == invalid_parameter(
        "Function does not exist")
    assert refused(create, FunctionName="doesnotexist", EventSourceArn=QUEUE, DestinationConfig={
        "OnSuccess": {"Destination": "arn:aws:sqs:us-east-1:111111111111:someotherqueue"}}) == invalid_parameter(
        "Unsupported DestinationConfig parameter for given event source mapping type.")
    assert lam.list_event_source_mappings(FunctionName="doesnotexist")["EventSourceMappings"] == []
    assert lam.list_event_source_mappings(EventSourceArn=QUEUE)["EventSourceMappings"] == []
    assert lam.list_event_source_mappings()["EventSourceMappings"] == []


def test_a_mapping_that_does_not_exist(door):
    """get_unknown_uuid, delete_unknown_uuid, update_unknown_uuid: a UUID no mapping has (the recording's long_uid:
    a fresh UUID), each refused whole."""
    lam = door.client("lambda")
    missing = not_found("The resource you requested does not exist.")
    assert refused(lam.get_event_source_mapping, UUID=str(uuid.uuid4())) == missing
    assert refused(lam.delete_event_source_mapping, UUID=str(uuid.uuid4())) == missing
    assert refused(lam.update_event_source_mapping, UUID=str(uuid.uuid4()), Enabled=False) == missing
