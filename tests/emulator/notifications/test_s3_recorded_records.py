"""S3's event records to a queue, compared whole with AWS's recorded ones, in both doors.

AWS's records: LocalStack's AWS-validated tests/aws/services/s3/test_s3_notifications_sqs.py and its
test_s3_notifications_sqs.snapshot.json (github.com/localstack/localstack at 8b9a79f05846). The recordings hide
what changes between runs behind placeholders, numbered in the order each value first appears ("<principal-id:1>",
"<ip-address:1>", "date", "sequencer"); `recorded_form` puts Eddy's records in the same form, so each test compares
Eddy's whole record with the recorded one, value for value.
"""

from __future__ import annotations

import json

from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.triggers.sqs_helpers import queue

ACCOUNT = "123456789012"


class Placeholders:
    """The recordings' numbered placeholders: the same value, the same "<kind:N>", N counted per kind."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, str]] = {}

    def __call__(self, kind: str, value: str) -> str:
        names = self.seen.setdefault(kind, {})
        return names.setdefault(value, f"<{kind}:{len(names) + 1}>")


def recorded_form(record: dict, names: Placeholders, bucket: str, configuration: str) -> dict:
    """`record` as the snapshot shows one (its transformers: s3_api, sqs_api and s3_notifications)."""
    form = json.loads(json.dumps(record))
    form["eventTime"] = "date"
    form["awsRegion"] = "<region>"
    form["responseElements"] = {"x-amz-id-2": "amz-id", "x-amz-request-id": "amz-request-id"}
    form["requestParameters"]["sourceIPAddress"] = names("ip-address", form["requestParameters"]["sourceIPAddress"])
    s3 = form["s3"]
    owner = s3["bucket"]["ownerIdentity"]["principalId"]
    s3["bucket"] = {"arn": "arn:<partition>:s3:::<resource:1>", "name": "<resource:1>",
                    "ownerIdentity": {"principalId": names("principal-id", owner)}}
    assert (bucket, configuration) == (record["s3"]["bucket"]["name"], s3["configurationId"])
    s3["configurationId"] = "<config-id:1>"
    if "sequencer" in s3["object"]:
        s3["object"]["sequencer"] = "sequencer"
    user = form["userIdentity"]["principalId"]
    prefix = "AmazonCustomer:"  # S3's own: the owner's id after it
    form["userIdentity"]["principalId"] = (
        prefix + names("principal-id", user.removeprefix(prefix)) if user.startswith(prefix)
        else names("principal-id", user))
    return form


def recorded(event_name: str, obj: dict, user: str = "<principal-id:2>", ip: str = "<ip-address:1>") -> dict:
    """A record as the snapshot holds it: everything but the event's name, its object and who made it is the same in
    every recorded record of a bucket with one configuration."""
    return {"awsRegion": "<region>", "eventName": event_name, "eventSource": "aws:s3", "eventTime": "date",
            "eventVersion": "2.1", "requestParameters": {"sourceIPAddress": ip},
            "responseElements": {"x-amz-id-2": "amz-id", "x-amz-request-id": "amz-request-id"},
            "s3": {"bucket": {"arn": "arn:<partition>:s3:::<resource:1>", "name": "<resource:1>",
                              "ownerIdentity": {"principalId": "<principal-id:1>"}},
                   "configurationId": "<config-id:1>", "object": obj, "s3SchemaVersion": "1.0"},
            "userIdentity": {"principalId": user}}


def queue_for(door, bucket: str, events: list[str]) -> str:
    """A bucket whose events go to a new queue (the configuration "config"), its test event taken off: the URL."""
    s3, sqs = door.client("s3"), door.client("sqs")
    url, arn = queue(sqs, f"{bucket}-events")
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration={"QueueConfigurations": [
        {"Id": "config", "QueueArn": arn, "Events": events}]})
    [test_event] = wait_for_messages(sqs, url, 1)
    assert test_event["Event"] == "s3:TestEvent"
    return url


def test_two_puts_are_the_recorded_records_with_the_owners_customer_id(door):
    """TestS3NotificationsToSQS::test_object_created_put: the bucket owner is named by its Amazon customer ID, not
    the account's number (the recording's queue ARN keeps the account, 111111111111, apart from <principal-id:1>)."""
    s3 = door.client("s3")
    url = queue_for(door, "uploads", ["s3:ObjectCreated:Put"])
    s3.put_object(Bucket="uploads", Key="my_key_0", Body="something")
    s3.put_object(Bucket="uploads", Key="my_key_1", Body="something else")
    records = [m["Records"][0] for m in wait_for_messages(door.client("sqs"), url, 2)]
    records.sort(key=lambda r: r["s3"]["object"]["size"])
    assert not any(ACCOUNT in json.dumps(record) for record in records)
    names = Placeholders()
    assert {"messages": [recorded_form(r, names, "uploads", "config") for r in records]} == {"messages": [
        recorded("ObjectCreated:Put", {"eTag": "437b930db84b8079c2dd804a71936b5f", "key": "my_key_0",
                                       "sequencer": "sequencer", "size": 9}),
        recorded("ObjectCreated:Put", {"eTag": "6c7ba9c5a141421e1c03cb9807c97c74", "key": "my_key_1",
                                       "sequencer": "sequencer", "size": 14})]}


def test_delete_objects_tells_of_each_key_even_one_that_was_not_there(door):
    """TestS3NotificationsToSQS::test_delete_objects: one key put, DeleteObjects of it and two keys never put (Quiet),
    three ObjectRemoved:Delete records, each with its key and a sequencer only (the recording sorts them by key)."""
    s3 = door.client("s3")
    url = queue_for(door, "scratch", ["s3:ObjectRemoved:*"])
    s3.put_object(Bucket="scratch", Key="key-1a2b", Body="something")
    s3.delete_objects(Bucket="scratch", Delete={
        "Objects": [{"Key": "key-1a2b"}, {"Key": "dummy1"}, {"Key": "dummy2"}], "Quiet": True})
    records = sorted((m["Records"][0] for m in wait_for_messages(door.client("sqs"), url, 3)),
                     key=lambda r: r["s3"]["object"]["key"])
    names = Placeholders()
    assert {"messages": [recorded_form(r, names, "scratch", "config") for r in records]} == {"messages": [
        recorded("ObjectRemoved:Delete", {"key": key, "sequencer": "sequencer"})
        for key in ("dummy1", "dummy2", "key-1a2b")]}
    assert s3.list_objects_v2(Bucket="scratch")["KeyCount"] == 0


def test_an_empty_filter_value_is_kept_and_matches_every_key(door):
    """TestS3NotificationsToSQS::test_filter_rules_empty_value: a rule {"Name": "suffix", "Value": ""} is taken (with
    SkipDestinationValidation) and answered as S3 names it, {"Name": "Suffix", "Value": ""} (moto answered a 404)."""
    s3, sqs = door.client("s3"), door.client("sqs")
    url, arn = queue(sqs, "my-queue-1a2b")
    s3.create_bucket(Bucket="empty-values")
    s3.put_bucket_notification_configuration(Bucket="empty-values", SkipDestinationValidation=True,
                                             NotificationConfiguration={"QueueConfigurations": [
                                                 {"QueueArn": arn, "Events": ["s3:ObjectCreated:*"],
                                                  "Filter": {"Key": {"FilterRules": [{"Name": "suffix",
                                                                                      "Value": ""}]}}}]})
    answer = s3.get_bucket_notification_configuration(Bucket="empty-values")
    [configuration] = answer["QueueConfigurations"]
    assert {key: value for key, value in answer.items() if key != "ResponseMetadata"} == {"QueueConfigurations": [
        {"Events": ["s3:ObjectCreated:*"], "Filter": {"Key": {"FilterRules": [{"Name": "Suffix", "Value": ""}]}},
         "Id": configuration["Id"], "QueueArn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:my-queue-1a2b"}]}
    [test_event] = wait_for_messages(sqs, url, 1)
    assert test_event["Event"] == "s3:TestEvent"
    s3.put_object(Bucket="empty-values", Key="any/key.bin", Body=b"x")
    [message] = wait_for_messages(sqs, url, 1)
    assert message["Records"][0]["s3"]["object"]["key"] == "any/key.bin"


def test_a_queues_message_carries_the_requests_xray_trace_header(door):
    """TestS3NotificationsToSQS::test_xray_header: the PutObject's X-Amzn-Trace-Id is the message's AWSTraceHeader
    attribute, as the request carried it; the record itself is the recorded one."""
    s3, sqs = door.client("s3"), door.client("sqs")
    url = queue_for(door, "traced", ["s3:ObjectCreated:*"])
    trace = "Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"

    def add_xray_header(request, **kwargs):
        request.headers["X-Amzn-Trace-Id"] = trace

    s3.meta.events.register("before-send.s3.*", add_xray_header)
    s3.put_object(Bucket="traced", Key="test-data", Body="something")
    s3.meta.events.unregister("before-send.s3.*", add_xray_header)
    s3.put_object(Bucket="traced", Key="untraced", Body="something")
    messages = []
    while len(messages) < 2:
        messages += sqs.receive_message(QueueUrl=url, AttributeNames=["AWSTraceHeader"], MaxNumberOfMessages=10,
                                        WaitTimeSeconds=1).get("Messages", [])
    traced, untraced = sorted(messages, key=lambda m: json.loads(m["Body"])["Records"][0]["s3"]["object"]["key"])
    assert traced["Attributes"] == {"AWSTraceHeader": trace}
    assert "AWSTraceHeader" not in untraced.get("Attributes", {})
    names = Placeholders()
    assert recorded_form(json.loads(traced["Body"])["Records"][0], names, "traced", "config") == recorded(
        "ObjectCreated:Put", {"key": "test-data", "size": 9, "eTag": "437b930db84b8079c2dd804a71936b5f",
                              "sequencer": "sequencer"})
