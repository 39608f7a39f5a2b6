"""The resource types beyond the stream pipeline (both doors): an S3 bucket notifying a function, an SNS topic with
an SQS subscription, a queue policy, IAM policies, log groups, SSM parameters, Lambda permissions; Outputs, Exports
and ImportValue across stacks, and an export in use refusing its stack's deletion."""

import json

from tests.emulator.cloudformation.helpers import STACK, outputs
from tests.emulator.cloudformation.templates import ROLE, inline_function

WIRING = """
Resources:
""" + ROLE + """
  Uploads:
    Type: AWS::SQS::Queue
""" + inline_function(
    "Notifier",
    """
import json, os, boto3
sqs = boto3.client("sqs")
def handler(event, context):
    for record in event["Records"]:
        sqs.send_message(QueueUrl=os.environ["QUEUE"], MessageBody=record["s3"]["object"]["key"])
""",
    "{QUEUE: !Ref Uploads}",
) + """  Allow:
    Type: AWS::Lambda::Permission
    Properties:
      Action: lambda:InvokeFunction
      FunctionName: !Ref Notifier
      Principal: s3.amazonaws.com
      SourceAccount: !Ref AWS::AccountId
  Bucket:
    Type: AWS::S3::Bucket
    DependsOn: Allow
    Properties:
      NotificationConfiguration:
        LambdaConfigurations:
          - Event: s3:ObjectCreated:*
            Function: !GetAtt Notifier.Arn
            Filter: {S3Key: {Rules: [{Name: prefix, Value: in/}]}}
  Topic:
    Type: AWS::SNS::Topic
  Inbox:
    Type: AWS::SQS::Queue
  InboxPolicy:
    Type: AWS::SQS::QueuePolicy
    Properties:
      Queues: [!Ref Inbox]
      PolicyDocument:
        Version: '2012-10-17'
        Statement: [{Effect: Allow, Principal: {Service: sns.amazonaws.com}, Action: 'sqs:SendMessage',
                     Resource: !GetAtt Inbox.Arn}]
  Subscription:
    Type: AWS::SNS::Subscription
    Properties:
      TopicArn: !Ref Topic
      Protocol: sqs
      Endpoint: !GetAtt Inbox.Arn
      RawMessageDelivery: true
  Logs:
    Type: AWS::Logs::LogGroup
    Properties: {RetentionInDays: 7}
  Setting:
    Type: AWS::SSM::Parameter
    Properties: {Name: /app/bucket, Type: String, Value: !Ref Bucket}
  Extra:
    Type: AWS::IAM::Policy
    Properties:
      PolicyName: extra
      Roles: [!Ref Role]
      PolicyDocument:
        Version: '2012-10-17'
        Statement: [{Effect: Allow, Action: 'sqs:*', Resource: '*'}]
Outputs:
  Bucket: {Value: !Ref Bucket, Export: {Name: wiring-bucket}}
  Topic: {Value: !Ref Topic}
  Uploads: {Value: !Ref Uploads}
  Inbox: {Value: !Ref Inbox}
  Logs: {Value: !GetAtt Logs.Arn}
  Role: {Value: !Ref Role}
"""


def _bodies(sqs, url):
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=20)["Messages"]
    return [message["Body"] for message in messages]


