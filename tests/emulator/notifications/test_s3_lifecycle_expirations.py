"""S3 Lifecycle's expirations on the emulator's clock, and the events S3 sends for them, in both doors.

Sources: the Amazon S3 User Guide, "Lifecycle configuration elements" (Expiration Days: "Amazon S3 calculates the
time by adding the number of days specified in the rule to the object creation time and rounding the resulting time
to the next day midnight UTC"; NoncurrentVersionExpiration: days from when the version became noncurrent; a current
version's expiration in a versioned bucket adds a delete marker), "Configuring S3 Lifecycle event notifications"
(s3:LifecycleExpiration:Delete for an unversioned object or a version deleted for good,
s3:LifecycleExpiration:DeleteMarkerCreated for a delete marker; its example record: eventVersion 2.3, userIdentity
and sourceIPAddress s3.amazonaws.com, the object's key and sequencer). moto keeps the rules and applies none: with
Eddy the housekeeper's round, or POST /_eddy/s3/lifecycle/sweep, carries out what is due.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from eddy.emulator.notifications.s3_events import customer_id
from tests.emulator.notifications.test_s3_notifications import notify, wait_for_messages
from tests.emulator.triggers.sqs_helpers import queue


def sweep(door) -> int:
    return door.control("/_eddy/s3/lifecycle/sweep", {})["Deleted"]


def lifecycle_record(door, key: str, event: str, **object_fields: str) -> dict:
    """The record S3 Lifecycle's event carries (the Guide's example, in this bucket), its ids as drawn."""
    return {
        "eventVersion": "2.3", "eventSource": "aws:s3", "awsRegion": "us-east-1", "eventTime": "<time>",
        "eventName": event, "userIdentity": {"principalId": "s3.amazonaws.com"},
        "requestParameters": {"sourceIPAddress": "s3.amazonaws.com"},
        "responseElements": {"x-amz-request-id": "<id>", "x-amz-id-2": "<id-2>"},
        "s3": {"s3SchemaVersion": "1.0", "configurationId": "expirations",
               "bucket": {"name": "scratch", "ownerIdentity": {"principalId": customer_id("123456789012")},
                          "arn": "arn:aws:s3:::scratch"},
               "object": {"key": key, **object_fields, "sequencer": "<sequencer>"}}}


def normalised(record: dict, now: float) -> dict:
    """`record` with its drawn ids checked for their form and named; its time checked to be the sweep's."""
    elements = record["responseElements"]
    assert re.fullmatch(r"[0-9A-F]{16}", elements["x-amz-request-id"])
    assert re.fullmatch(r"[0-9a-f]{96}", elements["x-amz-id-2"])
    assert re.fullmatch(r"[0-9A-F]{18}", record["s3"]["object"]["sequencer"])
    made = datetime.strptime(record["eventTime"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()
    assert now - 1 <= made <= now + 60
    return {**record, "eventTime": "<time>",
            "responseElements": {"x-amz-request-id": "<id>", "x-amz-id-2": "<id-2>"},
            "s3": {**record["s3"], "object": {**record["s3"]["object"], "sequencer": "<sequencer>"}}}


def bucket_with_rules(door, *rules: dict, versioned: bool = False) -> tuple[str, object, object]:
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="scratch")
    if versioned:
        s3.put_bucket_versioning(Bucket="scratch", VersioningConfiguration={"Status": "Enabled"})
    url, arn = queue(sqs, "expirations", MessageRetentionPeriod="1209600")  # 14 days: the clock moves days on
    notify(s3, "scratch", QueueConfigurations=[{"Id": "expirations", "QueueArn": arn,
                                                "Events": ["s3:LifecycleExpiration:*"]}])
    assert [m["Event"] for m in wait_for_messages(sqs, url, 1)] == ["s3:TestEvent"]
    s3.put_bucket_lifecycle_configuration(Bucket="scratch", LifecycleConfiguration={"Rules": list(rules)})
    return url, s3, sqs


def midnight_after(moment: datetime, days: int) -> float:
    later = moment + timedelta(days=days)
    midnight = later.replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight if midnight == later else midnight + timedelta(days=1)).timestamp()


