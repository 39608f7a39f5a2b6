"""A function's policy, tags and reserved concurrency through the Lambda API, both doors, with AWS's shapes and
errors (LocalStack's AWS-recorded snapshots, test_lambda_api.snapshot.json); the operations Eddy does not serve
on a function answer 501, never ResourceNotFoundException for a function that exists."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from tests.emulator.api.lambda_.test_error_documents import not_found, refused
from tests.emulator.functions.test_functions import create_function, zip_of
from tests.emulator.pipes.test_pipe_api import error_of
from tests.lambda_functions import created_function

ECHO = "def handler(event, context):\n    return {'got': event}\n"
ARN = "arn:aws:lambda:us-east-1:123456789012:function:{}"


def _no_retries(door):
    """A Lambda client without botocore's retries: a throttle is the answer under test."""
    config = Config(retries={"total_max_attempts": 1})
    if door.name == "server":
        return boto3.client("lambda", region_name="us-east-1", endpoint_url=door.url, config=config,
                            aws_access_key_id="testing", aws_secret_access_key="testing")
    return boto3.client("lambda", region_name="us-east-1", config=config)


def test_permissions_make_the_policy_aws_answers(door):
    lam = door.client("lambda")
    create_function(lam, "echo", ECHO)
    added = lam.add_permission(FunctionName="echo", StatementId="s3", Action="lambda:InvokeFunction",
                               Principal="s3.amazonaws.com", SourceArn="arn:aws:s3:::photos",
                               SourceAccount="123456789012")
    assert added["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert json.loads(added["Statement"]) == {
        "Sid": "s3", "Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"}, "Action": "lambda:InvokeFunction",
        "Resource": ARN.format("echo"),
        "Condition": {"StringEquals": {"AWS:SourceAccount": "123456789012"}, "ArnLike": {"AWS:SourceArn": "arn:aws:s3:::photos"}}}
    account = json.loads(lam.add_permission(FunctionName=ARN.format("echo"), StatementId="other-account",
                                            Action="lambda:*", Principal="111122223333")["Statement"])
    assert account["Principal"] == {"AWS": "arn:aws:iam::111122223333:root"} and "Condition" not in account
    policy = lam.get_policy(FunctionName="echo")
    document = json.loads(policy["Policy"])
    assert (document["Version"], document["Id"]) == ("2012-10-17", "default")
    assert [s["Sid"] for s in document["Statement"]] == ["s3", "other-account"]
    assert policy["RevisionId"] == lam.get_function(FunctionName="echo")["Configuration"]["RevisionId"]

    assert error_of(lam.add_permission, FunctionName="echo", StatementId="s3", Action="lambda:InvokeFunction",
                    Principal="sns.amazonaws.com") == (
        "ResourceConflictException", "The statement id (s3) provided already exists. Please provide a new statement "
        "id, or remove the existing statement.", 409)
    assert error_of(lam.add_permission, FunctionName="echo", StatementId="x", Action="lambda:InvokeFunction",
                    Principal="sns.amazonaws.com", RevisionId="not-the-latest")[0::2] == ("PreconditionFailedException", 412)
    assert error_of(lam.add_permission, FunctionName="echo", StatementId="x", Action="lambda:InvokeFunction",
                    Principal="invalid.nonaws.com") == (
        "InvalidParameterValueException", "The provided principal was invalid. Please check the principal and try again.", 400)
    assert error_of(lam.add_permission, FunctionName="echo", StatementId="x", Action="lambda:InvokeFunction",
                    Principal="sns.amazonaws.com", Qualifier="$LATEST")[:2] == (
        "InvalidParameterValueException", "We currently do not support adding policies for $LATEST.")
    assert error_of(lam.add_permission, FunctionName="nope", StatementId="x", Action="lambda:InvokeFunction",
                    Principal="sns.amazonaws.com") == ("ResourceNotFoundException", f"Function not found: {ARN.format('nope')}", 404)

    before = policy["RevisionId"]
    lam.remove_permission(FunctionName="echo", StatementId="other-account", RevisionId=before)
    after = lam.get_policy(FunctionName="echo")
    assert [s["Sid"] for s in json.loads(after["Policy"])["Statement"]] == ["s3"] and after["RevisionId"] != before
    assert error_of(lam.remove_permission, FunctionName="echo", StatementId="gone") == (
        "ResourceNotFoundException", "Statement gone is not found in resource policy.", 404)
    lam.remove_permission(FunctionName="echo", StatementId="s3")
    assert error_of(lam.get_policy, FunctionName="echo") == (
        "ResourceNotFoundException", "The resource you requested does not exist.", 404)
    assert error_of(lam.remove_permission, FunctionName="echo", StatementId="s3") == (
        "ResourceNotFoundException", "No policy is associated with the given resource.", 404)


