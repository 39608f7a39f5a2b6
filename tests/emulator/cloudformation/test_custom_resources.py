"""Custom resources backed by Lambda (both doors): the ServiceToken's function gets AWS's request objects (Create,
Update, Delete: CloudFormation User Guide, "Custom resource request objects"), answers through the cfnresponse
module CloudFormation gives inline code, PUT to a ResponseURL on Eddy's endpoint; Fn::GetAtt reads its Data, a new
PhysicalResourceId on Update replaces it, FAILED rolls the stack back with the provider's Reason. A ServiceToken may
also be an SNS topic (its subscriber answers); a provider that never answers fails after ServiceTimeout."""

import json
import re

import pytest

from tests.emulator.cloudformation.helpers import STACK, events, outputs
from tests.emulator.cloudformation.templates import ROLE, inline_function

PROVIDER_CODE = '''
import json, os, boto3, cfnresponse
sqs = boto3.client("sqs")
def handler(event, context):
    sqs.send_message(QueueUrl=os.environ["REQUESTS"], MessageBody=json.dumps(event),
                     MessageGroupId="requests", MessageDeduplicationId=event["RequestId"])
    properties = event["ResourceProperties"]
    if properties.get("Crash") == "true":
        raise RuntimeError("the provider crashed")
    if properties.get("Refuse") == "true" and event["RequestType"] != "Delete":
        cfnresponse.send(event, context, cfnresponse.FAILED, {}, "refused-" + properties["Name"],
                         reason="no thanks")
        return
    cfnresponse.send(event, context, cfnresponse.SUCCESS,
                     {"Greeting": "hello " + properties["Name"], "Count": properties.get("Count", "")},
                     "thing-" + properties["Name"])
'''

PROVIDER = """
Resources:
""" + ROLE + """
  Requests:
    Type: AWS::SQS::Queue
    Properties: {FifoQueue: true}
""" + inline_function("Provider", PROVIDER_CODE, "{REQUESTS: !Ref Requests}") + """%(thing)s
Outputs:
  Requests: {Value: !Ref Requests}
  Provider: {Value: !GetAtt Provider.Arn}
"""

THING = """
  Thing:
    Type: %(type)s
    Properties:
      ServiceToken: !GetAtt Provider.Arn
      Name: %(name)s
      Count: %(count)s
      Enabled: true
      Nested: {Sizes: [1, 2.5], Flag: false}
      %(extra)s
  Greeting:
    Type: AWS::SSM::Parameter
    Properties: {Type: String, Value: !GetAtt Thing.Greeting}
"""


def template(name="one", count=3, type_="Custom::Thing", extra=""):
    return PROVIDER % {"thing": THING % {"type": type_, "name": name, "count": count, "extra": extra}}


def requests(door, url):
    """Every request the provider got, in order (a FIFO queue), ResponseURL and RequestId checked and set apart."""
    sqs, seen = door.client("sqs"), []
    while True:
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
        if not messages:
            return seen
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            request = json.loads(message["Body"])
            # AWS's is a pre-signed S3 URL: https://cloudformation-custom-resource-response-useast1.s3.amazonaws.com/
            # <stack id|logical id|request id, URL-encoded>?X-Amz-...; Eddy's is the same path on its endpoint
            assert re.fullmatch(r"http://127\.0\.0\.1:\d+/cloudformation-custom-resource-response-useast1/"
                                r"arn%3Aaws%3Acloudformation%3Aus-east-1%3A\d{12}%3Astack%2F[^?]+%7C"
                                r"\w+%7C[0-9a-f-]{36}\?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=\d{8}T\d{6}Z"
                                r"&X-Amz-SignedHeaders=host&X-Amz-Expires=7200", request.pop("ResponseURL"))
            assert re.fullmatch(r"[0-9a-f-]{36}", request.pop("RequestId"))
            seen.append(request)


def sent(name, count):
    """The properties as the provider receives them: numbers and booleans as strings (github
    aws-cloudformation/cloudformation-coverage-roadmap#1037)."""
    return {"Name": name, "Count": str(count), "Enabled": "true", "Nested": {"Sizes": ["1", "2.5"], "Flag": "false"}}


