"""Aliases, in both doors, answered as AWS answers them. The expected answers are AWS's recorded ones: LocalStack's
AWS-validated snapshots, tests/aws/services/lambda_/test_lambda_api.snapshot.json (TestLambdaAlias), named per test."""

from __future__ import annotations

import json

from tests.emulator.functions.test_functions import create_function, updated
from tests.emulator.functions.test_versions import ARN, SOURCE, refused


def two_versions(lam, name: str) -> None:
    create_function(lam, name, SOURCE % "one", Publish=True)
    lam.update_function_configuration(FunctionName=name, Environment={"Variables": {"testenv": "prod"}})
    updated(lam, name)
    lam.publish_version(FunctionName=name)


def answer(response: dict) -> dict:
    return {key: value for key, value in response.items() if key != "ResponseMetadata"}


def test_alias_lifecycle(door):
    """test_alias_lifecycle: CreateAlias (201), GetAlias, GetFunction through the alias (the version's configuration
    under the alias's ARN), ListAliases (by FunctionVersion too), UpdateAlias (a new RevisionId; RoutingConfig {}
    removes the weights), DeleteAlias; test_non_existent_alias_deletion (204) and _update (Alias not found)."""
    lam = door.client("lambda")
    two_versions(lam, "aliased")
    created = lam.create_alias(FunctionName="aliased", Name="aliasname1_1", FunctionVersion="1",
                               Description="custom-alias", RoutingConfig={"AdditionalVersionWeights": {"2": 0.2}})
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    revision = created["RevisionId"]
    assert answer(created) == {"AliasArn": f"{ARN}:aliased:aliasname1_1", "Name": "aliasname1_1",
                               "FunctionVersion": "1", "Description": "custom-alias", "RevisionId": revision,
                               "RoutingConfig": {"AdditionalVersionWeights": {"2": 0.2}}}
    assert answer(lam.get_alias(FunctionName="aliased", Name="aliasname1_1")) == answer(created)
    version_1 = lam.get_function_configuration(FunctionName="aliased", Qualifier="1")
    through = lam.get_function(FunctionName=f"{ARN}:aliased:aliasname1_1")["Configuration"]
    assert through == dict(answer(version_1), FunctionArn=f"{ARN}:aliased:aliasname1_1")
    plain = lam.create_alias(FunctionName="aliased", Name="aliasname2", FunctionVersion="2")
    assert answer(plain) == {"AliasArn": f"{ARN}:aliased:aliasname2", "Name": "aliasname2", "FunctionVersion": "2",
                             "Description": "", "RevisionId": plain["RevisionId"]}
    assert [a["Name"] for a in lam.list_aliases(FunctionName="aliased")["Aliases"]] == ["aliasname1_1", "aliasname2"]
    assert [answer(a) for a in lam.list_aliases(FunctionName="aliased", FunctionVersion="2")["Aliases"]] == [
        answer(plain)]
    updated = lam.update_alias(FunctionName="aliased", Name="aliasname1_1", RoutingConfig={})
    assert answer(updated) == {"AliasArn": f"{ARN}:aliased:aliasname1_1", "Name": "aliasname1_1",
                               "FunctionVersion": "1", "Description": "custom-alias",
                               "RevisionId": updated["RevisionId"]}
    assert updated["RevisionId"] != revision
    moved = lam.update_alias(FunctionName="aliased", Name="aliasname1_1", FunctionVersion="2",
                             RevisionId=updated["RevisionId"])
    assert moved["FunctionVersion"] == "2"
    assert lam.delete_alias(FunctionName="aliased", Name="aliasname1_1")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert lam.delete_alias(FunctionName="aliased", Name="non-existent")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert refused(lam.update_alias, FunctionName="aliased", Name="non-existent", Description="x") == {
        "Error": {"Code": "ResourceNotFoundException", "Message": f"Alias not found: {ARN}:aliased:non-existent"},
        "Status": 404}
    assert refused(lam.get_alias, FunctionName="aliased", Name="aliasname1_1") == {
        "Error": {"Code": "ResourceNotFoundException",
                  "Message": f"Cannot find alias arn: {ARN}:aliased:aliasname1_1"}, "Status": 404}
    assert refused(lam.get_function, FunctionName="aliased", Qualifier="aliasdoesnotexist") == {
        "Error": {"Code": "ResourceNotFoundException",
                  "Message": f"Function not found: {ARN}:aliased:aliasdoesnotexist"}, "Status": 404}


