"""A workload over moto's services (S3, SQS, SNS, Lambda layers, IAM, tags) and their full listings: what a
restart must bring back exactly. Used by the restart and kill -9 tests, in both doors."""

from __future__ import annotations

import io
import json
import zipfile
from contextlib import contextmanager
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

from eddy import emulate
from tests.conftest import QUIET, InProcessDoor, ServerDoor, eddy_server

ACCOUNT = "123456789012"
QUEUE_ARN = f"arn:aws:sqs:us-east-1:{ACCOUNT}:inbox"


@contextmanager
def running(kind: str, state_dir: str, snapshot_every: int | None = None) -> Iterator[Any]:
    """A door on `state_dir`; leaving the block stops it cleanly (a final snapshot), as a user stops Eddy.
    `snapshot_every`: a snapshot every that many log entries (`eddy serve --snapshot-every`)."""
    if kind == "inprocess":
        settings = {} if snapshot_every is None else {"snapshot_every": snapshot_every}
        with emulate(state_dir=state_dir, **QUIET, **settings) as emu:
            yield InProcessDoor(emu)
    else:
        flags = [] if snapshot_every is None else ["--snapshot-every", str(snapshot_every)]
        with eddy_server("--state-dir", state_dir, "--housekeeping-interval", "0", *flags) as (url, _):
            yield ServerDoor(url)