def test_a_custom_resource_is_created_updated_replaced_and_deleted_through_its_function(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="custom", TemplateBody=template(), Capabilities=["CAPABILITY_IAM"])
    stack = cloudformation.describe_stacks(StackName="custom")["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    found = outputs(cloudformation, "custom")
    token, stack_id = found["Provider"], stack["StackId"]
    common = {"ServiceToken": token, "StackId": stack_id, "LogicalResourceId": "Thing", "ResourceType": "Custom::Thing"}
    assert requests(door, found["Requests"]) == [
        {"RequestType": "Create", **common, "ResourceProperties": {"ServiceToken": token, **sent("one", 3)}}]
    thing = cloudformation.describe_stack_resource(StackName="custom", LogicalResourceId="Thing")["StackResourceDetail"]
    assert (thing["PhysicalResourceId"], thing["ResourceStatus"]) == ("thing-one", "CREATE_COMPLETE")
    greeting = cloudformation.describe_stack_resource(StackName="custom", LogicalResourceId="Greeting")[
        "StackResourceDetail"]["PhysicalResourceId"]
    assert door.client("ssm").get_parameter(Name=greeting)["Parameter"]["Value"] == "hello one"

    cloudformation.update_stack(StackName="custom", TemplateBody=template(count=4), Capabilities=["CAPABILITY_IAM"])
    assert requests(door, found["Requests"]) == [
        {"RequestType": "Update", **common, "PhysicalResourceId": "thing-one",
         "ResourceProperties": {"ServiceToken": token, **sent("one", 4)},
         "OldResourceProperties": {"ServiceToken": token, **sent("one", 3)}}]

    cloudformation.update_stack(StackName="custom", TemplateBody=template(name="two", count=4),
                                Capabilities=["CAPABILITY_IAM"])
    assert requests(door, found["Requests"]) == [
        {"RequestType": "Update", **common, "PhysicalResourceId": "thing-one",
         "ResourceProperties": {"ServiceToken": token, **sent("two", 4)},
         "OldResourceProperties": {"ServiceToken": token, **sent("one", 4)}},
        # a new physical id replaces the resource: the old one is deleted in the cleanup, with its properties
        {"RequestType": "Delete", **common, "PhysicalResourceId": "thing-one",
         "ResourceProperties": {"ServiceToken": token, **sent("one", 4)}}]
    assert door.client("ssm").get_parameter(Name=greeting)["Parameter"]["Value"] == "hello two"
    update = [event for event in events(cloudformation, "custom") if event[0] == "Thing"][-4:]
    assert update == [("Thing", "Custom::Thing", "UPDATE_IN_PROGRESS", None),
                      ("Thing", "Custom::Thing", "UPDATE_COMPLETE", None),
                      ("Thing", "Custom::Thing", "DELETE_IN_PROGRESS", None),
                      ("Thing", "Custom::Thing", "DELETE_COMPLETE", None)]

    cloudformation.delete_stack(StackName="custom")
    assert cloudformation.describe_stacks(StackName=stack_id)["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    assert door.client("lambda").list_functions()["Functions"] == []


def test_a_failed_response_rolls_the_stack_back_with_its_reason(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="refused", Capabilities=["CAPABILITY_IAM"],
                                TemplateBody=template(type_="AWS::CloudFormation::CustomResource",
                                                      extra="Refuse: true"))
    stack = cloudformation.describe_stacks(StackName="refused")["Stacks"][0]
    assert stack["StackStatus"] == "ROLLBACK_COMPLETE"
    thing = [event for event in events(cloudformation, "refused") if event[0] == "Thing"]
    failed = thing[1]
    assert failed[:3] == ("Thing", "AWS::CloudFormation::CustomResource", "CREATE_FAILED")
    assert re.fullmatch(r"Received response status \[FAILED\] from custom resource\. Message returned: no thanks "
                        r"\(RequestId: [0-9a-f-]{36}\)", failed[3])
    # the physical id its failed Create named is sent a Delete by the rollback
    assert thing[2:] == [("Thing", "AWS::CloudFormation::CustomResource", "DELETE_IN_PROGRESS", None),
                         ("Thing", "AWS::CloudFormation::CustomResource", "DELETE_COMPLETE", None)]
    stack_events = [event for event in events(cloudformation, "refused") if event[1] == STACK]
    assert stack_events[1][2:] == ("ROLLBACK_IN_PROGRESS", "The following resource(s) failed to create: [Thing]. "
                                                           "Rollback requested by user.")
    assert door.client("lambda").list_functions()["Functions"] == []


def test_a_function_that_fails_without_answering_fails_its_resource_at_once(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="crashed", TemplateBody=template(extra="Crash: true"),
                                Capabilities=["CAPABILITY_IAM"])
    assert cloudformation.describe_stacks(StackName="crashed")["Stacks"][0]["StackStatus"] == "ROLLBACK_COMPLETE"
    failed = next(event for event in events(cloudformation, "crashed") if event[2] == "CREATE_FAILED")
    # AWS's words when no response came (seen in public issues, e.g. aws-samples/
    # aws-security-reference-architecture-examples#162); Eddy adds the function's error instead of waiting an hour
    assert re.fullmatch(
        r"CloudFormation did not receive a response from your Custom Resource\. Please check your logs for requestId "
        r"\[[0-9a-f-]{36}\]\. If you are using the Python cfn-response module, you may need to update your Lambda "
        r"function code so that CloudFormation can attach the updated version\. The function failed: "
        r"RuntimeError: the provider crashed", failed[3])


def test_a_changed_service_token_fails_the_update_and_rolls_it_back(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="token", TemplateBody=template(), Capabilities=["CAPABILITY_IAM"])
    changed = template().replace("ServiceToken: !GetAtt Provider.Arn",
                                 "ServiceToken: !Sub '${Provider.Arn}:$LATEST'")
    cloudformation.update_stack(StackName="token", TemplateBody=changed, Capabilities=["CAPABILITY_IAM"])
    assert cloudformation.describe_stacks(StackName="token")["Stacks"][0]["StackStatus"] == "UPDATE_ROLLBACK_COMPLETE"
    assert ("Thing", "Custom::Thing", "UPDATE_FAILED", "Modifying service token is not allowed.") in events(
        cloudformation, "token")


def test_a_response_nobody_awaits_is_refused(door):
    s3 = door.client("s3")
    with pytest.raises(s3.exceptions.ClientError) as refused:
        s3.put_object(Bucket="cloudformation-custom-resource-response-useast1", Key="nothing|Here|x",
                      Body=b'{"Status": "SUCCESS"}')
    assert (refused.value.response["Error"]["Code"], refused.value.response["ResponseMetadata"]["HTTPStatusCode"]) \
        == ("AccessDenied", 403)


NODE_CODE = """
var response = require('cfn-response');
exports.handler = function (event, context) {
  response.send(event, context, response.SUCCESS, {Greeting: 'hi ' + event.ResourceProperties.Name});
};
"""

NODE_PROVIDER = """
Resources:
""" + ROLE + """
""" + inline_function("Provider", NODE_CODE, runtime="nodejs20.x") + """  Thing:
    Type: Custom::Thing
    Properties: {ServiceToken: !GetAtt Provider.Arn, Name: node}
Outputs:
  Greeting: {Value: !GetAtt Thing.Greeting}
  Thing: {Value: !Ref Thing}
"""


def test_inline_node_code_answers_with_the_cfn_response_module(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="node", TemplateBody=NODE_PROVIDER, Capabilities=["CAPABILITY_IAM"])
    assert cloudformation.describe_stacks(StackName="node")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    found = outputs(cloudformation, "node")
    # cfn-response's physical id is the invocation's log stream (AWS's module does the same)
    assert re.fullmatch(r"\d{4}/\d{2}/\d{2}/\[\$LATEST\][0-9a-f]{32}", found["Thing"])
    assert found["Greeting"] == "hi node"
    stack_id = cloudformation.describe_stacks(StackName="node")["Stacks"][0]["StackId"]
    cloudformation.delete_stack(StackName="node")
    assert [event[2] for event in events(cloudformation, stack_id) if event[0] == "Thing"][-2:] == [
        "DELETE_IN_PROGRESS", "DELETE_COMPLETE"]


# CDK's Node.js providers (aws-cdk-lib's Provider framework, outbound.ts; AwsCustomResource's handler) PUT the response
# with https.request({hostname, path}) from the parsed ResponseURL: port 443 over TLS on AWS's S3 URL
HTTPS_CODE = """
const https = require('https');
exports.handler = async (event) => {
  const body = JSON.stringify({Status: 'SUCCESS', PhysicalResourceId: 'https-' + event.ResourceProperties.Name,
                               StackId: event.StackId, RequestId: event.RequestId,
                               LogicalResourceId: event.LogicalResourceId, Data: {Greeting: 'hi over https'}});
  const url = new URL(event.ResponseURL);
  await new Promise((resolve, reject) => {
    const request = https.request({hostname: url.hostname, path: url.pathname + url.search, method: 'PUT',
                                   headers: {'content-type': '', 'content-length': Buffer.byteLength(body)}},
                                  (response) => { response.resume(); response.on('end', resolve); });
    request.on('error', reject);
    request.end(body);
  });
};
"""

HTTPS_PROVIDER = NODE_PROVIDER.replace(inline_function("Provider", NODE_CODE, runtime="nodejs20.x"),
                                       inline_function("Provider", HTTPS_CODE, runtime="nodejs20.x"))


def test_node_code_answering_with_https_request_to_the_url_host_reaches_eddy(door):
    """Eddy's ResponseURL is plain HTTP on its own port: an https request to its host is sent there, as AWS's PUT
    reaches S3 (node_own_endpoint.mjs)."""
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="https", TemplateBody=HTTPS_PROVIDER, Capabilities=["CAPABILITY_IAM"])
    stack = cloudformation.describe_stacks(StackName="https")["Stacks"][0]
    assert (stack["StackStatus"], outputs(cloudformation, "https")) == (
        "CREATE_COMPLETE", {"Greeting": "hi over https", "Thing": "https-node"})
    cloudformation.delete_stack(StackName="https")
    assert [event[2] for event in events(cloudformation, stack["StackId"]) if event[0] == "Thing"][-2:] == [
        "DELETE_IN_PROGRESS", "DELETE_COMPLETE"]


SNS_CODE = """
import json, cfnresponse
def handler(event, context):
    request = json.loads(event["Records"][0]["Sns"]["Message"])
    name = request["ResourceProperties"]["Name"]
    cfnresponse.send(request, context, cfnresponse.SUCCESS, {"Greeting": "hi " + name}, "topic-thing-" + name)
"""

SNS_PROVIDER = """
Resources:
""" + ROLE + inline_function("Provider", SNS_CODE) + """
  Requests:
    Type: AWS::SNS::Topic
    Properties:
      Subscription: [{Protocol: lambda, Endpoint: !GetAtt Provider.Arn}]
  Allow:
    Type: AWS::Lambda::Permission
    Properties: {Action: 'lambda:InvokeFunction', FunctionName: !Ref Provider, Principal: sns.amazonaws.com,
                 SourceArn: !Ref Requests}
  Thing:
    Type: Custom::Thing
    DependsOn: Allow
    Properties: {ServiceToken: !Ref Requests, ServiceTimeout: 300, Name: topic}
Outputs:
  Greeting: {Value: !GetAtt Thing.Greeting}
  Thing: {Value: !Ref Thing}
"""


def test_a_custom_resource_whose_service_token_is_a_topic_is_answered_by_its_subscriber(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="topic", TemplateBody=SNS_PROVIDER, Capabilities=["CAPABILITY_IAM"])
    assert cloudformation.describe_stacks(StackName="topic")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    assert outputs(cloudformation, "topic") == {"Greeting": "hi topic", "Thing": "topic-thing-topic"}
    cloudformation.delete_stack(StackName="topic")
    assert door.client("sns").list_topics()["Topics"] == []


SILENT = """
Resources:
""" + ROLE + inline_function("Provider", """
def handler(event, context):
    return "forgot to answer"
""") + """
  Thing:
    Type: Custom::Thing
    Properties: {ServiceToken: !GetAtt Provider.Arn, ServiceTimeout: 2}
"""


def test_a_function_that_returns_without_answering_fails_its_resource_after_the_service_timeout(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="silent", TemplateBody=SILENT, Capabilities=["CAPABILITY_IAM"])
    assert cloudformation.describe_stacks(StackName="silent")["Stacks"][0]["StackStatus"] == "ROLLBACK_COMPLETE"
    thing = [event for event in events(cloudformation, "silent") if event[0] == "Thing"]
    failed = thing[1]
    assert failed[:3] == ("Thing", "Custom::Thing", "CREATE_FAILED")
    assert re.fullmatch(r"CloudFormation did not receive a response from your Custom Resource\. Please check your "
                        r"logs for requestId \[[0-9a-f-]{36}\]\. If you are using the Python cfn-response module, you "
                        r"may need to update your Lambda function code so that CloudFormation can attach the updated "
                        r"version\.", failed[3])
    described = cloudformation.describe_stack_events(StackName="silent")["StackEvents"]
    times = {event["ResourceStatus"]: event["Timestamp"] for event in described if event["LogicalResourceId"] == "Thing"
             and event["ResourceStatus"] in ("CREATE_IN_PROGRESS", "CREATE_FAILED")}
    assert (times["CREATE_FAILED"] - times["CREATE_IN_PROGRESS"]).total_seconds() >= 2  # its ServiceTimeout