def test_an_object_expires_at_the_midnight_utc_after_its_age_and_s3_lifecycle_says_so(door):
    url, s3, sqs = bucket_with_rules(door, {"ID": "tmp-for-a-day", "Status": "Enabled", "Filter": {"Prefix": "tmp/"},
                                            "Expiration": {"Days": 1}})
    s3.put_object(Bucket="scratch", Key="tmp/report.csv", Body=b"a,b\n")
    s3.put_object(Bucket="scratch", Key="keep/report.csv", Body=b"a,b\n")
    made = s3.head_object(Bucket="scratch", Key="tmp/report.csv")["LastModified"]
    due = midnight_after(made, 1)
    door.advance(due - door.now() - 60)  # a minute before its midnight: still there
    assert sweep(door) == 0
    door.advance(120)
    assert sweep(door) == 1
    swept_at = door.now()
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="scratch")["Contents"]] == ["keep/report.csv"]
    assert sweep(door) == 0  # done once
    door.wait_idle()
    [message] = wait_for_messages(sqs, url, 1)
    [record] = message["Records"]
    assert normalised(record, swept_at) == lifecycle_record(door, "tmp/report.csv", "LifecycleExpiration:Delete")


def test_in_a_versioned_bucket_noncurrent_versions_go_for_good_and_current_ones_behind_a_delete_marker(door):
    url, s3, sqs = bucket_with_rules(door, {"ID": "versions", "Status": "Enabled", "Filter": {"Prefix": ""},
                                            "NoncurrentVersionExpiration": {"NoncurrentDays": 1},
                                            "Expiration": {"Days": 5}}, versioned=True)
    first = s3.put_object(Bucket="scratch", Key="notes.txt", Body=b"1")["VersionId"]
    second = s3.put_object(Bucket="scratch", Key="notes.txt", Body=b"2")["VersionId"]
    made = s3.head_object(Bucket="scratch", Key="notes.txt")["LastModified"]
    door.advance(midnight_after(made, 1) - door.now() + 1)  # the first version, noncurrent a day: deleted for good
    assert sweep(door) == 1
    first_swept = door.now()
    versions = s3.list_object_versions(Bucket="scratch")
    assert [(v["VersionId"], v["IsLatest"]) for v in versions["Versions"]] == [(second, True)]
    door.advance(midnight_after(made, 5) - door.now() + 1)  # the current version, five days old: a delete marker
    assert sweep(door) == 1
    second_swept = door.now()
    versions = s3.list_object_versions(Bucket="scratch")
    [marker] = versions["DeleteMarkers"]
    assert ([(v["VersionId"], v["IsLatest"]) for v in versions["Versions"]], marker["IsLatest"]) == (
        [(second, False)], True)
    door.wait_idle()
    [deleted, marked] = [m["Records"][0] for m in wait_for_messages(sqs, url, 2)]
    assert normalised(deleted, first_swept) == lifecycle_record(
        door, "notes.txt", "LifecycleExpiration:Delete", versionId=first)
    assert normalised(marked, second_swept) == lifecycle_record(
        door, "notes.txt", "LifecycleExpiration:DeleteMarkerCreated", versionId=marker["VersionId"])


