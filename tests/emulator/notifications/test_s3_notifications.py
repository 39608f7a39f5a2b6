"""S3 event notifications through both doors: an object put reaching a function through a queue and a queue mapping
(Python and Node.js), a function as a direct destination, AWS's record, filters, deletes, and S3's validation."""

from __future__ import annotations

import hashlib
import json
import time

import pytest
from botocore.exceptions import ClientError

from eddy.emulator.notifications.s3_events import customer_id
from tests.emulator.trigger_helpers import create_zip_function, wait_idle
from tests.emulator.triggers.sqs_helpers import delivered, queue, queue_with_reporter

FORWARDER = '''
import json, os, boto3
def handler(event, context):
    boto3.client("sqs").send_message(QueueUrl=os.environ["QUEUE_URL"], MessageBody=json.dumps(event))
'''


def notify(s3, bucket: str, **configurations) -> None:
    s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration=configurations)


def key_filter(prefix: str = "", suffix: str = "") -> dict:
    rules = [{"Name": "prefix", "Value": prefix}] if prefix else []
    rules += [{"Name": "suffix", "Value": suffix}] if suffix else []
    return {"Key": {"FilterRules": rules}}


def wait_for_messages(sqs, url: str, count: int) -> list[dict]:
    """The first `count` messages of a queue (deleted), waiting for them with long polls."""
    messages: list[dict] = []
    deadline = time.monotonic() + 60
    while len(messages) < count and time.monotonic() < deadline:
        for message in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", []):
            messages.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return messages


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_an_object_put_reaches_a_function_through_a_queue_mapping(door, runtime):
    env = queue_with_reporter(door, runtime, name="uploads")
    s3 = door.client("s3")
    s3.create_bucket(Bucket="images")
    notify(s3, "images", QueueConfigurations=[{"Id": "raw-images", "QueueArn": env["arn"], "Events": ["s3:ObjectCreated:*"],
                                               "Filter": key_filter(prefix="raw/", suffix=".jpg")}])
    env["lambda"].create_event_source_mapping(EventSourceArn=env["arn"], FunctionName="reporter")
    before = door.now()
    s3.put_object(Bucket="images", Key="raw/cat 1.jpg", Body=b"meow")
    s3.put_object(Bucket="images", Key="raw/notes.txt", Body=b"not an image")  # the suffix filter keeps it out
    assert wait_idle(door)["Idle"]
    records = [record for batch in delivered(env["sqs"], env["deliveries"]) for record in batch]
    bodies = [json.loads(record["body"]) for record in records]  # two messages: pollers may deliver them in any order
    [test_event] = [body for body in bodies if "Event" in body]
    [put] = [body for body in bodies if "Records" in body]
    assert (test_event["Service"], test_event["Event"], test_event["Bucket"]) == ("Amazon S3", "s3:TestEvent", "images")
    [record] = put["Records"]
    assert set(record) == {"eventVersion", "eventSource", "awsRegion", "eventTime", "eventName", "userIdentity",
                           "requestParameters", "responseElements", "s3"}
    assert (record["eventVersion"], record["eventSource"], record["awsRegion"], record["eventName"]) == (
        "2.1", "aws:s3", "us-east-1", "ObjectCreated:Put")
    assert set(record["responseElements"]) == {"x-amz-request-id", "x-amz-id-2"}
    assert record["eventTime"] >= time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(before)))
    s3_part = record["s3"]
    assert (s3_part["s3SchemaVersion"], s3_part["configurationId"]) == ("1.0", "raw-images")
    assert s3_part["bucket"] == {"name": "images", "ownerIdentity": {"principalId": customer_id("123456789012")},
                                 "arn": "arn:aws:s3:::images"}
    assert s3_part["object"] == {"key": "raw/cat+1.jpg", "size": 4, "eTag": hashlib.md5(b"meow").hexdigest(),
                                 "sequencer": s3_part["object"]["sequencer"]}


def test_a_function_destination_is_invoked_for_puts_and_deletes_with_growing_sequencers(door):
    s3, sqs, lam = door.client("s3"), door.client("sqs"), door.client("lambda")
    s3.create_bucket(Bucket="archive")
    inbox, _ = queue(sqs, "inbox")
    function_arn = create_zip_function(lam, "forwarder", "python", FORWARDER,
                                       Environment={"Variables": {"QUEUE_URL": inbox}}, Timeout=30)["FunctionArn"]
    notify(s3, "archive", LambdaFunctionConfigurations=[
        {"Id": "all", "LambdaFunctionArn": function_arn, "Events": ["s3:ObjectCreated:Put", "s3:ObjectRemoved:*"]}])
    s3.put_object(Bucket="archive", Key="2026/report.csv", Body=b"a,b")
    [created] = wait_for_messages(sqs, inbox, 1)
    s3.delete_object(Bucket="archive", Key="2026/report.csv")
    [removed] = wait_for_messages(sqs, inbox, 1)
    first, second = created["Records"][0], removed["Records"][0]
    assert (first["eventName"], second["eventName"]) == ("ObjectCreated:Put", "ObjectRemoved:Delete")
    assert first["s3"]["object"]["size"] == 3 and set(second["s3"]["object"]) == {"key", "sequencer"}
    assert second["s3"]["object"]["key"] == "2026/report.csv"
    width = max(len(first["s3"]["object"]["sequencer"]), len(second["s3"]["object"]["sequencer"]))
    assert second["s3"]["object"]["sequencer"].zfill(width) > first["s3"]["object"]["sequencer"].zfill(width)


