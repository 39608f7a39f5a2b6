"""Triggers of a version or an alias, in both doors: an event source mapping on an alias's ARN runs the alias's
version (and follows the alias when it moves), an asynchronous invocation of an alias uses the alias's own event
invoke config and its record names the alias and the version that ran, and a version and an alias each have their own
policy. The expected shapes are AWS's: the invocation record as the Lambda Developer Guide documents it ("Capturing
records of Lambda asynchronous invocations": requestContext.functionArn qualified, responseContext.executedVersion),
and policies as LocalStack's AWS-validated test_lambda_api.snapshot.json recorded them
(TestLambdaPermissions::test_lambda_permission_fn_versioning: a version's and an alias's statements have the qualified
ARN as Resource, a wrong alias RevisionId is "Call the GetPolicy API")."""

from __future__ import annotations

import json

from tests.emulator.functions.test_functions import create_function, zip_of
from tests.emulator.functions.test_versions import ARN, refused
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.trigger_helpers import create_table, put

REPORTER = '''
import json, os, boto3
def handler(event, context):
    boto3.client("sqs").send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps({
        "says": %r, "version": context.function_version, "arn": context.invoked_function_arn,
        "keys": [r["dynamodb"]["Keys"]["pk"]["S"] for r in event.get("Records", []) if "dynamodb" in r]}))
    return {"says": %r}
'''


def reporter(door, name: str) -> tuple[str, object]:
    """A function with versions 1 ("one") and 2 ("two") that reports each invocation to the queue "seen"; $LATEST
    says "two" too."""
    lam, sqs = door.client("lambda"), door.client("sqs")
    url = sqs.create_queue(QueueName="seen")["QueueUrl"]
    create_function(lam, name, REPORTER % ("one", "one"), Environment={"Variables": {"QUEUE_URL": url}}, Publish=True)
    lam.update_function_code(FunctionName=name, ZipFile=zip_of({"app.py": REPORTER % ("two", "two")}), Publish=True)
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)  # $LATEST runs "one" until the update completes
    return url, sqs


def test_a_stream_mapping_on_an_alias_runs_the_alias_version(door):
    lam, dynamodb = door.client("lambda"), door.client("dynamodb")
    url, sqs = reporter(door, "on-alias")
    lam.create_alias(FunctionName="on-alias", Name="live", FunctionVersion="1")
    stream_arn = create_table(dynamodb, "orders", "NEW_IMAGE")["LatestStreamArn"]
    mapping = lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName=f"{ARN}:on-alias:live",
                                              StartingPosition="TRIM_HORIZON", BatchSize=1)
    assert mapping["FunctionArn"] == f"{ARN}:on-alias:live"
    assert [m["UUID"] for m in lam.list_event_source_mappings(FunctionName="on-alias")["EventSourceMappings"]] == [
        mapping["UUID"]]
    assert [m["UUID"] for m in lam.list_event_source_mappings(FunctionName="on-alias:live")["EventSourceMappings"]] == [
        mapping["UUID"]]
    assert lam.list_event_source_mappings(FunctionName="on-alias:2")["EventSourceMappings"] == []
    put(dynamodb, "a")
    door.assert_delivered()
    assert wait_for_messages(sqs, url, 1) == [
        {"says": "one", "version": "1", "arn": f"{ARN}:on-alias:live", "keys": ["a"]}]
    lam.update_alias(FunctionName="on-alias", Name="live", FunctionVersion="2")
    put(dynamodb, "b")
    door.assert_delivered()
    assert wait_for_messages(sqs, url, 1) == [
        {"says": "two", "version": "2", "arn": f"{ARN}:on-alias:live", "keys": ["b"]}]
    assert refused(lam.create_event_source_mapping, EventSourceArn=stream_arn, FunctionName="on-alias:nope",
                   StartingPosition="LATEST") == {
        "Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {ARN}:on-alias:nope"},
        "Status": 404}


