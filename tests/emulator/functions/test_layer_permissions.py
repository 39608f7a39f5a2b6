"""A layer version's permissions, GetLayerVersion and DeleteLayerVersion, answered and refused as AWS answered, whole,
in both doors. The expected answers are AWS's recorded ones, from LocalStack's AWS-validated snapshot
github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783
tests/aws/services/lambda_/test_lambda_api.snapshot.json: TestLambdaLayer::test_layer_policy_lifecycle and
::test_layer_policy_exceptions (recorded 25-11-2025), ::test_layer_exceptions (recorded 12-01-2026); the
snapshot shows Statement and Policy (JSON strings on the wire) parsed, as these tests do."""

from __future__ import annotations

import json

from tests.emulator.api.lambda_.test_error_documents import not_found, refused
from tests.emulator.functions.test_functions import zip_of
from tests.emulator.triggers.test_stream_mapping_validation import invalid_parameter

LAYER_ARN = "arn:aws:lambda:us-east-1:123456789012:layer:shared"
GRANT = {"Action": "lambda:GetLayerVersion", "Principal": "*"}


def statement(sid: str) -> dict:
    return {"Sid": sid, "Effect": "Allow", "Principal": "*", "Action": "lambda:GetLayerVersion",
            "Resource": f"{LAYER_ARN}:1"}


def publish(lam) -> None:
    lam.publish_layer_version(LayerName="shared", Content={"ZipFile": zip_of({"python/shared.py": "X = 1\n"})},
                              CompatibleRuntimes=["python3.12"], CompatibleArchitectures=["x86_64"])


def answer(response: dict) -> dict:
    """An answer as the recording shows it: Statement and Policy parsed, the status kept, the headers left out."""
    shown = {key: json.loads(value) if key in ("Statement", "Policy") else value
             for key, value in response.items() if key != "ResponseMetadata"}
    return shown | {"Status": response["ResponseMetadata"]["HTTPStatusCode"]}


def policy(revision: str, *sids: str) -> dict:
    return {"Policy": {"Version": "2012-10-17", "Id": "default", "Statement": [statement(sid) for sid in sids]},
            "RevisionId": revision, "Status": 200}


def precondition_failed() -> dict:
    message = ("The Revision Id provided does not match the latest Revision Id. Call the GetLayerPolicy API to "
               "retrieve the latest Revision Id")
    return {"Error": {"Code": "PreconditionFailedException", "Message": message}, "Type": "User", "message": message,
            "Status": 412}


def test_a_layer_versions_policy_lifecycle(door):
    """test_layer_policy_lifecycle: each statement added answers 201 with a new RevisionId, which GetLayerVersionPolicy
    then answers; a removal with the latest RevisionId answers 204 and makes another one."""
    lam = door.client("lambda")
    publish(lam)
    added = answer(lam.add_layer_version_permission(LayerName="shared", VersionNumber=1, StatementId="s1", **GRANT))
    assert added == {"RevisionId": added["RevisionId"], "Statement": statement("s1"), "Status": 201}
    first = answer(lam.get_layer_version_policy(LayerName="shared", VersionNumber=1))
    assert first == policy(added["RevisionId"], "s1")
    second = answer(lam.add_layer_version_permission(LayerName="shared", VersionNumber=1, StatementId="s2",
                                                     RevisionId=first["RevisionId"], **GRANT))
    assert second == {"RevisionId": second["RevisionId"], "Statement": statement("s2"), "Status": 201}
    assert second["RevisionId"] != first["RevisionId"]
    both = answer(lam.get_layer_version_policy(LayerName="shared", VersionNumber=1))
    assert both == policy(second["RevisionId"], "s1", "s2")
    removed = lam.remove_layer_version_permission(LayerName="shared", VersionNumber=1, StatementId="s2",
                                                  RevisionId=both["RevisionId"])
    assert removed["ResponseMetadata"]["HTTPStatusCode"] == 204
    after = answer(lam.get_layer_version_policy(LayerName="shared", VersionNumber=1))
    assert after == policy(after["RevisionId"], "s1") and after["RevisionId"] not in (first["RevisionId"],
                                                                                      second["RevisionId"])