def test_s3_refuses_missing_destinations_and_overlapping_configurations(door):
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="photos")
    _, arn = queue(sqs, "events")
    with pytest.raises(ClientError) as missing:
        notify(s3, "photos", QueueConfigurations=[{"QueueArn": arn.replace(":events", ":nowhere"),
                                                   "Events": ["s3:ObjectCreated:*"]}])
    assert missing.value.response["Error"]["Code"] == "InvalidArgument"
    assert missing.value.response["Error"]["Message"] == "Unable to validate the following destination configurations"
    with pytest.raises(ClientError) as overlap:
        notify(s3, "photos", QueueConfigurations=[
            {"QueueArn": arn, "Events": ["s3:ObjectCreated:*"], "Filter": key_filter(prefix="raw/")},
            {"QueueArn": arn, "Events": ["s3:ObjectCreated:Put"], "Filter": key_filter(prefix="raw/2026/")}])
    assert overlap.value.response["Error"] == {
        "Code": "InvalidArgument",
        "Message": "Configurations overlap. Configurations on the same bucket cannot share a common event type.",
        **{k: v for k, v in overlap.value.response["Error"].items() if k not in ("Code", "Message")}}
    notify(s3, "photos", QueueConfigurations=[  # disjoint prefixes do not overlap
        {"QueueArn": arn, "Events": ["s3:ObjectCreated:*"], "Filter": key_filter(prefix="raw/")},
        {"QueueArn": arn, "Events": ["s3:ObjectCreated:*"], "Filter": key_filter(prefix="thumbnails/")}])
    assert len(s3.get_bucket_notification_configuration(Bucket="photos")["QueueConfigurations"]) == 2


NODE_FORWARDER = """
const { SQSClient, SendMessageCommand } = require('@aws-sdk/client-sqs');
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
exports.handler = async (event) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.QUEUE_URL, MessageBody: JSON.stringify(event) }));
};
"""
EMPTY_ETAG = hashlib.md5(b"").hexdigest()  # a delete marker's, as AWS's recorded DeleteMarkerCreated records show


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_versioned_buckets_deletes_are_delete_marker_created_or_delete_with_their_version(door, runtime):
    s3, sqs, lam = door.client("s3"), door.client("sqs"), door.client("lambda")
    s3.create_bucket(Bucket="ledger")
    s3.put_bucket_versioning(Bucket="ledger", VersioningConfiguration={"Status": "Enabled"})
    inbox, _ = queue(sqs, "inbox")  # what the function forwards
    direct, direct_arn = queue(sqs, "removals")  # a queue destination
    function_arn = create_zip_function(lam, "forwarder", runtime, FORWARDER if runtime == "python" else NODE_FORWARDER,
                                       Environment={"Variables": {"QUEUE_URL": inbox}}, Timeout=30)["FunctionArn"]
    notify(s3, "ledger",
           LambdaFunctionConfigurations=[{"Id": "to-function", "LambdaFunctionArn": function_arn,
                                          "Events": ["s3:ObjectRemoved:*"], "Filter": key_filter(prefix="fn/")}],
           QueueConfigurations=[{"Id": "markers", "QueueArn": direct_arn,
                                 "Events": ["s3:ObjectRemoved:DeleteMarkerCreated"], "Filter": key_filter(prefix="q/")}])
    assert wait_for_messages(sqs, direct, 1)[0]["Event"] == "s3:TestEvent"
    first = s3.put_object(Bucket="ledger", Key="fn/a.txt", Body=b"one")["VersionId"]
    for key in ("q/b.txt", "q/c.txt"):
        s3.put_object(Bucket="ledger", Key=key, Body=b"two")

    marker = s3.delete_object(Bucket="ledger", Key="fn/a.txt")
    assert marker["DeleteMarker"] is True
    [made] = wait_for_messages(sqs, inbox, 1)
    s3.delete_object(Bucket="ledger", Key="fn/a.txt", VersionId=first)  # a version, permanently
    [gone] = wait_for_messages(sqs, inbox, 1)
    [made_record], [gone_record] = made["Records"], gone["Records"]
    assert (made_record["eventName"], gone_record["eventName"]) == ("ObjectRemoved:DeleteMarkerCreated",
                                                                    "ObjectRemoved:Delete")
    assert made_record["s3"]["configurationId"] == "to-function"
    assert made_record["s3"]["object"] == {"key": "fn/a.txt", "eTag": EMPTY_ETAG, "versionId": marker["VersionId"],
                                           "sequencer": made_record["s3"]["object"]["sequencer"]}
    assert gone_record["s3"]["object"] == {"key": "fn/a.txt", "versionId": first,
                                           "sequencer": gone_record["s3"]["object"]["sequencer"]}

    batch = s3.delete_objects(Bucket="ledger", Delete={"Objects": [{"Key": "q/b.txt"}, {"Key": "q/c.txt"}]})
    markers = {deleted["Key"]: deleted["DeleteMarkerVersionId"] for deleted in batch["Deleted"]}
    records = [record for message in wait_for_messages(sqs, direct, 2) for record in message["Records"]]
    assert sorted((r["eventName"], r["s3"]["object"]["key"], r["s3"]["object"]["versionId"]) for r in records) == [
        ("ObjectRemoved:DeleteMarkerCreated", key, version) for key, version in sorted(markers.items())]