def test_a_rules_tag_and_and_filters_and_its_date_pick_what_expires(door):
    # Filter Tag: only objects with the tag; And: the prefix and every tag; Expiration Date: every object the rule
    # covers from that midnight UTC on, whatever its age; a Disabled rule nothing (the User Guide's "Lifecycle
    # configuration elements")
    now = datetime.fromtimestamp(door.now(), timezone.utc)
    date = (now + timedelta(days=3)).replace(hour=0, minute=0, second=0, microsecond=0)
    url, s3, sqs = bucket_with_rules(
        door,
        {"ID": "temporary", "Status": "Enabled", "Filter": {"Tag": {"Key": "class", "Value": "temp"}},
         "Expiration": {"Days": 1}},
        {"ID": "old-logs", "Status": "Enabled",
         "Filter": {"And": {"Prefix": "logs/", "Tags": [{"Key": "team", "Value": "ops"}]}},
         "Expiration": {"Date": date}},
        {"ID": "off", "Status": "Disabled", "Filter": {"Prefix": "draft/"}, "Expiration": {"Days": 1}})
    s3.put_object(Bucket="scratch", Key="a.txt", Body=b"a", Tagging="class=temp")
    s3.put_object(Bucket="scratch", Key="b.txt", Body=b"b", Tagging="class=keep")
    s3.put_object(Bucket="scratch", Key="logs/1", Body=b"1", Tagging="team=ops")
    s3.put_object(Bucket="scratch", Key="logs/2", Body=b"2", Tagging="team=dev")
    s3.put_object(Bucket="scratch", Key="draft/x", Body=b"x")
    door.advance(2 * 86400 + 1)  # past a.txt's midnight, before the date
    assert sweep(door) == 1
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="scratch")["Contents"]] == [
        "b.txt", "draft/x", "logs/1", "logs/2"]
    door.advance(date.timestamp() - door.now() + 1)  # the date's midnight passed
    assert sweep(door) == 1
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="scratch")["Contents"]] == ["b.txt", "draft/x", "logs/2"]
    door.wait_idle()
    records = [m["Records"][0] for m in wait_for_messages(sqs, url, 2)]
    assert [(r["eventName"], r["s3"]["object"]["key"]) for r in records] == [
        ("LifecycleExpiration:Delete", "a.txt"), ("LifecycleExpiration:Delete", "logs/1")]


def test_a_version_two_rules_expire_is_deleted_once_with_one_event(door):
    """Two enabled rules whose filters both take a noncurrent version (a bucket-wide rule and one for a prefix) expire
    it once: one deletion, one s3:LifecycleExpiration:Delete. Before, each rule named it, so the sweep deleted it twice
    and counted two."""
    url, s3, sqs = bucket_with_rules(
        door,
        {"ID": "everything", "Status": "Enabled", "Filter": {"Prefix": ""},
         "NoncurrentVersionExpiration": {"NoncurrentDays": 1}},
        {"ID": "notes", "Status": "Enabled", "Filter": {"Prefix": "notes"},
         "NoncurrentVersionExpiration": {"NoncurrentDays": 1}},
        versioned=True)
    first = s3.put_object(Bucket="scratch", Key="notes.txt", Body=b"1")["VersionId"]
    second = s3.put_object(Bucket="scratch", Key="notes.txt", Body=b"2")["VersionId"]
    made = s3.head_object(Bucket="scratch", Key="notes.txt")["LastModified"]
    door.advance(midnight_after(made, 1) - door.now() + 1)
    assert sweep(door) == 1
    swept = door.now()
    versions = s3.list_object_versions(Bucket="scratch")
    assert ([(v["VersionId"], v["IsLatest"]) for v in versions["Versions"]], "DeleteMarkers" in versions) == (
        [(second, True)], False)
    door.wait_idle()
    [deleted] = [m["Records"][0] for m in wait_for_messages(sqs, url, 1)]
    assert normalised(deleted, swept) == lifecycle_record(door, "notes.txt", "LifecycleExpiration:Delete",
                                                          versionId=first)
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", []) == []  # and no second one


def test_a_housekeeping_round_loads_no_s3_where_no_request_did():
    """The housekeeper sweeps S3 Lifecycle's expirations every round; with no S3 request made, the round finds no
    bucket without loading moto's S3 (and the `cryptography` it imports): services load on first use (issue 39). Before
    2026-11-28 the first round loaded them (tests/emulator/moto_seam/services/test_access_keys.py saw it, by timing)."""
    import subprocess
    import sys

    program = (
        "import sys\nfrom eddy import emulate\n"
        "with emulate(housekeeping_interval=None) as emu:\n"
        "    emu.housekeeping()\n"
        "    print(sorted(n for n in ('moto.s3.models', 'moto.s3.responses', 'cryptography') if n in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