def test_notfound_and_invalid_routingconfigs(door):
    """test_notfound_and_invalid_routingconfigs, test_alias_naming: each refusal in AWS's words, nothing created; an
    alias of $LATEST, and one with empty weights (answered without RoutingConfig)."""
    lam = door.client("lambda", validate=False)
    two_versions(lam, "routed")

    def create(**params):
        return refused(lam.create_alias, **{"FunctionName": "routed", "Name": "custom", "FunctionVersion": "1",
                                            **params})

    def invalid(message):
        return {"Error": {"Code": "InvalidParameterValueException", "Message": message}, "Status": 400}

    def weights(value, constraint):
        return {"Error": {"Code": "ValidationException", "Message": (
            f"1 validation error detected: Value '{value}' at 'routingConfig.additionalVersionWeights' failed to "
            f"satisfy constraint: {constraint}")}, "Status": 400}

    values = ("Map value must satisfy constraint: [Member must have value less than or equal to 1.0, Member must have "
              "value greater than or equal to 0.0, Member must not be null]")
    assert create(RoutingConfig={"AdditionalVersionWeights": {"1": 0.8, "2": 0.2}}) == invalid(
        "Number of items in AdditionalVersionWeights cannot be greater than 1")
    assert create(RoutingConfig={"AdditionalVersionWeights": {"2": 2}}) == weights("{2=2.0}", values)
    assert create(RoutingConfig={"AdditionalVersionWeights": {"2": -1}}) == weights("{2=-1.0}", values)
    assert create(RoutingConfig={"AdditionalVersionWeights": {"1": 0.5}}) == invalid(
        "Invalid function version 1. Function version 1 is already included in routing configuration.")
    not_found = {"Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:routed:10"},
                 "Status": 404}
    assert create(FunctionVersion="10", RoutingConfig={"AdditionalVersionWeights": {"2": 0.5}}) == not_found
    assert create(RoutingConfig={"AdditionalVersionWeights": {"10": 0.5}}) == not_found
    assert create(FunctionVersion="$LATEST", RoutingConfig={"AdditionalVersionWeights": {"1": 0.5}}) == invalid(
        "$LATEST is not supported for an alias pointing to more than 1 version")
    assert create(RoutingConfig={"AdditionalVersionWeights": {"$LATEST": 0.5}}) == weights("{$LATEST=0.5}", (
        "Map keys must satisfy constraint: [Member must have length less than or equal to 1024, Member must have "
        "length greater than or equal to 1, Member must satisfy regular expression pattern: [0-9]+]"))
    assert create(FunctionName="routed-unknown", RoutingConfig={"AdditionalVersionWeights": {"2": 0.5}}) == {
        "Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:routed-unknown:1"},
        "Status": 404}
    assert create(Name="2024") == {"Error": {"Code": "ValidationException", "Message": (
        "1 validation error detected: Value '2024' at 'name' failed to satisfy constraint: Member must satisfy regular "
        "expression pattern: (?!^[0-9]+$)([a-zA-Z0-9-_]+)")}, "Status": 400}
    assert lam.list_aliases(FunctionName="routed")["Aliases"] == []
    latest = lam.create_alias(FunctionName="routed", Name="custom-latest", FunctionVersion="$LATEST")
    assert (latest["FunctionVersion"], "RoutingConfig" in latest) == ("$LATEST", False)
    empty = lam.create_alias(FunctionName="routed", Name="custom-empty", FunctionVersion="1",
                             RoutingConfig={"AdditionalVersionWeights": {}})
    assert "RoutingConfig" not in empty
    lam.create_alias(FunctionName="routed", Name="custom", FunctionVersion="1",
                     RoutingConfig={"AdditionalVersionWeights": {"2": 0.5}})
    assert create() == {"Error": {"Code": "ResourceConflictException",
                                  "Message": f"Alias already exists: {ARN}:routed:custom"}, "Status": 409}


