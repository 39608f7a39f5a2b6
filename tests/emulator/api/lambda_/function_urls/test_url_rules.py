"""The pure rules of function URLs, each on its own: who may call (access.py), what an answer becomes
(answers.py). Sources as in the modules: urls-auth.html, urls-invocation.html."""

from __future__ import annotations

from eddy.emulator.api.lambda_.function_urls import access, answers

URL_STATEMENT = {"Sid": "url", "Effect": "Allow", "Principal": "*", "Action": "lambda:InvokeFunctionUrl",
                 "Resource": "arn:aws:lambda:us-east-1:123456789012:function:f",
                 "Condition": {"StringEquals": {"lambda:FunctionUrlAuthType": "NONE"}}}
INVOKE_STATEMENT = {"Sid": "invoke", "Effect": "Allow", "Principal": "*", "Action": "lambda:InvokeFunction",
                    "Resource": "arn:aws:lambda:us-east-1:123456789012:function:f",
                    "Condition": {"Bool": {"lambda:InvokedViaFunctionUrl": "true"}}}


def test_public_access_needs_both_statements_for_everyone():
    assert access.public_access([URL_STATEMENT, INVOKE_STATEMENT])
    assert not access.public_access([URL_STATEMENT])
    assert not access.public_access([INVOKE_STATEMENT])
    iam_only = dict(URL_STATEMENT, Condition={"StringEquals": {"lambda:FunctionUrlAuthType": "AWS_IAM"}})
    assert not access.public_access([iam_only, INVOKE_STATEMENT])
    one_account = dict(URL_STATEMENT, Principal={"AWS": "arn:aws:iam::111122223333:root"})
    assert not access.public_access([one_account, INVOKE_STATEMENT])
    denied = [dict(statement, Effect="Deny") for statement in (URL_STATEMENT, INVOKE_STATEMENT)]
    assert not access.public_access(denied)
    # An explicit Deny wins over any Allow (IAM's policy evaluation logic, reference_policies_evaluation-logic.html)
    deny_everyone = {"Sid": "no", "Effect": "Deny", "Principal": "*", "Action": "lambda:InvokeFunctionUrl",
                     "Resource": "arn:aws:lambda:us-east-1:123456789012:function:f"}
    assert not access.public_access([URL_STATEMENT, INVOKE_STATEMENT, deny_everyone])


def test_aws_iam_lets_the_owner_and_the_accounts_the_policy_names():
    named = dict(URL_STATEMENT, Principal={"AWS": "arn:aws:iam::111122223333:root"},
                 Condition={"StringEquals": {"lambda:FunctionUrlAuthType": "AWS_IAM"}})
    assert access.iam_access([], "123456789012", "123456789012")
    assert not access.iam_access([], "111122223333", "123456789012")
    assert access.iam_access([named], "111122223333", "123456789012")
    assert not access.iam_access([named], "444455556666", "123456789012")
    denied = dict(named, Sid="no", Effect="Deny")
    assert not access.iam_access([named, denied], "111122223333", "123456789012")
    deny_everyone = dict(denied, Principal="*", Condition={})
    assert not access.iam_access([deny_everyone], "123456789012", "123456789012")


def test_a_signature_names_its_key_region_and_service():
    header = ("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261128/eu-west-1/lambda/aws4_request, "
              "SignedHeaders=host;x-amz-date, Signature=abc")
    assert access.signed_caller(header, "") == ("AKIDEXAMPLE", "eu-west-1")
    assert access.signed_caller(header.replace("/lambda/", "/s3/"), "") is None
    presigned = "X-Amz-Credential=AKIDEXAMPLE%2F20261128%2Fus-east-1%2Flambda%2Faws4_request&X-Amz-Signature=abc"
    assert access.signed_caller("", presigned) == ("AKIDEXAMPLE", "us-east-1")
    assert access.signed_caller("", "") is None


def test_answers_that_are_no_response_are_502():
    for broken in ({"statusCode": "teapot"}, {"statusCode": 42}, {"statusCode": 200, "isBase64Encoded": True,
                                                                   "body": "not base64!"},
                   {"statusCode": 200, "headers": ["Content-Type", "text/plain"]},
                   {"statusCode": 200, "cookies": "a=1"}):
        answer = answers.http_answer(broken)
        assert (answer.status, answer.body) == (502, b"Internal Server Error")
    empty = answers.http_answer({"statusCode": 204})
    assert (empty.status, empty.headers, empty.body, empty.cookies) == (
        204, {"Content-Type": "application/json"}, b"", [])
    assert answers.http_answer(None).body == b"null"
