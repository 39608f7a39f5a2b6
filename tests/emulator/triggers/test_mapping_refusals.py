"""Event source mapping requests on missing things, answered as AWS answers them, whole, in both doors. The expected
answers are AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json, TestLambdaEventSourceMappings::
test_event_source_mapping_exceptions (recorded 27-11-2025): "create_no_event_source_arn", "create_unknown_params",
and the listings by a function or a source that do not exist (no refusal)."""

from __future__ import annotations

from tests.emulator.api.lambda_.test_error_documents import refused
from tests.emulator.triggers.test_stream_mapping_validation import invalid_parameter

QUEUE = "arn:aws:sqs:us-east-1:111111111111:somequeue"


def test_a_mapping_of_nothing(door):
    lam = door.client("lambda")
    create = lam.create_event_source_mapping
    assert refused(create, FunctionName="doesnotexist") == invalid_parameter("Unrecognized event source.")
    assert refused(create, FunctionName="doesnotexist", EventSourceArn=QUEUE) == invalid_parameter(
        "Function does not exist")
    assert lam.list_event_source_mappings(FunctionName="doesnotexist")["EventSourceMappings"] == []
    assert lam.list_event_source_mappings(EventSourceArn=QUEUE)["EventSourceMappings"] == []