def test_tags_from_create_function_and_the_tagging_operations(door):
    lam = door.client("lambda")
    create_function(lam, "echo", ECHO, Tags={"team": "data", "stage": "dev"})
    arn = ARN.format("echo")
    assert lam.get_function(FunctionName="echo")["Tags"] == {"team": "data", "stage": "dev"}
    assert lam.list_tags(Resource=arn)["Tags"] == {"team": "data", "stage": "dev"}
    assert lam.tag_resource(Resource=arn, Tags={"stage": "prod", "cost": "42"})["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert lam.list_tags(Resource=arn)["Tags"] == {"team": "data", "stage": "prod", "cost": "42"}
    lam.untag_resource(Resource=arn, TagKeys=["team", "never-there"])
    assert lam.list_tags(Resource=arn)["Tags"] == {"stage": "prod", "cost": "42"}
    assert error_of(lam.tag_resource, Resource=arn, Tags={f"k{n}": "v" for n in range(49)}) == (
        "InvalidParameterValueException", "Number of tags exceeds resource tag limit.", 400)
    assert error_of(lam.list_tags, Resource=arn + ":live") == (
        "InvalidParameterValueException",
        "Tags on function aliases and versions are not supported. Please specify a function ARN.", 400)
    assert error_of(lam.list_tags, Resource=ARN.format("nope")) == (
        "ResourceNotFoundException", f"Function not found: {ARN.format('nope')}", 404)
    # AWS-recorded (the pattern older than botocore's model: layers, no network-connector): LocalStack's
    # test_lambda_api.snapshot.json, TestLambdaTag::test_tag_exceptions[lambda_function] "invalid_arn_exception"
    # and TestLambdaTags::test_tag_exceptions "tag_lambda_invalidarn"
    recorded = (r"arn:(aws[a-zA-Z-]*):lambda:(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:\d{12}:(function:"
                r"[a-zA-Z0-9-_]+(:(\$LATEST|[a-zA-Z0-9-_]+))?|layer:([a-zA-Z0-9-_]+)|code-signing-config:csc-[a-z0-9]"
                r"{17}|event-source-mapping:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
                r"|capacity-provider:[a-zA-Z0-9-_]+)")
    for wrong in ("arn:aws:lambda:us-east-1:123456789012:foobar:x", "arn:aws:something"):
        refusal = ("ValidationException", f"1 validation error detected: Value '{wrong}' at 'resource' failed to "
                   f"satisfy constraint: Member must satisfy regular expression pattern: {recorded}", 400)
        assert error_of(lam.list_tags, Resource=wrong) == refusal
        assert error_of(lam.tag_resource, Resource=wrong, Tags={"a": "b"}) == refusal
        assert error_of(lam.untag_resource, Resource=wrong, TagKeys=["a"]) == refusal
    assert lam.list_tags(Resource=arn)["Tags"] == {"stage": "prod", "cost": "42"}
    # TestLambdaTag::test_tag_exceptions[capacity_provider] "not_found_exception_tag", "..._untag", "..._list", and
    # "aliased_arn_exception" (a capacity provider's ARN with a qualifier: the pattern's refusal)
    provider = "arn:aws:lambda:us-east-1:123456789012:capacity-provider:cp-1"
    for call, extra in ((lam.tag_resource, {"Tags": {"a": "b"}}), (lam.untag_resource, {"TagKeys": ["a"]}),
                        (lam.list_tags, {})):
        assert refused(call, Resource=provider, **extra) == not_found(f"Capacity provider not found: {provider}")
    assert error_of(lam.list_tags, Resource=provider + ":alias") == (
        "ValidationException", f"1 validation error detected: Value '{provider}:alias' at 'resource' failed to "
        f"satisfy constraint: Member must satisfy regular expression pattern: {recorded}", 400)
    # a layer's ARN, which the recorded pattern allows (layer:<name>), though Lambda's layers carry no tags
    # (aws/aws-lambda-roadmap#70): not found, an existing layer's as a missing one's, in the words AWS answered the
    # other kinds ("<kind> not found: <ARN>", above); AWS's answer for a layer is not recorded. A layer version's ARN
    # (layer:<name>:<version>) is outside the pattern
    layer = lam.publish_layer_version(LayerName="shared", Content={"ZipFile": zip_of({"python/shared.py": ""})})
    for named in (layer["LayerArn"], "arn:aws:lambda:us-east-1:123456789012:layer:never-published"):
        for call, extra in ((lam.tag_resource, {"Tags": {"a": "b"}}), (lam.untag_resource, {"TagKeys": ["a"]}),
                            (lam.list_tags, {})):
            assert refused(call, Resource=named, **extra) == not_found(f"Layer not found: {named}")
    assert error_of(lam.list_tags, Resource=layer["LayerVersionArn"]) == (
        "ValidationException", f"1 validation error detected: Value '{layer['LayerVersionArn']}' at 'resource' failed "
        f"to satisfy constraint: Member must satisfy regular expression pattern: {recorded}", 400)
    lam.tag_resource(Resource=arn, Tags={"Équipe données": "café 1"})  # the model's \p{L}\p{Z}\p{N} classes
    assert lam.list_tags(Resource=arn)["Tags"]["Équipe données"] == "café 1"
    assert error_of(lam.tag_resource, Resource=arn, Tags={"no*stars": "v"})[0] == "ValidationException"


def test_an_event_source_mapping_has_tags_too(door):
    dynamodb, lam = door.client("dynamodb"), door.client("lambda")
    stream_arn = dynamodb.create_table(
        TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})["TableDescription"]["LatestStreamArn"]
    create_function(lam, "echo", ECHO)
    arn = lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="echo", StartingPosition="LATEST",
                                          Tags={"team": "data"})["EventSourceMappingArn"]
    assert lam.list_tags(Resource=arn)["Tags"] == {"team": "data"}
    lam.tag_resource(Resource=arn, Tags={"stage": "dev"})
    lam.untag_resource(Resource=arn, TagKeys=["team"])
    assert lam.list_tags(Resource=arn)["Tags"] == {"stage": "dev"}
    missing = arn[:-12] + "000000000000"
    assert error_of(lam.list_tags, Resource=missing) == (
        "ResourceNotFoundException", f"Event source mapping not found: {missing}", 404)


