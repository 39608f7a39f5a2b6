"""In-place updates of the plain services' resources (both doors): where AWS's resource reference says "Update
requires: No interruption" (a topic's DisplayName, a queue's attributes, a queue or bucket policy's document, a
subscription's FilterPolicy, an SSM parameter's Value, an IAM policy's document, a bucket's
NotificationConfiguration), an update changes the resource and keeps it: every physical id stays, and the new settings
are what the services answer and how they behave."""

from __future__ import annotations

import json

from tests.emulator.cloudformation.helpers import events, outputs
from tests.emulator.cloudformation.templates import ROLE

TEMPLATE = """
Parameters:
  Stage: {Type: String, AllowedValues: [one, two]}
Mappings:
  Stages:
    one: {Timeout: 30, Colour: red, Value: first, Action: 'sqs:*', Prefix: in/}
    two: {Timeout: 60, Colour: blue, Value: second, Action: 'sns:*', Prefix: up/}
Resources:""" + ROLE + """
  Topic:
    Type: AWS::SNS::Topic
    Properties: {DisplayName: !Ref Stage}
  Inbox:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: !FindInMap [Stages, !Ref Stage, Timeout]}
  InboxPolicy:
    Type: AWS::SQS::QueuePolicy
    Properties:
      Queues: [!Ref Inbox]
      PolicyDocument:
        Version: '2012-10-17'
        Statement: [{Sid: !Ref Stage, Effect: Allow, Principal: {Service: sns.amazonaws.com},
                     Action: 'sqs:SendMessage', Resource: !GetAtt Inbox.Arn}]
  Subscription:
    Type: AWS::SNS::Subscription
    Properties:
      TopicArn: !Ref Topic
      Protocol: sqs
      Endpoint: !GetAtt Inbox.Arn
      RawMessageDelivery: true
      FilterPolicy: {colour: [!FindInMap [Stages, !Ref Stage, Colour]]}
  Setting:
    Type: AWS::SSM::Parameter
    Properties: {Name: /app/setting, Type: String, Value: !FindInMap [Stages, !Ref Stage, Value]}
  Extra:
    Type: AWS::IAM::Policy
    Properties:
      PolicyName: extra
      Roles: [!Ref Role]
      PolicyDocument:
        Version: '2012-10-17'
        Statement: [{Effect: Allow, Action: !FindInMap [Stages, !Ref Stage, Action], Resource: '*'}]
  Uploads:
    Type: AWS::SQS::Queue
  Bucket:
    Type: AWS::S3::Bucket
    Properties:
      NotificationConfiguration:
        QueueConfigurations:
          - Event: 's3:ObjectCreated:*'
            Queue: !GetAtt Uploads.Arn
            Filter: {S3Key: {Rules: [{Name: prefix, Value: !FindInMap [Stages, !Ref Stage, Prefix]}]}}
  BucketPolicy:
    Type: AWS::S3::BucketPolicy
    Properties:
      Bucket: !Ref Bucket
      PolicyDocument:
        Version: '2012-10-17'
        Statement: [{Sid: !Ref Stage, Effect: Allow, Principal: {AWS: !Ref AWS::AccountId}, Action: 's3:GetObject',
                     Resource: !Sub '${Bucket.Arn}/*'}]
Outputs:
  Topic: {Value: !Ref Topic}
  Inbox: {Value: !Ref Inbox}
  Uploads: {Value: !Ref Uploads}
  Bucket: {Value: !Ref Bucket}
  Role: {Value: !Ref Role}
"""


def _deploy(cloudformation, verb: str, stage: str) -> dict[str, str]:
    getattr(cloudformation, f"{verb}_stack")(StackName="settings", TemplateBody=TEMPLATE, Capabilities=["CAPABILITY_IAM"],
                                             Parameters=[{"ParameterKey": "Stage", "ParameterValue": stage}])
    status = cloudformation.describe_stacks(StackName="settings")["Stacks"][0]["StackStatus"]
    assert status == f"{verb.upper()}_COMPLETE", events(cloudformation, "settings")
    return {resource["LogicalResourceId"]: resource["PhysicalResourceId"]
            for resource in cloudformation.list_stack_resources(StackName="settings")["StackResourceSummaries"]}


def _bodies(door, url: str) -> list[str]:
    door.wait_idle(timeout=120)
    sqs, found = door.client("sqs"), []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        found += [message["Body"] for message in messages]
        sqs.delete_message_batch(QueueUrl=url, Entries=[
            {"Id": str(i), "ReceiptHandle": message["ReceiptHandle"]} for i, message in enumerate(messages)])
    return found


def test_settings_change_in_place_and_take_effect(door):
    cloudformation = door.client("cloudformation")
    before = _deploy(cloudformation, "create", "one")
    found = outputs(cloudformation, "settings")
    _bodies(door, found["Uploads"])  # S3's s3:TestEvent
    assert _deploy(cloudformation, "update", "two") == before  # every resource kept: nothing replaced
    updated = [logical_id for logical_id, _, status, _ in events(cloudformation, "settings")
               if status == "UPDATE_COMPLETE" and logical_id != "settings"]
    assert sorted(updated) == ["Bucket", "BucketPolicy", "Extra", "Inbox", "InboxPolicy", "Setting", "Subscription",
                               "Topic"]

    sns, sqs, s3 = door.client("sns"), door.client("sqs"), door.client("s3")
    assert sns.get_topic_attributes(TopicArn=found["Topic"])["Attributes"]["DisplayName"] == "two"
    attributes = sqs.get_queue_attributes(QueueUrl=found["Inbox"], AttributeNames=["VisibilityTimeout", "Policy"])[
        "Attributes"]
    assert (attributes["VisibilityTimeout"], json.loads(attributes["Policy"])["Statement"][0]["Sid"]) == ("60", "two")
    parameter = door.client("ssm").get_parameter(Name="/app/setting")["Parameter"]
    assert (parameter["Value"], parameter["Version"]) == ("second", 2)
    policy = door.client("iam").get_role_policy(RoleName=found["Role"], PolicyName="extra")["PolicyDocument"]
    assert policy["Statement"] == [{"Effect": "Allow", "Action": "sns:*", "Resource": "*"}]
    assert json.loads(s3.get_bucket_policy(Bucket=found["Bucket"])["Policy"])["Statement"][0]["Sid"] == "two"

    # the subscription's new filter policy delivers blue, not red
    for colour in ("red", "blue"):
        sns.publish(TopicArn=found["Topic"], Message=colour,
                    MessageAttributes={"colour": {"DataType": "String", "StringValue": colour}})
    assert _bodies(door, found["Inbox"]) == ["blue"]
    # the bucket's new notification prefix: up/ notifies, in/ no longer does
    s3.put_object(Bucket=found["Bucket"], Key="in/old.csv", Body=b"1")
    s3.put_object(Bucket=found["Bucket"], Key="up/new.csv", Body=b"2")
    records = [json.loads(body).get("Records", []) for body in _bodies(door, found["Uploads"])]
    assert [record["s3"]["object"]["key"] for batch in records for record in batch] == ["up/new.csv"]