def layer_zip(text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("python/shared.py", text)
    return buffer.getvalue()


def build(client: Callable[[str], Any]) -> dict[str, Any]:
    """Every kind of resource the services hold; answers what the workload was told (ids, receipt handles)."""
    s3, sqs, sns, lam, iam = (client(name) for name in ("s3", "sqs", "sns", "lambda", "iam"))
    s3.create_bucket(Bucket="photos")
    s3.put_bucket_versioning(Bucket="photos", VersioningConfiguration={"Status": "Enabled"})
    s3.put_bucket_tagging(Bucket="photos", Tagging={"TagSet": [{"Key": "team", "Value": "media"}]})
    s3.put_object(Bucket="photos", Key="big.jpg", Body=b"J" * 300_000, Metadata={"camera": "x100"},
                  ContentType="image/jpeg")
    s3.put_object(Bucket="photos", Key="small.txt", Body=b"v1")
    s3.put_object(Bucket="photos", Key="small.txt", Body=b"v2")
    s3.put_object(Bucket="photos", Key="gone.txt", Body=b"bye")
    s3.delete_object(Bucket="photos", Key="gone.txt")
    upload = s3.create_multipart_upload(Bucket="photos", Key="huge.bin")["UploadId"]
    s3.upload_part(Bucket="photos", Key="huge.bin", UploadId=upload, PartNumber=1, Body=b"P" * 5_300_000)
    queue = sqs.create_queue(QueueName="inbox", Attributes={"VisibilityTimeout": "3600"},
                             tags={"stage": "dev"})["QueueUrl"]
    fifo = sqs.create_queue(QueueName="orders.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    sent = [sqs.send_message(QueueUrl=queue, MessageBody=f"message {n}")["MessageId"] for n in range(6)]
    sqs.send_message(QueueUrl=queue, MessageBody="later", DelaySeconds=600)
    fifo_id = sqs.send_message(QueueUrl=fifo, MessageBody="order 1", MessageGroupId="g",
                               MessageDeduplicationId="order-1")["MessageId"]
    received = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=3)["Messages"]
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=received[0]["ReceiptHandle"])
    topic = sns.create_topic(Name="uploads", Tags=[{"Key": "team", "Value": "media"}])["TopicArn"]
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=QUEUE_ARN,
                                 Attributes={"FilterPolicy": json.dumps({"kind": ["photo"]})})["SubscriptionArn"]
    sns.publish(TopicArn=topic, Message="a photo", MessageAttributes={"kind": {"DataType": "String", "StringValue": "photo"}})
    sns.publish(TopicArn=topic, Message="filtered out", MessageAttributes={"kind": {"DataType": "String", "StringValue": "doc"}})
    layer = lam.publish_layer_version(LayerName="shared", Content={"ZipFile": layer_zip("A = 1\n" * 400)},
                                      CompatibleRuntimes=["python3.11"])
    lam.publish_layer_version(LayerName="shared", Content={"ZipFile": layer_zip("A = 2\n")})
    lam.add_layer_version_permission(LayerName="shared", VersionNumber=layer["Version"], StatementId="everyone",
                                     Action="lambda:GetLayerVersion", Principal="*")
    iam.create_role(RoleName="runner", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}),
                    Tags=[{"Key": "team", "Value": "media"}])
    policy = iam.create_policy(PolicyName="read-photos", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}))
    iam.attach_role_policy(RoleName="runner", PolicyArn=policy["Policy"]["Arn"])
    iam.put_role_policy(RoleName="runner", PolicyName="inline", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sqs:*", "Resource": "*"}]}))
    return {"queue": queue, "fifo": fifo, "sent": sent, "fifo_id": fifo_id, "upload": upload,
            "in_flight": [message["ReceiptHandle"] for message in received[1:]], "subscription": subscription,
            "topic": topic}


def listings(client: Callable[[str], Any], built: dict[str, Any]) -> dict[str, Any]:
    """Everything the services answer about what `build` made, read without changing any of it."""
    s3, sqs, sns, lam, iam = (client(name) for name in ("s3", "sqs", "sns", "lambda", "iam"))
    answers: dict[str, Any] = {
        "buckets": s3.list_buckets()["Buckets"],
        "versions": s3.list_object_versions(Bucket="photos"),
        "versioning": s3.get_bucket_versioning(Bucket="photos"),
        "bucket tags": s3.get_bucket_tagging(Bucket="photos")["TagSet"],
        "uploads": s3.list_multipart_uploads(Bucket="photos")["Uploads"],
        "parts": s3.list_parts(Bucket="photos", Key="huge.bin", UploadId=built["upload"])["Parts"],
        "big.jpg": s3.head_object(Bucket="photos", Key="big.jpg"),
        "big.jpg body": s3.get_object(Bucket="photos", Key="big.jpg")["Body"].read() == b"J" * 300_000,
        "small.txt": s3.get_object(Bucket="photos", Key="small.txt")["Body"].read(),
        # a queue's URL names the host and port the client asked (a server on port 0 gets a new one each start)
        "queues": sorted(urlsplit(url).path for url in sqs.list_queues()["QueueUrls"]),
        "queue tags": sqs.list_queue_tags(QueueUrl=built["queue"])["Tags"],
        "topics": sns.list_topics()["Topics"],
        "topic": sns.get_topic_attributes(TopicArn=built["topic"])["Attributes"],
        "topic tags": sns.list_tags_for_resource(ResourceArn=built["topic"])["Tags"],
        "subscriptions": sns.list_subscriptions()["Subscriptions"],
        "subscription": sns.get_subscription_attributes(SubscriptionArn=built["subscription"])["Attributes"],
        "layers": lam.list_layers()["Layers"],
        "layer versions": lam.list_layer_versions(LayerName="shared")["LayerVersions"],
        "layer policy": lam.get_layer_version_policy(LayerName="shared", VersionNumber=1)["Policy"],
        "roles": iam.list_roles()["Roles"],
        "role tags": iam.list_role_tags(RoleName="runner")["Tags"],
        "policies": iam.list_policies(Scope="Local")["Policies"],
        "attached": iam.list_attached_role_policies(RoleName="runner")["AttachedPolicies"],
        "inline": iam.get_role_policy(RoleName="runner", PolicyName="inline")["PolicyDocument"],
    }
    for name in ("queue", "fifo"):
        answers[f"{name} attributes"] = sqs.get_queue_attributes(QueueUrl=built[name], AttributeNames=["All"])["Attributes"]
    for answer in answers.values():
        if isinstance(answer, dict):
            answer.pop("ResponseMetadata", None)
    answers["big.jpg"].pop("ResponseMetadata", None)
    return json.loads(json.dumps(answers, default=str))


def drain(sqs: Any, name: str) -> list[str]:
    """Every message body in queue `name`, each received once (hidden for ten minutes)."""
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    bodies = []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600).get("Messages", []):
        bodies += [message["Body"] for message in batch]
    return bodies