def test_reserved_concurrency_is_kept_and_zero_throttles_invoke(door):
    lam = _no_retries(door)
    create_function(lam, "echo", ECHO)
    assert lam.get_function_concurrency(FunctionName="echo").get("ReservedConcurrentExecutions") is None
    assert "Concurrency" not in lam.get_function(FunctionName="echo")
    assert lam.put_function_concurrency(FunctionName="echo", ReservedConcurrentExecutions=0)["ReservedConcurrentExecutions"] == 0
    assert lam.get_function(FunctionName="echo")["Concurrency"] == {"ReservedConcurrentExecutions": 0}
    with pytest.raises(ClientError) as caught:
        lam.invoke(FunctionName="echo", Payload=b"{}")
    response = caught.value.response
    assert (response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"],
            response["Reason"]) == ("TooManyRequestsException", "Rate Exceeded.", 429,
                                    "ReservedFunctionConcurrentInvocationLimitExceeded")
    lam.delete_function_concurrency(FunctionName="echo")
    assert lam.get_function_concurrency(FunctionName="echo").get("ReservedConcurrentExecutions") is None
    assert json.loads(lam.invoke(FunctionName="echo", Payload=b"{}")["Payload"].read()) == {"got": {}}
    assert error_of(lam.put_function_concurrency, FunctionName="echo", ReservedConcurrentExecutions=901) == (
        "InvalidParameterValueException", "Specified ReservedConcurrentExecutions for function decreases account's "
        "UnreservedConcurrentExecution below its minimum value of [100].", 400)
    assert error_of(lam.put_function_concurrency, FunctionName=ARN.format("echo") + ":1",
                    ReservedConcurrentExecutions=1)[0] == "InvalidParameterValueException"
    lam.put_function_concurrency(FunctionName="echo", ReservedConcurrentExecutions=25)
    settings = lam.get_account_settings()
    assert settings["AccountLimit"]["ConcurrentExecutions"] == 1000
    assert settings["AccountLimit"]["UnreservedConcurrentExecutions"] == 975
    assert settings["AccountUsage"]["FunctionCount"] == 1
    assert settings["AccountUsage"]["TotalCodeSize"] == lam.get_function(FunctionName="echo")["Configuration"]["CodeSize"]
    assert error_of(lam.get_function_concurrency, FunctionName="nope") == (  # AWS-recorded without $LATEST:
        # test_lambda_api.snapshot.json, TestLambdaFunction::test_ops_on_nonexisting_fn[get_function_concurrency]
        "ResourceNotFoundException", f"Function not found: {ARN.format('nope')}", 404)



