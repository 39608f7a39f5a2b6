"""PutFunctionRecursionConfig and GetFunctionRecursionConfig, and the RevisionId a change of tags makes, in both doors.
The expected answers are AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json: TestLambdaRecursion (recorded 25-11-2025) and
TestLambdaTags::test_tag_lifecycle."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import create_function

OK = {"HTTPHeaders": {}, "HTTPStatusCode": 200}


def answer(response: dict) -> dict:
    return {**response, "ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode":
                                             response["ResponseMetadata"]["HTTPStatusCode"]}}


def test_recursion_config_is_terminate_until_put(door):
    """get_recursion_default_terminate_response, put_recursion_config_response, get_recursion_config_response and
    put_recursion_invalid_value_error, whole."""
    lam = door.client("lambda")
    create_function(lam, "recursive", "def handler(event, context):\n    return event\n")
    assert answer(lam.get_function_recursion_config(FunctionName="recursive")) == {
        "RecursiveLoop": "Terminate", "ResponseMetadata": OK}
    assert answer(lam.put_function_recursion_config(FunctionName="recursive", RecursiveLoop="Allow")) == {
        "RecursiveLoop": "Allow", "ResponseMetadata": OK}
    assert answer(lam.get_function_recursion_config(FunctionName="recursive")) == {
        "RecursiveLoop": "Allow", "ResponseMetadata": OK}
    with pytest.raises(ClientError) as error:
        lam.put_function_recursion_config(FunctionName="recursive", RecursiveLoop="InvalidValue")
    assert (error.value.response["Error"], error.value.response["ResponseMetadata"]["HTTPStatusCode"]) == (
        {"Code": "ValidationException", "Message": "1 validation error detected: Value 'InvalidValue' at "
         "'recursiveLoop' failed to satisfy constraint: Member must satisfy enum value set: [Terminate, Allow]"}, 400)
    assert lam.get_function_recursion_config(FunctionName="recursive")["RecursiveLoop"] == "Allow"


def test_each_change_of_tags_is_a_new_revision(door):
    """test_tag_lifecycle: get_fn_response_postaddtags, _overwrite, _postuntag, _postuntagall each a new RevisionId."""
    lam = door.client("lambda")
    arn = create_function(lam, "tagged", "def handler(event, context):\n    return event\n")["FunctionArn"]
    revisions = [lam.get_function(FunctionName="tagged")["Configuration"]["RevisionId"]]
    for change in (lambda: lam.tag_resource(Resource=arn, Tags={"A": "tag-a", "B": "tag-b"}),
                   lambda: lam.tag_resource(Resource=arn, Tags={"A": "tag-a-updated"}),
                   lambda: lam.untag_resource(Resource=arn, TagKeys=["A"]),
                   lambda: lam.untag_resource(Resource=arn, TagKeys=["B"])):
        change()
        revisions.append(lam.get_function(FunctionName="tagged")["Configuration"]["RevisionId"])
    assert len(set(revisions)) == 5
