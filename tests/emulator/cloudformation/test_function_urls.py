"""AWS::Lambda::Url in stacks, in both doors, as the CloudFormation User Guide and the type's registry schema have it
(Ref and Fn::GetAtt FunctionArn: the function's ARN, qualified by the alias; Fn::GetAtt FunctionUrl; TargetFunctionArn
and Qualifier createOnlyProperties, so changing them replaces the URL: a new URL id; AuthType, Cors and InvokeMode
changed in place: the same URL), AWS::Lambda::Permission's InvokedViaFunctionUrl, and SAM's FunctionUrlConfig through
aws-sam-translator (which adds both public statements AWS requires of an AuthType NONE URL). The URL is called over
HTTP after each step."""

from __future__ import annotations

from tests.emulator.api.lambda_.function_urls.helpers import call, call_json
from tests.emulator.cloudformation.helpers import deploy, events, outputs
from tests.emulator.cloudformation.templates import ROLE, inline_function

ARN = "arn:aws:lambda:us-east-1:123456789012:function:site"
TEMPLATE = """
Parameters:
  Origin: {Type: String, Default: "https://one.example"}
  AliasName: {Type: String, Default: live}
Resources:""" + ROLE + inline_function("Site", """
def handler(event, context):
    return {"path": event["rawPath"], "arn": context.invoked_function_arn}
""", name="site") + """
  SiteVersion:
    Type: AWS::Lambda::Version
    Properties: {FunctionName: !Ref Site}
  Live:
    Type: AWS::Lambda::Alias
    Properties: {FunctionName: !Ref Site, FunctionVersion: !GetAtt SiteVersion.Version, Name: !Ref AliasName}
  PublicUrl:
    Type: AWS::Lambda::Permission
    Properties: {FunctionName: !Ref Live, Action: "lambda:InvokeFunctionUrl", Principal: "*", FunctionUrlAuthType: NONE}
  PublicInvoke:
    Type: AWS::Lambda::Permission
    Properties: {FunctionName: !Ref Live, Action: "lambda:InvokeFunction", Principal: "*", InvokedViaFunctionUrl: true}
  SiteUrl:
    Type: AWS::Lambda::Url
    DependsOn: Live
    Properties:
      TargetFunctionArn: !GetAtt Site.Arn
      Qualifier: !Ref AliasName
      AuthType: NONE
      Cors: {AllowOrigins: [!Ref Origin], AllowMethods: [GET]}
Outputs:
  Url: {Value: !GetAtt SiteUrl.FunctionUrl}
  Ref: {Value: !Ref SiteUrl}
  FunctionArn: {Value: !GetAtt SiteUrl.FunctionArn}
"""


def _deploy(cloudformation, verb: str, **parameters: str) -> dict[str, str]:
    return deploy(cloudformation, verb, "site", TEMPLATE, **parameters)


def _allowed_origin(url: str, origin: str) -> str | None:
    status, headers, _ = call(url, "OPTIONS", headers={"Origin": origin, "Access-Control-Request-Method": "GET"})
    assert status == 200
    return headers["Access-Control-Allow-Origin"]


def test_a_url_is_created_updated_in_place_replaced_and_deleted(door):
    cloudformation, lam = door.client("cloudformation"), door.client("lambda")
    made = _deploy(cloudformation, "create")
    url = made["Url"]
    assert (made["Ref"], made["FunctionArn"]) == (f"{ARN}:live", f"{ARN}:live")
    assert call_json(f"{url}hello") == (200, {"path": "/hello", "arn": f"{ARN}:live"})
    assert _allowed_origin(url, "https://one.example") == "https://one.example"

    changed = _deploy(cloudformation, "update", Origin="https://two.example")  # Cors: in place, the same URL
    assert changed["Url"] == url
    assert (_allowed_origin(url, "https://one.example"), _allowed_origin(url, "https://two.example")) == (
        None, "https://two.example")
    site_url = [event[2] for event in events(cloudformation, "site") if event[0] == "SiteUrl"]
    assert site_url[-2:] == ["UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"]

    seen = len(events(cloudformation, "site"))
    moved = _deploy(cloudformation, "update", Origin="https://two.example", AliasName="next")  # Qualifier: replaced
    cleanup = events(cloudformation, "site")[seen:]
    cleanup = cleanup[cleanup.index(("site", "AWS::CloudFormation::Stack", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS",
                                     None)) + 1:]
    # the old resources deleted dependents first, as CloudFormation deletes them (the URL before its alias)
    assert [(logical_id, status) for logical_id, _, status, _ in cleanup] == [
        ("SiteUrl", "DELETE_IN_PROGRESS"), ("SiteUrl", "DELETE_COMPLETE"),
        ("PublicInvoke", "DELETE_IN_PROGRESS"), ("PublicInvoke", "DELETE_COMPLETE"),
        ("PublicUrl", "DELETE_IN_PROGRESS"), ("PublicUrl", "DELETE_COMPLETE"),
        ("Live", "DELETE_IN_PROGRESS"), ("Live", "DELETE_COMPLETE"), ("site", "UPDATE_COMPLETE")]
    assert (moved["Ref"], moved["Url"] != url) == (f"{ARN}:next", True)
    assert call_json(f"{moved['Url']}again") == (200, {"path": "/again", "arn": f"{ARN}:next"})
    assert call(url)[0] == 403  # the old URL went with the old alias
    configs = lam.list_function_url_configs(FunctionName="site")["FunctionUrlConfigs"]
    assert [(c["FunctionArn"], c["FunctionUrl"]) for c in configs] == [(f"{ARN}:next", moved["Url"])]

    cloudformation.delete_stack(StackName="site")
    assert lam.list_functions()["Functions"] == []
    assert call(moved["Url"])[0] == 403


SAM = """
Transform: AWS::Serverless-2016-10-31
Resources:
  Web:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      InlineCode: |
        def handler(event, context):
            return {"statusCode": 202, "body": event["rawPath"]}
      FunctionUrlConfig:
        AuthType: NONE
        Cors: {AllowOrigins: ["https://app.example"]}
Outputs:
  Url: {Value: !GetAtt WebUrl.FunctionUrl}
"""


def test_sam_function_url_config_is_public_and_served(door):
    """SAM's FunctionUrlConfig: AWS::Lambda::Url plus the two public statements; the URL answers at once."""
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="web", TemplateBody=SAM, Capabilities=["CAPABILITY_IAM",
                                                                                 "CAPABILITY_AUTO_EXPAND"])
    assert cloudformation.describe_stacks(StackName="web")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    url = outputs(cloudformation, "web")["Url"]
    status, headers, body = call(f"{url}orders", headers={"Origin": "https://app.example"})
    assert (status, body, headers["Access-Control-Allow-Origin"]) == (202, b"/orders", "https://app.example")
    types = {resource["LogicalResourceId"]: resource["ResourceType"] for resource in
             cloudformation.list_stack_resources(StackName="web")["StackResourceSummaries"]}
    assert {key: value for key, value in types.items() if key.startswith("WebU")} == {
        "WebUrl": "AWS::Lambda::Url", "WebUrlPublicPermissions": "AWS::Lambda::Permission",
        "WebURLInvokeAllowPublicAccess": "AWS::Lambda::Permission"}