def test_layer_permission_refusals(door):
    """test_layer_policy_exceptions: no policy yet; a statement id already there; a RevisionId that is not the latest
    (adding and removing); a layer or a version not there, for each of the three operations; a statement id not
    there. Nothing is changed by any of them."""
    lam = door.client("lambda")
    publish(lam)
    assert refused(lam.get_layer_version_policy, LayerName="shared", VersionNumber=1) == not_found(
        "No policy is associated with the given resource.")
    added = lam.add_layer_version_permission(LayerName="shared", VersionNumber=1, StatementId="s1", **GRANT)
    duplicate = ("The statement id (s1) provided already exists. Please provide a new statement id, or remove the "
                 "existing statement.")
    assert refused(lam.add_layer_version_permission, LayerName="shared", VersionNumber=1, StatementId="s1",
                   **GRANT) == {"Error": {"Code": "ResourceConflictException", "Message": duplicate}, "Type": "User",
                                "message": duplicate, "Status": 409}
    assert refused(lam.add_layer_version_permission, LayerName="shared", VersionNumber=1, StatementId="s2",
                   RevisionId="wrong", **GRANT) == precondition_failed()
    for name, version in (("shared-doesnotexist", 1), ("shared", 2)):
        missing = not_found(f"Layer version arn:aws:lambda:us-east-1:123456789012:layer:{name}:{version} does not "
                            "exist.")
        assert refused(lam.add_layer_version_permission, LayerName=name, VersionNumber=version, StatementId="s3",
                       **GRANT) == missing
        assert refused(lam.get_layer_version_policy, LayerName=name, VersionNumber=version) == missing
        assert refused(lam.remove_layer_version_permission, LayerName=name, VersionNumber=version,
                       StatementId="s1") == missing
    assert refused(lam.remove_layer_version_permission, LayerName="shared", VersionNumber=1,
                   StatementId="doesnotexist") == not_found("Statement doesnotexist is not found in resource policy.")
    assert refused(lam.remove_layer_version_permission, LayerName="shared", VersionNumber=1, StatementId="s1",
                   RevisionId="wrong") == precondition_failed()
    assert answer(lam.get_layer_version_policy(LayerName="shared", VersionNumber=1)) == policy(
        added["RevisionId"], "s1")


def test_layer_versions_not_there_or_below_one(door):
    """test_layer_exceptions: GetLayerVersion of a layer or a version not there, and of a version below 1
    (-1, 0), DeleteLayerVersion of a version below 1; the published version is still there."""
    lam = door.client("lambda")
    publish(lam)
    missing = not_found("The resource you requested does not exist.")
    assert refused(lam.get_layer_version, LayerName="layerdoesnotexist", VersionNumber=1) == missing
    assert refused(lam.get_layer_version, LayerName="shared", VersionNumber=2) == missing
    below_one = invalid_parameter("Layer Version Cannot be less than 1")
    for number in (-1, 0):
        assert refused(lam.get_layer_version, LayerName="shared", VersionNumber=number) == below_one
    assert refused(lam.delete_layer_version, LayerName="shared", VersionNumber=-1) == below_one
    assert lam.get_layer_version(LayerName="shared", VersionNumber=1)["LayerVersionArn"] == f"{LAYER_ARN}:1"


def validation_error(*problems: str) -> dict:
    count = f"{len(problems)} validation error{'s' if len(problems) > 1 else ''} detected"
    return {"Error": {"Code": "ValidationException", "Message": f"{count}: {'; '.join(problems)}"}, "Status": 400}


LISTED_RUNTIMES = (  # test_layer_exceptions' "list_layers_exc_compatibleruntime_invalid", as AWS listed them
    "[ruby3.5, ruby2.6, dotnetcore1.0, python3.7, nodejs8.10, nasa, ruby2.7, python2.7-greengrass, dotnetcore2.0, "
    "python3.8, java21, dotnet6, dotnetcore2.1, python3.9, java11, nodejs6.10, provided, dotnetcore3.1, dotnet8, java25, "
    "java17, nodejs, nodejs4.3, java8.al2, go1.x, dotnet10, nodejs20.x, go1.9, byol, nodejs10.x, provided.al2023, "
    "nodejs22.x, python3.10, java8, nodejs12.x, python3.11, nodejs24.x, nodejs8.x, python3.12, nodejs14.x, nodejs8.9, "
    "nodejs26.x, python3.13, python3.14, nodejs16.x, python3.15, provided.al2, nodejs4.3-edge, nodejs18.x, ruby3.2, "
    "python3.4, ruby3.3, ruby3.4, ruby2.5, python3.6, python2.7]"
)
LAYER_RUNTIMES = (  # "publish_layer_version_exc_invalid_runtime_arch"
    "[nodejs20.x, python3.14, provided.al2023, python3.12, python3.13, nodejs24.x, nodejs22.x, java25, python3.10, "
    "python3.11, java21, ruby3.3, ruby3.4, ruby3.2, python3.8, python3.9, java17, nodejs16.x, dotnet10, dotnet8, java11, "
    "dotnet6, nodejs18.x, provided.al2, java8.al2]"
)
ARCHITECTURES = "Member must satisfy constraint: [Member must satisfy enum value set: [x86_64, arm64], Member must not be null]"