def test_account_code_size_counts_latest_each_published_version_and_each_layer_version(door):
    """AccountUsage.TotalCodeSize grows by a function's code when it is created, by the code again when an update
    publishes a version (and when a version is published after a configuration-only update, which itself adds 0), and
    by a layer's zip with each layer version, as AWS was recorded answering: LocalStack's test_lambda_api.py,
    TestLambdaAccountSettings::test_account_settings_total_code_size (snapshot keys total_code_size_diff_create_function
    276, total_code_size_diff_update_function 276, total_code_size_diff_publish_layer 169,
    total_code_size_diff_publish_layer_version 169: each the package's own size) and
    ::test_account_settings_total_code_size_config_update (total_code_size_diff_update_function_configuration 0)."""
    lam = door.client("lambda")
    usage = lambda: lam.get_account_settings()["AccountUsage"]  # noqa: E731
    assert usage() == {"TotalCodeSize": 0, "FunctionCount": 0}
    size = create_function(lam, "echo", ECHO)["CodeSize"]
    assert usage() == {"TotalCodeSize": size, "FunctionCount": 1}
    updated = lam.update_function_code(FunctionName="echo", ZipFile=zip_of({"app.py": ECHO}), Publish=True)
    assert (updated["Version"], updated["CodeSize"]) == ("1", size)
    lam.get_waiter("function_updated_v2").wait(FunctionName="echo")
    assert usage() == {"TotalCodeSize": 2 * size, "FunctionCount": 1}
    layer_zip = zip_of({"python/helper.py": "VALUE = 1\n"})
    first = lam.publish_layer_version(LayerName="helpers", Content={"ZipFile": layer_zip})
    assert first["Content"]["CodeSize"] == len(layer_zip)
    assert usage() == {"TotalCodeSize": 2 * size + len(layer_zip), "FunctionCount": 1}
    lam.publish_layer_version(LayerName="helpers", Content={"ZipFile": layer_zip})
    assert usage() == {"TotalCodeSize": 2 * size + 2 * len(layer_zip), "FunctionCount": 1}
    lam.update_function_configuration(FunctionName="echo", Description="configuration only")
    assert usage() == {"TotalCodeSize": 2 * size + 2 * len(layer_zip), "FunctionCount": 1}
    lam.get_waiter("function_updated_v2").wait(FunctionName="echo")
    assert lam.publish_version(FunctionName="echo")["Version"] == "2"
    assert usage() == {"TotalCodeSize": 3 * size + 2 * len(layer_zip), "FunctionCount": 1}
    lam.delete_layer_version(LayerName="helpers", VersionNumber=1)
    lam.delete_function(FunctionName="echo", Qualifier="1")
    assert usage() == {"TotalCodeSize": 2 * size + len(layer_zip), "FunctionCount": 1}


WAITS_FOR_RELEASE = '''
import os, time
def handler(event, context):
    open(os.environ["STARTED"], "w").close()
    while not os.path.exists(os.environ["RELEASE"]):
        time.sleep(0.01)
    return "done"
'''