def test_s3_names_each_destination_it_cannot_validate(door):
    """AWS's answer, as recorded (LocalStack's AWS-validated test_s3_notifications_{sqs,lambda}.snapshot.json): each
    missing destination in ArgumentName<n> / ArgumentValue<n>; a function's is named "<arn>, null"."""
    s3, sns, lam = door.client("s3"), door.client("sns"), door.client("lambda")
    s3.create_bucket(Bucket="photos")
    topic = sns.create_topic(Name="exists")["TopicArn"]
    function_arn = create_zip_function(lam, "exists", "python", FORWARDER)["FunctionArn"]
    gone_topic, gone_function = topic.replace(":exists", ":gone"), function_arn.replace(":exists", ":gone")
    with pytest.raises(ClientError) as refused:
        notify(s3, "photos",
               TopicConfigurations=[{"TopicArn": topic, "Events": ["s3:ObjectCreated:*"], "Filter": key_filter(prefix="a/")},
                                    {"TopicArn": gone_topic, "Events": ["s3:ObjectCreated:*"], "Filter": key_filter(prefix="b/")}],
               LambdaFunctionConfigurations=[
                   {"LambdaFunctionArn": function_arn, "Events": ["s3:ObjectRemoved:*"], "Filter": key_filter(prefix="a/")},
                   {"LambdaFunctionArn": gone_function, "Events": ["s3:ObjectRemoved:*"], "Filter": key_filter(prefix="b/")}])
    error = refused.value.response["Error"]
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert {k: v for k, v in error.items() if k not in ("RequestId", "HostId")} == {
        "Code": "InvalidArgument", "Message": "Unable to validate the following destination configurations",
        "ArgumentName1": gone_topic, "ArgumentValue1": "The destination topic does not exist",
        "ArgumentName2": f"{gone_function}, null", "ArgumentValue2": f"Not authorized to invoke function [{gone_function}]"}
    assert "TopicConfigurations" not in s3.get_bucket_notification_configuration(Bucket="photos")  # nothing kept


def test_overlapping_suffixes_and_event_type_wildcards_are_refused_disjoint_ones_kept_apart(door):
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="photos")
    jpg, jpg_arn = queue(sqs, "jpg")
    png, png_arn = queue(sqs, "png")
    overlap = "Configurations overlap. Configurations on the same bucket cannot share a common event type."
    refused = [  # a suffix that ends another; a wildcard covering a named event type (no filter: every key)
        [{"QueueArn": jpg_arn, "Events": ["s3:ObjectCreated:*"], "Filter": key_filter(suffix=".jpg")},
         {"QueueArn": png_arn, "Events": ["s3:ObjectCreated:Put"], "Filter": key_filter(suffix="jpg")}],
        [{"QueueArn": jpg_arn, "Events": ["s3:ObjectCreated:*"]},
         {"QueueArn": png_arn, "Events": ["s3:ObjectCreated:Copy"]}]]
    for configurations in refused:
        with pytest.raises(ClientError) as error:
            notify(s3, "photos", QueueConfigurations=configurations)
        assert (error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]) == (
            "InvalidArgument", overlap)
    rules = lambda suffix: {"Key": {"FilterRules": [{"Name": "Suffix", "Value": suffix}]}}  # as S3 answers the name
    notify(s3, "photos", QueueConfigurations=[
        {"Id": "jpg", "QueueArn": jpg_arn, "Events": ["s3:ObjectCreated:*"], "Filter": rules(".jpg")},
        {"Id": "png", "QueueArn": png_arn, "Events": ["s3:ObjectCreated:*"], "Filter": rules(".png")},
        {"Id": "removed", "QueueArn": jpg_arn, "Events": ["s3:ObjectRemoved:*"]}])  # another family: no overlap
    for url in (jpg, png):
        wait_for_messages(sqs, url, 1)  # s3:TestEvent
    for key in ("cat.jpg", "dog.png", "notes.txt"):
        s3.put_object(Bucket="photos", Key=key, Body=b"x")
    [to_jpg], [to_png] = wait_for_messages(sqs, jpg, 1), wait_for_messages(sqs, png, 1)
    assert wait_idle(door)["Idle"]
    assert sqs.receive_message(QueueUrl=jpg).get("Messages", []) == [] == sqs.receive_message(QueueUrl=png).get("Messages", [])
    assert [(r["s3"]["configurationId"], r["s3"]["object"]["key"]) for r in to_jpg["Records"] + to_png["Records"]] == [
        ("jpg", "cat.jpg"), ("png", "dog.png")]


