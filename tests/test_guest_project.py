"""Eddy as a guest in someone else's project: the wheel installed in a fresh virtualenv outside the repository, in a
project that has its own `handlers` package (the usual layout of a serverless repository), its own moto tests and
its Eddy tests, run in one pytest session in either order on a machine without AWS configuration: all pass, and
the moto tests give what they give with Eddy's plugin switched off (`-p no:eddy`).

The moto tests describe a DynamoDB stream through moto's own DynamoDB Streams (which failed with
AttributeError 'NoneType' object has no attribute 'created_on' while Eddy patched moto at import). They make
that client with botocore's account endpoints off: botocore 1.44 sends DescribeStream to
<account>.streams-ddb.<region>.amazonaws.com, which moto 5.2.5 does not serve ("Not yet implemented"), with
or without Eddy installed.

Slow (a wheel, a virtualenv, pytest installed in it): the session's `installed` fixture (tests/installed_wheel.py) is
the wheel and the virtualenv tests/test_package.py uses as well.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.installed_wheel import Installed

pytestmark = [pytest.mark.xdist_group("package"), pytest.mark.slow]

ORDER_STREAM = '''
"""The project's own stream handler: each new order's id into the `shipments` table."""
import boto3


def handler(event, context):
    table = boto3.client("dynamodb")
    for record in event["Records"]:
        if record["eventName"] == "INSERT":
            order = record["dynamodb"]["NewImage"]["pk"]
            table.put_item(TableName="shipments", Item={"pk": order, "by": {"S": context.function_name}})
    return {"batchItemFailures": []}
'''

MOTO_TESTS = '''
import io
import json
import zipfile

import boto3
from botocore.config import Config
from moto import mock_aws

REGION = "us-east-1"
KEY = dict(KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")


@mock_aws
def test_dynamodb_stream_described_by_moto():
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    dynamodb.create_table(TableName="orders", StreamSpecification={"StreamEnabled": True,
                                                                   "StreamViewType": "NEW_AND_OLD_IMAGES"}, **KEY)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}})
    arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    streams = boto3.client("dynamodbstreams", region_name=REGION, config=Config(account_id_endpoint_mode="disabled"))
    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert (description["StreamStatus"], description["StreamViewType"], len(description["Shards"])) == (
        "ENABLED", "NEW_AND_OLD_IMAGES", 1)
    shard = description["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records = streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    assert [(r["eventName"], r["dynamodb"]["Keys"]) for r in records] == [("INSERT", {"pk": {"S": "o-1"}})]


@mock_aws
def test_s3_sqs_and_sns():
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket="invoices")
    s3.put_object(Bucket="invoices", Key="o-1.json", Body=b"{}")
    assert s3.get_object(Bucket="invoices", Key="o-1.json")["Body"].read() == b"{}"
    sqs = boto3.client("sqs", region_name=REGION)
    url = sqs.create_queue(QueueName="inbox")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns = boto3.client("sns", region_name=REGION)
    topic = sns.create_topic(Name="orders")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn, Attributes={"RawMessageDelivery": "true"})
    sns.publish(TopicArn=topic, Message="o-1")
    sqs.send_message(QueueUrl=url, MessageBody="o-2")
    bodies = [m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
    assert sorted(bodies) == ["o-1", "o-2"]


def _zip():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\\n    return event\\n")
    return buffer.getvalue()


@mock_aws
def test_lambda_api_without_invoking():
    role = boto3.client("iam", region_name=REGION).create_role(
        RoleName="runner", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}))["Role"]
    functions = boto3.client("lambda", region_name=REGION)
    assert functions.list_functions()["Functions"] == []
    functions.create_function(FunctionName="ship", Runtime="python3.12", Role=role["Arn"], Handler="app.handler",
                              Code={"ZipFile": _zip()})
    assert [f["FunctionName"] for f in functions.list_functions()["Functions"]] == ["ship"]


@mock_aws
def test_kinesis():
    kinesis = boto3.client("kinesis", region_name=REGION)
    kinesis.create_stream(StreamName="clicks", ShardCount=1)
    kinesis.put_record(StreamName="clicks", Data=b"c-1", PartitionKey="p")
    shard = kinesis.describe_stream(StreamName="clicks")["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = kinesis.get_shard_iterator(StreamName="clicks", ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    assert [r["Data"] for r in kinesis.get_records(ShardIterator=iterator["ShardIterator"])["Records"]] == [b"c-1"]


@mock_aws
def test_eventbridge_rule_to_a_queue():
    sqs = boto3.client("sqs", region_name=REGION)
    url = sqs.create_queue(QueueName="events")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events = boto3.client("events", region_name=REGION)
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="orders", Targets=[{"Id": "q", "Arn": queue_arn}])
    events.put_events(Entries=[{"Source": "shop", "DetailType": "placed", "Detail": json.dumps({"id": "o-1"})}])
    messages = sqs.receive_message(QueueUrl=url)["Messages"]
    assert [json.loads(m["Body"])["detail"] for m in messages] == [{"id": "o-1"}]
'''

EDDY_TESTS = '''
import boto3

import handlers
from handlers import order_stream

KEY = dict(KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")


def test_the_projects_own_handlers_package_is_imported():
    assert handlers.__file__.endswith("shop/handlers/__init__.py")


def test_the_projects_handler_behind_a_stream(eddy):
    dynamodb = boto3.client("dynamodb")
    dynamodb.create_table(TableName="shipments", **KEY)
    dynamodb.create_table(TableName="orders", StreamSpecification={"StreamEnabled": True,
                                                                   "StreamViewType": "NEW_IMAGE"}, **KEY)
    eddy.register_function("order-stream", order_stream.handler)
    arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    boto3.client("lambda").create_event_source_mapping(EventSourceArn=arn, FunctionName="order-stream",
                                                       StartingPosition="TRIM_HORIZON")
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}})
    eddy.wait_idle()
    assert dynamodb.scan(TableName="shipments")["Items"] == [{"pk": {"S": "o-1"}, "by": {"S": "order-stream"}}]


def test_a_sam_template_without_the_sam_extra_says_what_to_install(eddy):
    import pytest
    from botocore.exceptions import ClientError

    template = "Transform: AWS::Serverless-2016-10-31\\nResources:\\n  T: {Type: AWS::Serverless::SimpleTable}\\n"
    with pytest.raises(ClientError) as refused:
        boto3.client("cloudformation").create_stack(StackName="sam", TemplateBody=template,
                                                    Capabilities=["CAPABILITY_AUTO_EXPAND"])
    assert refused.value.response["Error"]["Message"] == (
        "Transform AWS::Serverless-2016-10-31 needs aws-sam-translator, which a plain install of Eddy leaves out: "
        'pip install "eddy[sam]"')


def test_a_service_whose_packages_the_plain_install_leaves_out_says_what_to_install(eddy):
    import pytest
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError) as refused:
        boto3.client("cognito-idp").list_user_pools(MaxResults=1)
    assert refused.value.response["Error"] == {
        "Code": "NotImplemented", "Message": "moto needs the Python package 'joserfc' for this service, which a "
                                             'plain install of Eddy leaves out: pip install "eddy[all-services]"'}
'''


@pytest.fixture(scope="module")
def project(installed: Installed) -> Path:
    """The project `shop`: its handlers package, a moto test module and an Eddy test module; pytest installed."""
    # pytest, and moto's `events` extra: the project's own EventBridge tests run moto's delivery, which needs it
    # (jsonpath-ng); Eddy's plain install does not bring it, so a project with such tests installs it, as it did
    # before Eddy. One pip run for both (pip's own start and resolution: pytest alone is 2.5 s of CPU)
    installed.pip_install("pytest", "moto[events]")
    root = installed.outside / "shop"
    for name, text in {"handlers/__init__.py": "", "handlers/order_stream.py": ORDER_STREAM,
                       "tests/test_with_moto.py": MOTO_TESTS, "tests/test_with_eddy.py": EDDY_TESTS}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _pytest(installed: Installed, project: Path, *args: str) -> dict[str, int]:
    """One pytest session in the project (its root on sys.path, as `python -m pytest` puts it), on a machine
    without AWS configuration: a HOME of its own and no AWS_ variable. Returns the outcomes it counted."""
    env = {name: value for name, value in installed.env.items() if not name.startswith("AWS_")}
    env["HOME"] = str(project.parent / "home")
    Path(env["HOME"]).mkdir(exist_ok=True)
    result = subprocess.run([str(installed.python), "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
                             *args], cwd=project, env=env, capture_output=True, text=True, timeout=900)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    counts = {kind: int(number) for number, kind in re.findall(r"(\d+) (passed|failed|error|errors)", summary)}
    assert "failed" not in counts and "error" not in counts and "errors" not in counts, result.stdout + result.stderr
    return counts


@pytest.mark.parametrize("order", [("test_with_moto.py", "test_with_eddy.py"),
                                   ("test_with_eddy.py", "test_with_moto.py")], ids=["moto-first", "eddy-first"])
def test_a_projects_moto_tests_and_eddy_tests_pass_in_one_session(installed: Installed, project: Path,
                                                                  order: tuple[str, str]) -> None:
    assert _pytest(installed, project, *(f"tests/{name}" for name in order)) == {"passed": 9}


def test_the_moto_tests_give_what_they_give_without_eddys_plugin(installed: Installed,
                                                                 project: Path) -> None:
    assert _pytest(installed, project, "-p", "no:eddy", "tests/test_with_moto.py") == {"passed": 5}
    assert _pytest(installed, project, "tests/test_with_moto.py") == {"passed": 5}