def test_reserved_concurrency_caps_invocations_running_at_once(door, tmp_path: Path):
    lam = _no_retries(door)
    started, release = tmp_path / "started", tmp_path / "release"
    create_function(lam, "slow", WAITS_FOR_RELEASE, Timeout=60,
                    Environment={"Variables": {"STARTED": str(started), "RELEASE": str(release)}})
    lam.put_function_concurrency(FunctionName="slow", ReservedConcurrentExecutions=1)
    answers: list = []
    first = threading.Thread(target=lambda: answers.append(lam.invoke(FunctionName="slow")["Payload"].read()))
    first.start()
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:  # the first invocation is running
        time.sleep(0.01)
    assert started.exists()
    assert error_of(lam.invoke, FunctionName="slow")[0::2] == ("TooManyRequestsException", 429)
    release.touch()
    first.join(60)
    assert answers == [b'"done"']
    assert lam.invoke(FunctionName="slow")["Payload"].read() == b'"done"'  # its one slot is free again


def test_a_throttled_stream_batch_waits_and_is_not_a_retry(door):
    """MaximumRetryAttempts=0 discards a batch whose function fails; a throttled batch is not invoked, so it is
    retried until the concurrency allows it (AWS's "before invocation" rule) and then delivered."""
    dynamodb, lam = door.client("dynamodb"), _no_retries(door)
    for name in ("orders", "replica"):
        dynamodb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST",
                              **({"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}
                                 if name == "orders" else {}))
    stream_arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    created_function(lam, FunctionName="replicate", Runtime="python3.11", Handler="app.handler",
                        Role="arn:aws:iam::123456789012:role/lambda-role",
                        Code={"ZipFile": _replicate_zip()}, Environment={"Variables": {"REPLICA_TABLE": "replica"}})
    lam.put_function_concurrency(FunctionName="replicate", ReservedConcurrentExecutions=0)
    mapping = lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="replicate",
                                              StartingPosition="TRIM_HORIZON", MaximumRetryAttempts=0)["UUID"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
    deadline = time.monotonic() + 60
    while "TooManyRequestsException" not in (lam.get_event_source_mapping(UUID=mapping).get("LastProcessingResult") or ""):
        assert time.monotonic() < deadline, "the batch was never throttled"
        time.sleep(0.05)
    lam.delete_function_concurrency(FunctionName="replicate")
    door.advance(120)  # past any back-off
    door.assert_delivered()
    assert [item["pk"]["S"] for item in dynamodb.scan(TableName="replica")["Items"]] == ["a"]


def _replicate_zip() -> bytes:
    from tests.durability.test_kill import package

    return package()


def test_operations_eddy_does_not_serve_answer_501_on_a_function_that_exists(door):
    lam = door.client("lambda")
    create_function(lam, "echo", ECHO)
    # (provisioned concurrency is served since 13c6157: tests/emulator/functions/test_provisioned_concurrency.py;
    # function URLs too: tests/emulator/api/lambda_/function_urls/)
    for call, params in ((lam.get_function_code_signing_config, {}), (lam.get_runtime_management_config, {})):
        assert error_of(call, FunctionName="echo", **params) == (
            "NotImplemented", f"Eddy does not emulate Lambda's {call.__name__.title().replace('_', '')}", 501)
        assert error_of(call, FunctionName="nope", **params)[0::2] == ("ResourceNotFoundException", 404)


def test_a_qualifier_naming_no_version_or_alias_is_not_found(door):
    lam = door.client("lambda")
    create_function(lam, "echo", ECHO)
    assert json.loads(lam.invoke(FunctionName="echo", Qualifier="$LATEST", Payload=b"{}")["Payload"].read()) == {"got": {}}
    assert error_of(lam.invoke, FunctionName="echo", Qualifier="1", Payload=b"{}") == (
        "ResourceNotFoundException", f"Function not found: {ARN.format('echo')}:1", 404)
    assert error_of(lam.get_function, FunctionName="echo", Qualifier="live")[0::2] == ("ResourceNotFoundException", 404)
    assert error_of(lam.invoke, FunctionName=ARN.format("echo") + ":live", Payload=b"{}") == (
        "ResourceNotFoundException", f"Function not found: {ARN.format('echo')}:live", 404)
