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