def test_a_bucket_notifies_its_function_and_a_topic_delivers_to_its_queue(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="wiring", TemplateBody=WIRING, Capabilities=["CAPABILITY_IAM"])
    assert cloudformation.describe_stacks(StackName="wiring")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    found = outputs(cloudformation, "wiring")
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.put_object(Bucket=found["Bucket"], Key="in/report.csv", Body=b"1,2")
    s3.put_object(Bucket=found["Bucket"], Key="out/ignored.csv", Body=b"3")
    door.wait_idle(timeout=120)
    assert _bodies(sqs, found["Uploads"]) == ["in/report.csv"]
    door.client("sns").publish(TopicArn=found["Topic"], Message="hello")
    assert _bodies(sqs, found["Inbox"]) == ["hello"]
    policy = json.loads(sqs.get_queue_attributes(QueueUrl=found["Inbox"], AttributeNames=["Policy"])[
        "Attributes"]["Policy"])
    assert policy["Statement"][0]["Principal"] == {"Service": "sns.amazonaws.com"}
    logs = door.client("logs").describe_log_groups(logGroupNamePrefix="wiring-")["logGroups"]
    assert [(group["arn"], group["retentionInDays"]) for group in logs] == [(found["Logs"], 7)]
    assert door.client("ssm").get_parameter(Name="/app/bucket")["Parameter"]["Value"] == found["Bucket"]
    iam = door.client("iam")
    assert iam.list_role_policies(RoleName=found["Role"])["PolicyNames"] == ["extra"]
    notifier = cloudformation.describe_stack_resource(StackName="wiring", LogicalResourceId="Notifier")[
        "StackResourceDetail"]["PhysicalResourceId"]
    statement = json.loads(door.client("lambda").get_policy(FunctionName=notifier)["Policy"])["Statement"]
    assert [(entry["Principal"], entry["Action"]) for entry in statement] == [
        ({"Service": "s3.amazonaws.com"}, "lambda:InvokeFunction")]
    assert cloudformation.list_exports()["Exports"] == [{
        "ExportingStackId": cloudformation.describe_stacks(StackName="wiring")["Stacks"][0]["StackId"],
        "Name": "wiring-bucket", "Value": found["Bucket"]}]


def test_an_imported_export_keeps_its_stack_until_the_importer_is_gone(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="exporter", TemplateBody="""
Resources:
  Queue: {Type: AWS::SQS::Queue}
Outputs:
  Arn: {Value: !GetAtt Queue.Arn, Export: {Name: shared-queue}}
""")
    cloudformation.create_stack(StackName="importer", TemplateBody="""
Resources:
  Pointer:
    Type: AWS::SSM::Parameter
    Properties: {Name: /shared/queue, Type: String, Value: !ImportValue shared-queue}
""")
    arn = outputs(cloudformation, "exporter")["Arn"]
    assert door.client("ssm").get_parameter(Name="/shared/queue")["Parameter"]["Value"] == arn
    cloudformation.delete_stack(StackName="exporter")
    stack = cloudformation.describe_stacks(StackName="exporter")["Stacks"][0]
    assert (stack["StackStatus"], stack["StackStatusReason"]) == (
        "DELETE_FAILED", "Export shared-queue cannot be deleted as it is in use by importer")
    cloudformation.delete_stack(StackName="importer")
    cloudformation.delete_stack(StackName="exporter")
    assert cloudformation.list_exports()["Exports"] == []
    assert door.client("sqs").list_queues().get("QueueUrls", []) == []
    events = cloudformation.describe_stack_events(StackName=stack["StackId"])["StackEvents"]
    assert [(event["ResourceStatus"], event.get("ResourceStatusReason")) for event in events
            if event["ResourceType"] == STACK][:4] == [
        ("DELETE_COMPLETE", None), ("DELETE_IN_PROGRESS", "User Initiated"),
        ("DELETE_FAILED", "Export shared-queue cannot be deleted as it is in use by importer"),
        ("DELETE_IN_PROGRESS", "User Initiated")]


def test_a_missing_import_fails_the_resource_and_a_taken_export_name_fails_the_stack(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="lonely", TemplateBody="""
Resources:
  Pointer:
    Type: AWS::SSM::Parameter
    Properties: {Type: String, Value: !ImportValue nowhere}
""")
    assert [(event["LogicalResourceId"], event["ResourceStatus"], event.get("ResourceStatusReason"))
            for event in cloudformation.describe_stack_events(StackName="lonely")["StackEvents"]
            if event["ResourceStatus"] == "CREATE_FAILED"] == [
        ("Pointer", "CREATE_FAILED", "No export named nowhere found.")]
    exporting = """
Resources:
  Queue: {Type: AWS::SQS::Queue}
Outputs:
  Url: {Value: !Ref Queue, Export: {Name: taken}}
"""
    cloudformation.create_stack(StackName="first", TemplateBody=exporting)
    cloudformation.create_stack(StackName="second", TemplateBody=exporting)
    second = cloudformation.describe_stacks(StackName="second")["Stacks"][0]
    assert second["StackStatus"] == "ROLLBACK_COMPLETE"
    assert [event.get("ResourceStatusReason") for event in
            cloudformation.describe_stack_events(StackName="second")["StackEvents"]
            if event["ResourceStatus"] == "ROLLBACK_IN_PROGRESS"] == [
        "Export with name taken is already exported by stack first"]
    assert len(door.client("sqs").list_queues()["QueueUrls"]) == 1