def test_a_version_an_alias_points_to_is_not_deleted(door):
    """LocalStack's snapshots do not record this refusal (its provider does not make it); AWS's answer as users quoted
    it from real accounts: HTTP 409 ResourceConflictException "Unable to delete version because the following aliases
    reference it: [live]" (karl-cardenas-coding/go-lambda-cleanup issue 45, with the status; cloud-custodian issue
    6739 and zappa issue 960, botocore's whole error line for DeleteFunction)."""
    lam = door.client("lambda")
    two_versions(lam, "pinned")
    lam.create_alias(FunctionName="pinned", Name="live", FunctionVersion="1",
                     RoutingConfig={"AdditionalVersionWeights": {"2": 0.1}})
    for version in ("1", "2"):
        assert refused(lam.delete_function, FunctionName="pinned", Qualifier=version) == {"Error": {
            "Code": "ResourceConflictException",
            "Message": "Unable to delete version because the following aliases reference it: [live]"}, "Status": 409}
    lam.delete_alias(FunctionName="pinned", Name="live")
    lam.delete_function(FunctionName="pinned", Qualifier="2")
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName="pinned")["Versions"]] == ["$LATEST", "1"]


def test_invoking_an_alias_runs_its_version_and_weights_split_invocations(door):
    """Invoke through an alias answers the version that ran (ExecutedVersion); the handler sees the alias's ARN. With
    AdditionalVersionWeights {"2": 0.5} both versions run; with weight 0 only the alias's own, with 1 only the other."""
    lam = door.client("lambda")
    create_function(lam, "weighted", SOURCE % "one", Publish=True)
    lam.update_function_configuration(FunctionName="weighted", Timeout=5)
    updated(lam, "weighted")
    lam.publish_version(FunctionName="weighted")
    lam.create_alias(FunctionName="weighted", Name="live", FunctionVersion="1")
    response = lam.invoke(FunctionName="weighted:live")
    assert (response["ExecutedVersion"], json.loads(response["Payload"].read())) == (
        "1", {"says": "one", "version": "1", "arn": f"{ARN}:weighted:live", "env": "1"})

    def executed(times: int) -> set[str]:
        return {lam.invoke(FunctionName="weighted", Qualifier="live")["ExecutedVersion"] for _ in range(times)}

    lam.update_alias(FunctionName="weighted", Name="live", RoutingConfig={"AdditionalVersionWeights": {"2": 1.0}})
    assert executed(3) == {"2"}
    lam.update_alias(FunctionName="weighted", Name="live", RoutingConfig={"AdditionalVersionWeights": {"2": 0.0}})
    assert executed(3) == {"1"}
    lam.update_alias(FunctionName="weighted", Name="live", RoutingConfig={"AdditionalVersionWeights": {"2": 0.5}})
    assert executed(40) == {"1", "2"}  # each run misses one of them with probability 2 * 0.5**40


def test_alias_weights_choose_by_draw():
    """The weights as a rule (pure): a draw below the additional version's weight runs it, any other the alias's."""
    from eddy.emulator.functions.versions import Alias

    alias = Alias("live", "1", routing={"2": 0.25})
    assert [alias.choose(draw) for draw in (0.0, 0.2499, 0.25, 0.9999)] == ["2", "2", "1", "1"]
    assert Alias("plain", "$LATEST").choose(0.1) == "$LATEST"