def test_an_asynchronous_invocation_of_an_alias_uses_the_alias_destinations(door):
    lam = door.client("lambda")
    url, sqs = reporter(door, "async-alias")
    destination = sqs.create_queue(QueueName="records")["QueueUrl"]
    destination_arn = sqs.get_queue_attributes(QueueUrl=destination, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"]
    lam.create_alias(FunctionName="async-alias", Name="live", FunctionVersion="1")
    config = lam.put_function_event_invoke_config(FunctionName="async-alias", Qualifier="live", MaximumRetryAttempts=0,
                                                  DestinationConfig={"OnSuccess": {"Destination": destination_arn}})
    assert config["FunctionArn"] == f"{ARN}:async-alias:live"
    assert lam.list_function_event_invoke_configs(FunctionName="async-alias")["FunctionEventInvokeConfigs"][0][
        "FunctionArn"] == f"{ARN}:async-alias:live"
    assert refused(lam.get_function_event_invoke_config, FunctionName="async-alias")["Error"]["Message"] == (
        f"The function {ARN}:async-alias:$LATEST doesn't have an EventInvokeConfig")
    accepted = lam.invoke(FunctionName="async-alias", Qualifier="live", InvocationType="Event", Payload=b'{"n": 1}')
    lam.invoke(FunctionName="async-alias", InvocationType="Event", Payload=b'{"n": 2}')  # $LATEST: no destination
    door.assert_delivered()
    [record] = wait_for_messages(sqs, destination, 1)
    assert {key: record[key] for key in ("requestContext", "requestPayload", "responseContext", "responsePayload")} == {
        "requestContext": {"requestId": accepted["ResponseMetadata"]["RequestId"],
                           "functionArn": f"{ARN}:async-alias:live", "condition": "Success",
                           "approximateInvokeCount": 1},
        "requestPayload": {"n": 1}, "responseContext": {"statusCode": 200, "executedVersion": "1"},
        "responsePayload": {"says": "one"}}
    assert sorted(m["version"] for m in wait_for_messages(sqs, url, 2)) == ["$LATEST", "1"]


def test_a_version_and_an_alias_each_have_their_own_policy(door):
    lam = door.client("lambda")
    create_function(lam, "guarded", "def handler(event, context):\n    return event\n", Publish=True)
    permission = {"Action": "lambda:InvokeFunction", "StatementId": "s3", "Principal": "s3.amazonaws.com",
                  "SourceArn": "arn:aws:s3:::test-bucket"}
    lam.add_permission(FunctionName="guarded", **permission)
    assert refused(lam.get_policy, FunctionName="guarded", Qualifier="1") == {
        "Error": {"Code": "ResourceNotFoundException", "Message": "The resource you requested does not exist."},
        "Status": 404}
    lam.add_permission(FunctionName="guarded:1", Qualifier="1", **permission)
    version_policy = lam.get_policy(FunctionName="guarded", Qualifier="1")
    assert [s["Resource"] for s in json.loads(version_policy["Policy"])["Statement"]] == [f"{ARN}:guarded:1"]
    assert version_policy["RevisionId"] == lam.get_function(FunctionName="guarded:1")["Configuration"]["RevisionId"]
    alias = lam.create_alias(FunctionName="guarded", Name="permission-alias", FunctionVersion="1")
    assert refused(lam.add_permission, FunctionName="guarded", Qualifier="permission-alias", RevisionId="wrong",
                   **permission) == {"Error": {"Code": "PreconditionFailedException", "Message": (
                       "The Revision Id provided does not match the latest Revision Id. Call the GetPolicy API to "
                       "retrieve the latest Revision Id")}, "Status": 412}
    lam.add_permission(FunctionName="guarded:permission-alias", Qualifier="permission-alias",
                       RevisionId=alias["RevisionId"], **permission)
    alias_policy = lam.get_policy(FunctionName="guarded", Qualifier="permission-alias")
    assert [s["Resource"] for s in json.loads(alias_policy["Policy"])["Statement"]] == [
        f"{ARN}:guarded:permission-alias"]
    assert alias_policy["RevisionId"] == lam.get_alias(FunctionName="guarded", Name="permission-alias")["RevisionId"]
    assert alias_policy["RevisionId"] != alias["RevisionId"]
    assert [s["Resource"] for s in json.loads(lam.get_policy(FunctionName="guarded")["Policy"])["Statement"]] == [
        f"{ARN}:guarded"]
    lam.remove_permission(FunctionName="guarded", StatementId="s3", Qualifier="permission-alias")
    assert refused(lam.get_policy, FunctionName="guarded", Qualifier="permission-alias")["Status"] == 404


def test_sns_s3_and_eventbridge_deliver_to_an_alias_or_a_version(door):
    """SAM's AutoPublishAlias points every event source at the alias: an SNS subscription, an S3 notification and an
    EventBridge rule's target whose endpoint is an alias's (or a version's) ARN invoke that version."""
    lam, sns, s3, events = door.client("lambda"), door.client("sns"), door.client("s3"), door.client("events")
    url, sqs = reporter(door, "fan-in")
    lam.create_alias(FunctionName="fan-in", Name="live", FunctionVersion="1")
    topic = sns.create_topic(Name="notes")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=f"{ARN}:fan-in:live")
    s3.create_bucket(Bucket="uploads")
    s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
        "LambdaFunctionConfigurations": [{"LambdaFunctionArn": f"{ARN}:fan-in:live", "Events": ["s3:ObjectCreated:*"]}]})
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="orders", Targets=[{"Id": "v2", "Arn": f"{ARN}:fan-in:2"}])
    sns.publish(TopicArn=topic, Message="hello")
    s3.put_object(Bucket="uploads", Key="a.txt", Body=b"a")
    events.put_events(Entries=[{"Source": "shop", "DetailType": "order", "Detail": "{}"}])
    door.assert_delivered()
    seen = sorted((m["version"], m["arn"]) for m in wait_for_messages(sqs, url, 3))
    assert seen == [("1", f"{ARN}:fan-in:live"), ("1", f"{ARN}:fan-in:live"), ("2", f"{ARN}:fan-in:2")]