def test_layer_requests_refused_in_aws_words(door):
    """test_layer_exceptions: ListLayers' CompatibleRuntime and CompatibleArchitecture outside AWS's sets,
    PublishLayerVersion's lists naming an unknown runtime or architecture (the whole list refused, even where some of
    it is valid; empty lists are valid and answered), GetLayerVersionByArn of a layer's ARN without a version;
    test_layer_policy_exceptions' "layer_permission_action_invalid". Nothing is published or granted by them."""
    lam = door.client("lambda")
    publish(lam)
    assert refused(lam.list_layers, CompatibleRuntime="runtimedoesnotexist") == validation_error(
        f"Value 'runtimedoesnotexist' at 'compatibleRuntime' failed to satisfy constraint: Member must satisfy enum "
        f"value set: {LISTED_RUNTIMES}")
    assert refused(lam.list_layers, CompatibleArchitecture="archdoesnotexist") == validation_error(
        "Value 'archdoesnotexist' at 'compatibleArchitecture' failed to satisfy constraint: Member must satisfy enum "
        "value set: [x86_64, arm64]")
    content = {"ZipFile": zip_of({"python/other.py": "Y = 2\n"})}
    assert refused(lam.publish_layer_version, LayerName="other", Content=content, CompatibleRuntimes=["invalidruntime"],
                   CompatibleArchitectures=["invalidarch"]) == validation_error(
        f"Value '[invalidruntime]' at 'compatibleRuntimes' failed to satisfy constraint: Member must satisfy enum value "
        f"set: {LAYER_RUNTIMES}",
        f"Value '[invalidarch]' at 'compatibleArchitectures' failed to satisfy constraint: {ARCHITECTURES}")
    assert refused(lam.publish_layer_version, LayerName="other", Content=content,
                   CompatibleRuntimes=["invalidruntime", "invalidruntime2", "nodejs20.x"],
                   CompatibleArchitectures=["invalidarch", "x86_64"]) == validation_error(
        "Value '[invalidruntime, invalidruntime2, nodejs20.x]' at 'compatibleRuntimes' failed to satisfy constraint: "
        f"Member must satisfy enum value set: {LAYER_RUNTIMES}",
        f"Value '[invalidarch, x86_64]' at 'compatibleArchitectures' failed to satisfy constraint: {ARCHITECTURES}")
    assert refused(lam.get_layer_version_by_arn, Arn=LAYER_ARN) == validation_error(
        f"Value '{LAYER_ARN}' at 'arn' failed to satisfy constraint: Member must satisfy regular expression pattern: "
        "(arn:(aws[a-zA-Z-]*)?:lambda:(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}:\\d{12}:layer:"
        "[a-zA-Z0-9-_]+:[0-9]+)|(arn:[a-zA-Z0-9-]+:lambda:::awslayer:[a-zA-Z0-9-_]+)")
    assert refused(lam.add_layer_version_permission, LayerName="shared", VersionNumber=1, StatementId="s1",
                   Action="*", Principal="*") == validation_error(
        "Value '*' at 'action' failed to satisfy constraint: Member must satisfy regular expression pattern: "
        "lambda:GetLayerVersion")
    assert [layer["LayerName"] for layer in lam.list_layers()["Layers"]] == ["shared"]  # nothing published
    assert refused(lam.get_layer_version_policy, LayerName="shared", VersionNumber=1)["Status"] == 404
    # retired runtimes are taken, though the refusal does not name them (test_layer_compatibilities publishes them)
    retired = lam.publish_layer_version(LayerName="retired", Content=content,
                                        CompatibleRuntimes=["python3.7", "nodejs12.x", "nodejs14.x"])
    assert retired["CompatibleRuntimes"] == ["python3.7", "nodejs12.x", "nodejs14.x"]
    assert lam.list_layers(CompatibleRuntime="python3.7")["ResponseMetadata"]["HTTPStatusCode"] == 200  # not refused
    empty = lam.publish_layer_version(LayerName="empty", Content=content, CompatibleRuntimes=[],
                                      CompatibleArchitectures=[])
    assert (empty["CompatibleRuntimes"], empty["CompatibleArchitectures"], empty["Version"]) == ([], [], 1)
