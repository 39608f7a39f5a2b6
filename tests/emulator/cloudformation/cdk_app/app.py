"""The CDK app tests/emulator/cloudformation/test_cdk.py deploys with the aws-cdk CLI: the same app as app/'s SAM
template, written with aws-cdk-lib (the function's code is app/src, copied beside this file as src/). A table's
stream to a function's alias (of fn.currentVersion) with batch item failures and an SQS on-failure destination, a
bucket notifying the function
(CDK makes that notification through its BucketNotificationsHandler custom resource) and emptied by CDK's
auto_delete_objects provider before it is deleted, the function's log group's retention set by CDK's LogRetention,
a topic to a queue, and a function with a public function URL; two custom resources made with CDK's Node.js
handlers: one through the custom-resources Provider framework (its function loads @aws-sdk/client-sfn, invokes this
app's Python on_event function and PUTs the answer with https.request), an AwsCustomResource calling SSM
PutParameter (DeleteParameter on delete), installLatestAwsSdk at its default. The context value batch_size sets the
mapping's batch size (10 when not given)."""

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_notifications as s3_notifications
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from aws_cdk import custom_resources as cr


class Pipeline(cdk.Stack):
    def __init__(self, scope: cdk.App, name: str) -> None:
        super().__init__(scope, name)
        destroy = cdk.RemovalPolicy.DESTROY
        orders = dynamodb.Table(self, "OrdersTable", removal_policy=destroy,
                                partition_key=dynamodb.Attribute(name="pk", type=dynamodb.AttributeType.STRING),
                                billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
                                stream=dynamodb.StreamViewType.NEW_AND_OLD_IMAGES)
        copies = dynamodb.Table(self, "CopiesTable", removal_policy=destroy,
                                partition_key=dynamodb.Attribute(name="id", type=dynamodb.AttributeType.STRING),
                                billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST)
        failures = sqs.Queue(self, "FailuresQueue")
        # auto_delete_objects: CDK's Node.js provider (Custom::S3AutoDeleteObjects) empties the bucket before
        # CloudFormation deletes it, so `cdk destroy` needs no emptying first
        uploads = s3.Bucket(self, "UploadsBucket", removal_policy=destroy, auto_delete_objects=True)
        copier = lambda_.Function(self, "CopierFunction", runtime=lambda_.Runtime.PYTHON_3_11, handler="app.handler",
                                  code=lambda_.Code.from_asset("src"), timeout=cdk.Duration.seconds(30),
                                  environment={"COPIES": copies.table_name})
        copies.grant_read_write_data(copier)
        # the stream invokes the alias "live" of the function's current version: a code change publishes a new
        # version (currentVersion's logical id is a hash of the function) and moves the alias to it
        # CDK's LogRetention (Custom::LogRetention, its Node.js handler): the function's log group kept a week,
        # deleted with the stack (RemovalPolicy destroy)
        logs.LogRetention(self, "CopierLogRetention", log_group_name=f"/aws/lambda/{copier.function_name}",
                          retention=logs.RetentionDays.ONE_WEEK, removal_policy=destroy)
        live = lambda_.Alias(self, "CopierLive", alias_name="live", version=copier.current_version)
        live.add_event_source(sources.DynamoEventSource(
            orders, starting_position=lambda_.StartingPosition.TRIM_HORIZON, retry_attempts=1,
            batch_size=int(self.node.try_get_context("batch_size") or 10), report_batch_item_failures=True,
            on_failure=sources.SqsDlq(failures)))
        uploads.add_event_notification(s3.EventType.OBJECT_CREATED, s3_notifications.LambdaDestination(copier))
        # a function URL (CDK's FunctionUrl: AWS::Lambda::Url and the two public permissions AuthType NONE needs)
        web = lambda_.Function(self, "WebFunction", runtime=lambda_.Runtime.PYTHON_3_12, handler="index.handler",
                               code=lambda_.Code.from_inline(
                                   "def handler(event, context):\n"
                                   "    return {'statusCode': 200, 'body': 'web ' + event['rawPath']}\n"))
        web_url = web.add_function_url(auth_type=lambda_.FunctionUrlAuthType.NONE)
        topic, inbox = sns.Topic(self, "NotesTopic"), sqs.Queue(self, "InboxQueue")
        topic.add_subscription(subscriptions.SqsSubscription(inbox, raw_message_delivery=True))
        # the Provider framework calls this function on each Create, Update and Delete; it answers with a dict
        greeter = lambda_.Function(self, "GreeterFunction", runtime=lambda_.Runtime.PYTHON_3_12,
                                   handler="index.handler", environment={"COPIES": copies.table_name},
                                   code=lambda_.Code.from_inline(
                                       "import os, boto3\n"
                                       "def handler(event, context):\n"
                                       "    name = event['ResourceProperties']['Name']\n"
                                       "    if event['RequestType'] == 'Create':\n"
                                       "        boto3.client('dynamodb').put_item(\n"
                                       "            TableName=os.environ['COPIES'], Item={\n"
                                       "            'id': {'S': 'greeting:' + name}, 'mark': {'S': 'provider'}})\n"
                                       "    return {'PhysicalResourceId': 'greeting-' + name,\n"
                                       "            'Data': {'Greeting': 'hello ' + name}}\n"))
        copies.grant_write_data(greeter)
        provider = cr.Provider(self, "GreeterProvider", on_event_handler=greeter)
        greeting = cdk.CustomResource(self, "GreetingResource", properties={"Name": "eddy"},
                                      service_token=provider.service_token)
        # AwsCustomResource: CDK's Node.js function makes the SDK call; install_latest_aws_sdk left at its default
        # (true): its run-time `npm install` of @aws-sdk/client-ssm, which Eddy's runtime provides, is skipped
        parameter = {"Name": "/cdk-app/note"}
        note = cr.AwsCustomResource(
            self, "NoteParameter",
            on_create=cr.AwsSdkCall(service="SSM", action="putParameter",
                                    parameters={**parameter, "Value": "noted", "Type": "String"},
                                    physical_resource_id=cr.PhysicalResourceId.of(parameter["Name"])),
            on_delete=cr.AwsSdkCall(service="SSM", action="deleteParameter", parameters=parameter),
            policy=cr.AwsCustomResourcePolicy.from_sdk_calls(resources=cr.AwsCustomResourcePolicy.ANY_RESOURCE))
        for name, value in (("Greeting", greeting.get_att_string("Greeting")),
                            ("NoteVersion", note.get_response_field("Version"))):
            cdk.CfnOutput(self, name, value=value)
        for name, value in (("Orders", orders.table_name), ("Copies", copies.table_name),
                            ("Uploads", uploads.bucket_name), ("Topic", topic.topic_arn), ("Inbox", inbox.queue_url),
                            ("Copier", copier.function_name), ("WebUrl", web_url.url)):
            cdk.CfnOutput(self, name, value=value)


app = cdk.App()
Pipeline(app, "cdk-app")
app.synth()