PIPED = '''
import json, os, boto3
def handler(event, context):
    boto3.client("sqs").send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps({
        "says": %r, "version": context.function_version, "arn": context.invoked_function_arn, "event": event}))
'''


def test_a_pipe_with_an_alias_as_target_and_a_version_as_enrichment_runs_those_versions(door):
    """EventBridge Pipes take a function's qualified ARN as Target and as Enrichment (the Pipes API's Target and
    Enrichment are ARNs; SAM's AutoPublishAlias makes them the alias's): a pipe from a queue runs the enrichment's
    version, then the alias's version with what the enrichment answered; moving the alias moves the pipe's target."""
    lam, sqs = door.client("lambda"), door.client("sqs")
    url = sqs.create_queue(QueueName="seen")["QueueUrl"]
    create_function(lam, "piped", PIPED % "one", Environment={"Variables": {"QUEUE_URL": url}}, Publish=True)
    lam.update_function_code(FunctionName="piped", ZipFile=zip_of({"app.py": PIPED % "two"}), Publish=True)
    lam.create_alias(FunctionName="piped", Name="live", FunctionVersion="1")
    create_function(lam, "enrich", "def handler(event, context):\n    return [{'body': r['body']} for r in event]\n",
                    Publish=True)  # version 1 answers what the target reads; $LATEST fails after it changes
    lam.update_function_code(FunctionName="enrich", ZipFile=zip_of({"app.py": "def handler(event, context):\n"
                                                                              "    raise ValueError('not this one')\n"}))
    lam.get_waiter("function_updated_v2").wait(FunctionName="enrich")
    source = sqs.create_queue(QueueName="orders-in")
    source_arn = sqs.get_queue_attributes(QueueUrl=source["QueueUrl"], AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"]
    door.client("pipes").create_pipe(
        Name="orders", Source=source_arn, Target=f"{ARN}:piped:live", Enrichment=f"{ARN}:enrich:1",
        RoleArn="arn:aws:iam::123456789012:role/pipes", SourceParameters={"SqsQueueParameters": {"BatchSize": 1}})
    sqs.send_message(QueueUrl=source["QueueUrl"], MessageBody="first")
    door.assert_delivered()
    assert wait_for_messages(sqs, url, 1) == [
        {"says": "one", "version": "1", "arn": f"{ARN}:piped:live", "event": [{"body": "first"}]}]
    lam.update_alias(FunctionName="piped", Name="live", FunctionVersion="2")
    sqs.send_message(QueueUrl=source["QueueUrl"], MessageBody="second")
    door.assert_delivered()
    assert wait_for_messages(sqs, url, 1) == [
        {"says": "two", "version": "2", "arn": f"{ARN}:piped:live", "event": [{"body": "second"}]}]