LOG_GROUP = """
Resources:
  Logs:
    Type: AWS::Logs::LogGroup
    Properties: {LogGroupName: /shop/orders%s}
"""


def test_a_log_groups_retention_changes_in_place_and_goes(door):
    cloudformation, logs = door.client("cloudformation"), door.client("logs")

    def retention() -> list:
        return [(group["logGroupName"], group.get("retentionInDays"))
                for group in logs.describe_log_groups(logGroupNamePrefix="/shop")["logGroups"]]

    cloudformation.create_stack(StackName="logs", TemplateBody=LOG_GROUP % ", RetentionInDays: 7")
    assert retention() == [("/shop/orders", 7)]
    cloudformation.update_stack(StackName="logs", TemplateBody=LOG_GROUP % ", RetentionInDays: 30")
    assert retention() == [("/shop/orders", 30)]  # in place ("Update requires: No interruption")
    cloudformation.update_stack(StackName="logs", TemplateBody=LOG_GROUP % "")
    assert retention() == [("/shop/orders", None)]  # kept forever, as a group without a policy is
    cloudformation.delete_stack(StackName="logs")
    assert retention() == []


LOGGED_TOPIC = """
Resources:
  Topic:
    Type: AWS::SNS::Topic
    Properties:
      TopicName: logged
      DeliveryStatusLogging:
%s
"""
SQS_LOGGING = """        - Protocol: sqs
          SuccessFeedbackSampleRate: "45"
          SuccessFeedbackRoleArn: arn:aws:iam::123456789012:role/SNSSuccessFeedback_test1
          FailureFeedbackRoleArn: arn:aws:iam::123456789012:role/SNSFailureFeedback_test2"""


def test_a_topics_delivery_status_logging_becomes_its_feedback_attributes(door):
    """AWS::SNS::Topic's DeliveryStatusLogging (the SNS Developer Guide's "Configuring delivery status logging using
    AWS CloudFormation" example): each LoggingConfig sets its protocol's <Protocol>SuccessFeedbackRoleArn,
    SuccessFeedbackSampleRate and FailureFeedbackRoleArn, changed in place and emptied when taken out; a Protocol the
    property does not take fails the resource."""
    cloudformation, sns = door.client("cloudformation"), door.client("sns")

    def feedback() -> dict[str, str]:
        attributes = sns.get_topic_attributes(TopicArn="arn:aws:sns:us-east-1:123456789012:logged")["Attributes"]
        assert "DeliveryStatusLogging" not in attributes
        return {name: value for name, value in attributes.items() if "Feedback" in name}

    cloudformation.create_stack(StackName="logged", TemplateBody=LOGGED_TOPIC % SQS_LOGGING)
    assert feedback() == {"SQSSuccessFeedbackSampleRate": "45",
                          "SQSSuccessFeedbackRoleArn": "arn:aws:iam::123456789012:role/SNSSuccessFeedback_test1",
                          "SQSFailureFeedbackRoleArn": "arn:aws:iam::123456789012:role/SNSFailureFeedback_test2"}
    cloudformation.update_stack(StackName="logged", TemplateBody=LOGGED_TOPIC % """        - Protocol: http/s
          FailureFeedbackRoleArn: arn:aws:iam::123456789012:role/SNSFailureFeedback_test2""")
    assert feedback() == {"HTTPFailureFeedbackRoleArn": "arn:aws:iam::123456789012:role/SNSFailureFeedback_test2"}

    cloudformation.create_stack(StackName="wrong", TemplateBody=(LOGGED_TOPIC % """        - Protocol: smtp
          FailureFeedbackRoleArn: arn:aws:iam::123456789012:role/SNSFailureFeedback_test2""").replace("logged", "w"))
    assert [(event["LogicalResourceId"], event.get("ResourceStatusReason"))
            for event in cloudformation.describe_stack_events(StackName="wrong")["StackEvents"]
            if event["ResourceStatus"] == "CREATE_FAILED"] == [
        ("Topic", "Properties validation failed for resource with message: #/DeliveryStatusLogging/0/Protocol: smtp "
                  "is not a valid enum value")]