def test_an_arn_s3_cannot_parse_and_skipping_the_destinations_validation(door):
    """AWS's recorded answers (LocalStack's test_s3_notifications_{sqs,sns,lambda}.snapshot.json: test_invalid_*_arn)."""
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="photos")
    _, arn = queue(sqs, "events")
    for configurations, name in ((dict(QueueConfigurations=[{"QueueArn": "invalid-queue", "Events": ["s3:ObjectCreated:*"]}]), "Queue"),
                                 (dict(TopicConfigurations=[{"TopicArn": arn, "Events": ["s3:ObjectCreated:*"]}]), "Topic")):
        for skip in (False, True):
            with pytest.raises(ClientError) as refused:
                s3.put_bucket_notification_configuration(Bucket="photos", NotificationConfiguration=configurations,
                                                         SkipDestinationValidation=skip)
            value = "invalid-queue" if name == "Queue" else arn  # a queue's ARN is no topic's
            assert {k: v for k, v in refused.value.response["Error"].items() if k not in ("RequestId", "HostId")} == {
                "Code": "InvalidArgument", "Message": "The ARN could not be parsed", "ArgumentName": name,
                "ArgumentValue": value}
    nowhere = arn.replace(":events", ":nowhere")
    s3.put_bucket_notification_configuration(Bucket="photos", SkipDestinationValidation=True, NotificationConfiguration={
        "QueueConfigurations": [{"Id": "id123", "QueueArn": nowhere, "Events": ["s3:ObjectCreated:*"]}]})
    assert s3.get_bucket_notification_configuration(Bucket="photos")["QueueConfigurations"] == [
        {"Id": "id123", "QueueArn": nowhere, "Events": ["s3:ObjectCreated:*"]}]
    s3.put_object(Bucket="photos", Key="cat.jpg", Body=b"x")  # S3 takes it; its delivery fails
    with pytest.raises(ClientError) as refused:  # without the header, the same configuration is checked
        s3.put_bucket_notification_configuration(Bucket="photos", NotificationConfiguration={
            "QueueConfigurations": [{"Id": "id123", "QueueArn": nowhere, "Events": ["s3:ObjectCreated:*"]}]})
    assert refused.value.response["Error"]["ArgumentValue1"] == "The destination queue does not exist"


def test_filter_rules_are_answered_as_s3_names_them_whatever_their_case(door):
    """AWS's recorded answer (LocalStack's test_s3_notifications_sqs.snapshot.json, test_filter_rules_case_insensitive:
    rules put as "suffix" and "PREFIX" are answered "Prefix" then "Suffix"), and the filter still applies."""
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="photos")
    url, arn = queue(sqs, "events")
    rules = [{"Name": "suffix", "Value": ".txt"}, {"Name": "PREFIX", "Value": "notif-"}]
    notify(s3, "photos", QueueConfigurations=[{"Id": "texts", "QueueArn": arn, "Events": ["s3:ObjectCreated:*"],
                                               "Filter": {"Key": {"FilterRules": rules}}}])
    answer = s3.get_bucket_notification_configuration(Bucket="photos")
    answer.pop("ResponseMetadata")
    assert answer == {"QueueConfigurations": [{
        "Id": "texts", "QueueArn": arn, "Events": ["s3:ObjectCreated:*"], "Filter": {"Key": {"FilterRules": [
            {"Name": "Prefix", "Value": "notif-"}, {"Name": "Suffix", "Value": ".txt"}]}}}]}
    assert [m["Event"] for m in wait_for_messages(sqs, url, 1)] == ["s3:TestEvent"]
    for key in ("notif-1.txt", "notif-2.jpg", "other.txt"):
        s3.put_object(Bucket="photos", Key=key, Body=b"x")
    assert wait_idle(door)["Idle"]
    bodies = [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
    assert [record["s3"]["object"]["key"] for body in bodies for record in body["Records"]] == ["notif-1.txt"]
