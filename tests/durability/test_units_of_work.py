"""Each request is one unit of work (storage/units_of_work.py): what it changed is written down in one append, or
taken back when the disk refuses it, and nothing it queued runs.

The fault is real and at the file layer, as in test_disk_errors.py: the kernel's RLIMIT_FSIZE set to the log's size,
so the next write that grows a file fails with EFBIG, which is not a full disk (no reserve applies). Each refused
request answers its service's 500 (Lambda's ServiceException: botocore's lambda model, HTTP 500, "The Lambda service
encountered an internal error"), which the SDKs retry; what every Describe/Get/List answers is then as before the
request, and the same after kill -9 (server) or the block's end (in-process) and a restart. Before the units of work
these changes stayed applied after their 500 and were lost at the restart (probed on 2026-11-28,
/work/scratch/issue38-probes/probe.py).
"""

from __future__ import annotations

import json
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from tests.durability.test_disk_errors import failing_writes, lift
from tests.durability.test_disk_full import NO_RETRIES, Eddy, refused, running
from tests.emulator.functions.test_functions import create_function
from tests.emulator.global_tables.helpers import EAST, WEST

pytestmark = pytest.mark.slow

ACCOUNT_QUEUE = "arn:aws:sqs:us-east-1:123456789012:"


@pytest.fixture(params=["inprocess", "server"])
def door(request: pytest.FixtureRequest) -> str:
    return request.param


def functions_held(eddy: Eddy) -> dict[str, Any]:
    """The functions as Lambda's API answers them: configuration, versions, aliases, mappings, and what it runs."""
    lam = eddy.client("lambda")

    def answer(response: dict[str, Any]) -> dict[str, Any]:
        return {name: value for name, value in response.items() if name != "ResponseMetadata"}

    return {
        "functions": sorted(f["FunctionName"] for f in lam.list_functions()["Functions"]),
        "configuration": answer(lam.get_function_configuration(FunctionName="f")),
        "versions": [answer(v) for v in lam.list_versions_by_function(FunctionName="f")["Versions"]],
        "aliases": [answer(a) for a in lam.list_aliases(FunctionName="f")["Aliases"]],
        "mappings": sorted(
            (m["UUID"], m["EventSourceArn"], m["FunctionArn"], m["BatchSize"])
            for m in lam.list_event_source_mappings()["EventSourceMappings"]
        ),
        "runs": lam.invoke(FunctionName="f")["Payload"].read(),
    }


def code_folders(state: Path) -> list[str]:
    """Function f's code folders (its first, its versions', each update's): a refused update leaves none behind."""
    home = state / "functions" / "123456789012" / "us-east-1" / "f"
    return sorted(str(path.relative_to(home)) for path in home.rglob("code"))


def test_lambda_changes_the_disk_refuses_are_taken_back(door: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with running(door, state) as eddy:
        lam, sqs = eddy.client("lambda"), eddy.client("sqs")
        create_function(lam, "f", "def handler(event, context):\n    return 1\n", Description="kept")
        lam.publish_version(FunctionName="f")
        lam.get_waiter("published_version_active").wait(FunctionName="f", Qualifier="1")
        lam.update_function_configuration(FunctionName="f", Description="kept, changed since version 1")
        lam.get_waiter("function_updated_v2").wait(FunctionName="f")  # a PublishVersion now makes version 2
        create_function(lam, "other", "def handler(event, context):\n    return 2\n")
        for name in ("work", "jobs"):
            sqs.create_queue(QueueName=name)
        mapping = lam.create_event_source_mapping(FunctionName="f", EventSourceArn=ACCOUNT_QUEUE + "jobs",
                                                  BatchSize=5, Enabled=False)["UUID"]
        url = sqs.get_queue_url(QueueName="work")["QueueUrl"]
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        before, folders = functions_held(eddy), code_folders(state)
        assert (before["functions"], [v["Version"] for v in before["versions"]], before["runs"]) == \
            (["f", "other"], ["$LATEST", "1"], b"1")
        with failing_writes(eddy.pid, state):
            for name, call in [
                ("UpdateFunctionConfiguration",
                 lambda: lam.update_function_configuration(FunctionName="f", Description="refused", Timeout=9)),
                ("UpdateFunctionCode", lambda: lam.update_function_code(
                    FunctionName="f", ZipFile=_zip("def handler(event, context):\n    return 3\n"))),
                ("PublishVersion", lambda: lam.publish_version(FunctionName="f")),
                ("CreateAlias", lambda: lam.create_alias(FunctionName="f", Name="live", FunctionVersion="1")),
                ("TagResource", lambda: lam.tag_resource(Resource=before["configuration"]["FunctionArn"],
                                                         Tags={"team": "refused"})),
                ("CreateEventSourceMapping", lambda: lam.create_event_source_mapping(
                    FunctionName="f", EventSourceArn=ACCOUNT_QUEUE + "work", BatchSize=3)),
                ("UpdateEventSourceMapping", lambda: lam.update_event_source_mapping(UUID=mapping, BatchSize=7)),
                ("DeleteEventSourceMapping", lambda: lam.delete_event_source_mapping(UUID=mapping)),
                ("DeleteFunction", lambda: lam.delete_function(FunctionName="other")),
                ("DeleteFunction version", lambda: lam.delete_function(FunctionName="f", Qualifier="1")),
            ]:
                assert refused(call, "lambda"), name
                assert functions_held(eddy) == before, name
                assert code_folders(state) == folders, name
        retrying = eddy.client("lambda", Config(retries={"mode": "standard", "total_max_attempts": 3}))
        with failing_writes(eddy.pid, state):  # the first attempt refused, then the disk works again
            retrying.meta.events.register_first("needs-retry", lambda attempts, **_: lift(eddy.pid))
            answer = retrying.update_function_configuration(FunctionName="f", Description="retried")
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"],
                answer["Description"]) == (200, 1, "retried")
        lam.get_waiter("function_updated_v2").wait(FunctionName="f")
        expected = functions_held(eddy)
        unchanged = ("functions", "aliases", "mappings", "runs")  # only $LATEST's configuration was changed
        assert ([expected[key] for key in unchanged], expected["versions"][1:]) == \
            ([before[key] for key in unchanged], before["versions"][1:])
        assert expected["configuration"]["Description"] == "retried"
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert functions_held(eddy) == expected


def _zip(source: str) -> bytes:
    from tests.emulator.functions.test_functions import zip_of

    return zip_of({"app.py": source})


KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}


def tables_held(eddy: Eddy) -> dict[str, Any]:
    """The tables as DynamoDB's and DynamoDB Streams' APIs answer them."""
    ddb, streams = eddy.client("dynamodb"), eddy.client("dynamodbstreams")

    def answer(response: dict[str, Any]) -> dict[str, Any]:
        return {name: value for name, value in response.items() if name != "ResponseMetadata"}

    names = ddb.list_tables()["TableNames"]
    return {
        "tables": names,
        "descriptions": [answer(ddb.describe_table(TableName=name)) for name in names],
        "time to live": [answer(ddb.describe_time_to_live(TableName=name)) for name in names],
        "backups": [answer(ddb.describe_continuous_backups(TableName=name)) for name in names],
        "tags": [answer(ddb.list_tags_of_resource(ResourceArn=ddb.describe_table(TableName=name)["Table"]["TableArn"]))
                 for name in names],
        "items": [sorted(item["pk"]["S"] for item in ddb.scan(TableName=name)["Items"]) for name in names],
        "streams": [answer(streams.describe_stream(StreamArn=s["StreamArn"]))
                    for s in streams.list_streams()["Streams"]],
    }


def test_table_definitions_the_disk_refuses_are_taken_back(door: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with running(door, state) as eddy:
        ddb, sqs = eddy.client("dynamodb"), eddy.client("sqs")
        ddb.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST", Tags=[{"Key": "team", "Value": "a"}],
                         StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}, **KEY)
        ddb.create_table(TableName="plain", BillingMode="PAY_PER_REQUEST", **KEY)
        for name in ("orders", "plain"):
            ddb.put_item(TableName=name, Item={"pk": {"S": f"{name}-1"}})
        orders_arn = ddb.describe_table(TableName="orders")["Table"]["TableArn"]
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        before = tables_held(eddy)
        assert (before["tables"], before["items"], len(before["streams"])) == \
            (["orders", "plain"], [["orders-1"], ["plain-1"]], 1)
        policy = ('{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": '
                  '"arn:aws:iam::123456789012:root"}, "Action": "dynamodb:GetItem", "Resource": "*"}]}')
        with failing_writes(eddy.pid, state):
            for name, call in [
                ("CreateTable", lambda: ddb.create_table(TableName="refused", BillingMode="PAY_PER_REQUEST", **KEY)),
                ("CreateTable with a stream", lambda: ddb.create_table(
                    TableName="refused", BillingMode="PAY_PER_REQUEST", **KEY,
                    StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})),
                ("UpdateTimeToLive", lambda: ddb.update_time_to_live(
                    TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})),
                ("TagResource", lambda: ddb.tag_resource(ResourceArn=orders_arn, Tags=[{"Key": "b", "Value": "c"}])),
                ("UntagResource", lambda: ddb.untag_resource(ResourceArn=orders_arn, TagKeys=["team"])),
                ("UpdateContinuousBackups", lambda: ddb.update_continuous_backups(
                    TableName="plain", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})),
                ("PutResourcePolicy", lambda: ddb.put_resource_policy(ResourceArn=orders_arn, Policy=policy)),
                ("UpdateTable billing", lambda: ddb.update_table(
                    TableName="plain", BillingMode="PROVISIONED",
                    ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})),
                ("UpdateTable stream on", lambda: ddb.update_table(
                    TableName="plain", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})),
                ("UpdateTable stream off", lambda: ddb.update_table(
                    TableName="orders", StreamSpecification={"StreamEnabled": False})),
                ("DeleteTable", lambda: ddb.delete_table(TableName="orders")),
            ]:
                assert refused(call, "dynamodb"), name
                assert tables_held(eddy) == before, name
        retrying = eddy.client("dynamodb", Config(retries={"mode": "standard", "total_max_attempts": 3}))
        with failing_writes(eddy.pid, state):  # the first attempt refused, then the disk works again
            retrying.meta.events.register_first("needs-retry", lambda attempts, **_: lift(eddy.pid))
            answer = retrying.update_time_to_live(
                TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"],
                answer["TimeToLiveSpecification"]) == (200, 1, {"Enabled": True, "AttributeName": "expires"})
        ddb.put_item(TableName="orders", Item={"pk": {"S": "orders-2"}})  # the stream still takes records
        expected = tables_held(eddy)
        assert expected["items"] == [["orders-1", "orders-2"], ["plain-1"]]
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert tables_held(eddy) == expected


def pipes_held(eddy: Eddy) -> dict[str, Any]:
    """The pipes as the Pipes API answers them."""
    pipes = eddy.client("pipes")
    names = sorted(p["Name"] for p in pipes.list_pipes()["Pipes"])
    described = [{k: v for k, v in pipes.describe_pipe(Name=name).items() if k != "ResponseMetadata"} for name in names]
    return {"names": names, "pipes": described,
            "tags": [pipes.list_tags_for_resource(resourceArn=p["Arn"])["tags"] for p in described]}


def test_pipe_changes_the_disk_refuses_are_taken_back(door: str, tmp_path: Path) -> None:
    # Pipes are kept in <state>/pipes/pipes.json, swapped in whole: the file size limit is set to its size, so a
    # change that makes it larger is refused (EFBIG) on its temporary file; the file stays as it was.
    state = tmp_path / "state"
    with running(door, state) as eddy:
        lam, sqs, pipes = eddy.client("lambda"), eddy.client("sqs"), eddy.client("pipes")
        function = create_function(lam, "f", "def handler(event, context):\n    return 1\n")["FunctionArn"]
        source = ACCOUNT_QUEUE + "jobs"
        sqs.create_queue(QueueName="jobs")
        pipes.create_pipe(Name="kept", Source=source, Target=function, RoleArn="arn:aws:iam::123456789012:role/p",
                          Tags={"team": "a"})
        before = pipes_held(eddy)
        assert (before["names"], before["pipes"][0]["CurrentState"]) == (["kept"], "RUNNING")
        saved = state / "pipes" / "pipes.json"
        with file_size_limit(eddy.pid, saved.stat().st_size):
            for name, call in [
                ("CreatePipe", lambda: pipes.create_pipe(Name="refused", Source=source, Target=function,
                                                         RoleArn="arn:aws:iam::123456789012:role/p")),
                ("UpdatePipe", lambda: pipes.update_pipe(Name="kept", RoleArn="arn:aws:iam::123456789012:role/p",
                                                         Description="a longer description, refused")),
                ("TagResource", lambda: pipes.tag_resource(resourceArn=before["pipes"][0]["Arn"],
                                                           tags={"refused": "yes"})),
            ]:
                with pytest.raises(ClientError) as refusal:
                    call()
                assert (refusal.value.response["ResponseMetadata"]["HTTPStatusCode"],
                        refusal.value.response["Error"]["Code"]) == (500, "InternalFailure"), name
                assert pipes_held(eddy) == before, name
        retrying = eddy.client("pipes", Config(retries={"mode": "standard", "total_max_attempts": 3}))
        with file_size_limit(eddy.pid, saved.stat().st_size):  # the first attempt refused, then the disk works
            retrying.meta.events.register_first("needs-retry", lambda attempts, **_: lift(eddy.pid))
            answer = retrying.update_pipe(Name="kept", RoleArn="arn:aws:iam::123456789012:role/p",
                                          Description="a longer description, retried")
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        expected = pipes_held(eddy)
        assert (expected["names"], expected["pipes"][0]["Description"], expected["pipes"][0]["CurrentState"]) == \
            (["kept"], "a longer description, retried", "RUNNING")
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert pipes_held(eddy) == expected


@contextmanager
def file_size_limit(pid: int | None, size: int) -> Iterator[None]:
    """Every write of the process (`pid`, or this one) that grows a file past `size` fails (EFBIG)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if pid is None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    else:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        lift(pid, soft, hard)


def test_a_permission_the_disk_refuses_is_taken_back(door: str, tmp_path: Path) -> None:
    """AddPermission appends its statement to the policy the function already holds (in place): refused, the policy
    is the one logged before it, not the one the refused statement was appended to."""
    state = tmp_path / "state"
    with running(door, state) as eddy:
        lam, sqs = eddy.client("lambda"), eddy.client("sqs")
        create_function(lam, "f", "def handler(event, context):\n    return 1\n")
        lam.add_permission(FunctionName="f", StatementId="one", Action="lambda:InvokeFunction",
                           Principal="s3.amazonaws.com")
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        before = lam.get_policy(FunctionName="f")
        before.pop("ResponseMetadata")
        with failing_writes(eddy.pid, state):
            assert refused(lambda: lam.add_permission(FunctionName="f", StatementId="two",
                                                      Action="lambda:InvokeFunction", Principal="sns.amazonaws.com"),
                           "lambda")
            after = lam.get_policy(FunctionName="f")
        after.pop("ResponseMetadata")
        assert after == before  # without the copy: statement "two" stayed after its 500
    with running(door, state, kill=False) as eddy:
        again = eddy.client("lambda").get_policy(FunctionName="f")
        again.pop("ResponseMetadata")
        assert again == before


# notes each event it receives in the table "sink": which service pushed it, and what about
NOTE_EVENT = '''
import boto3
dynamodb = boto3.client("dynamodb")
def handler(event, context):
    if "Records" in event:
        record = event["Records"][0]
        what = record["s3"]["object"]["key"] if "s3" in record else record["Sns"]["Message"]
    else:
        what = event["detail-type"]
    dynamodb.put_item(TableName="sink", Item={"pk": {"S": what}})
'''


def test_what_a_refused_request_queued_is_neither_logged_nor_run_after_kill_9(door: str, tmp_path: Path) -> None:
    # An S3 put with a function notification, an SNS publish to a function and a PutEvents whose rule targets a
    # function, each refused (500): what each queued (an asynchronous invocation, a rule's delivery) waits for its
    # request's append and is dropped with it. Before the units of work (d1e3800) the event was written down first,
    # then its request's own entry refused: logged, it ran after a kill -9 and restart.
    state = tmp_path / "state"
    with running(door, state) as eddy:
        ddb, lam, s3, sns, events, sqs = (eddy.client(name) for name in
                                          ("dynamodb", "lambda", "s3", "sns", "events", "sqs"))
        ddb.create_table(TableName="sink", BillingMode="PAY_PER_REQUEST", **KEY)
        arn = create_function(lam, "note", NOTE_EVENT, Timeout=30)["FunctionArn"]
        s3.create_bucket(Bucket="photos")
        s3.put_bucket_notification_configuration(Bucket="photos", NotificationConfiguration={
            "LambdaFunctionConfigurations": [{"LambdaFunctionArn": arn, "Events": ["s3:ObjectCreated:*"]}]})
        topic = sns.create_topic(Name="news")["TopicArn"]
        sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=arn)
        events.put_rule(Name="orders", EventPattern='{"source": ["shop"]}')
        events.put_targets(Rule="orders", Targets=[{"Id": "note", "Arn": arn}])
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        with failing_writes(eddy.pid, state):
            for service, call in [
                ("s3", lambda: s3.put_object(Bucket="photos", Key="refused", Body=b"r")),
                ("sns", lambda: sns.publish(TopicArn=topic, Message="refused")),
                ("sns", lambda: events.put_events(Entries=[{"Source": "shop", "DetailType": "refused",
                                                            "Detail": "{}"}])),
            ]:
                assert refused(call, service), service
        assert eddy.control("/_eddy/idle", {"Timeout": 120})["Idle"]
        assert ddb.scan(TableName="sink")["Items"] == []
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        ddb = eddy.client("dynamodb")
        assert eddy.control("/_eddy/idle", {"Timeout": 120})["Idle"]
        assert ddb.scan(TableName="sink")["Items"] == []  # nothing of the refused requests ran after the restart
        eddy.client("s3").put_object(Bucket="photos", Key="accepted", Body=b"a")  # the path works: it runs
        eddy.client("sns").publish(TopicArn=topic, Message="published")
        assert eddy.control("/_eddy/idle", {"Timeout": 120})["Idle"]
        assert sorted(item["pk"]["S"] for item in ddb.scan(TableName="sink")["Items"]) == ["accepted", "published"]


def test_a_publish_the_disk_refuses_posts_nothing_to_its_http_subscription(door: str, tmp_path: Path) -> None:
    """An HTTP notification is queued only once its Publish is written down: a Publish answered 500 posts nothing,
    then or after a restart."""
    from tests.emulator.api.sns.http_endpoint import Endpoint

    state = tmp_path / "state"
    with Endpoint() as endpoint:
        with running(door, state) as eddy:
            sns, sqs = eddy.client("sns"), eddy.client("sqs")
            topic = sns.create_topic(Name="orders")["TopicArn"]
            sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url)
            [(_, confirmation)] = endpoint.wait_for(1)
            sns.confirm_subscription(TopicArn=topic, Token=json.loads(confirmation)["Token"])
            url = sqs.create_queue(QueueName="work")["QueueUrl"]
            for n in range(60):  # the log grows past every other file this process writes while the limit holds
                sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
            with failing_writes(eddy.pid, state):
                assert refused(lambda: sns.publish(TopicArn=topic, Message="refused"), "sns")
            sns.publish(TopicArn=topic, Message="written")
            endpoint.wait_for(2)  # queued after the refused one: had that been queued, it would be sent first
            assert eddy.control("/_eddy/idle", {"timeout": 120})["Idle"]  # its delivery written down before kill -9
        with running(door, state, kill=False) as eddy:  # nothing of the refused Publish comes back either
            eddy.client("sns").publish(TopicArn=topic, Message="after the restart")
            endpoint.wait_for(3)
        sent = [(json.loads(body)["Type"], json.loads(body)["Message"]) for _, body in endpoint.received[1:]]
        assert sent == [("Notification", "written"), ("Notification", "after the restart")]


def regional(eddy: Eddy, region: str, config: Config = NO_RETRIES) -> Any:
    """DynamoDB in `region`, through the test's door."""
    if eddy.url is None:
        return boto3.client("dynamodb", region_name=region, config=config)
    return boto3.client("dynamodb", endpoint_url=eddy.url, region_name=region, aws_access_key_id="k",
                        aws_secret_access_key="s", config=config)


def replicas_held(eddy: Eddy) -> dict[str, Any]:
    """The global table as DescribeTable answers it in the source's region and in the replica's (whole), and its
    items in each."""
    held: dict[str, Any] = {}
    for region in (EAST, WEST):
        ddb = regional(eddy, region)
        try:
            table = ddb.describe_table(TableName="scores")["Table"]
        except ClientError as error:
            held[region] = error.response["Error"]["Code"]
            continue
        held[region] = {"table": table, "items": sorted(item["pk"]["S"] for item in ddb.scan(
            TableName="scores", ConsistentRead=True)["Items"])}
    return held


def test_replica_changes_the_disk_refuses_leave_their_group_as_it_was(door: str, tmp_path: Path) -> None:
    # A replica's creation (UpdateTable ReplicaUpdates Create: its table made and filled, the group begun) and its
    # DeleteTable (global_tables/replication.py's table_deleted: it leaves its group) change the group, which is
    # journaled in a file of its own (global_tables/journal.py). A refused DeleteTable put the table back, but the
    # group had let the replica go, on disk too: the source's DescribeTable listed no Replicas (review of issue 38).
    # Now the group's change is part of the request's unit of work: put back if refused, journaled once written.
    state = tmp_path / "state"
    with running(door, state) as eddy:
        east, west, sqs = regional(eddy, EAST), regional(eddy, WEST), eddy.client("sqs")
        east.create_table(TableName="scores", BillingMode="PAY_PER_REQUEST", **KEY)  # no stream: Create enables it
        east.put_item(TableName="scores", Item={"pk": {"S": "a"}})
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        regional_table = replicas_held(eddy)
        assert (regional_table[WEST], "Replicas" in regional_table[EAST]["table"]) == \
            ("ResourceNotFoundException", False)
        create = {"TableName": "scores", "ReplicaUpdates": [{"Create": {"RegionName": WEST}}]}
        with failing_writes(eddy.pid, state):  # the replica's table, its fill and its group: none of it kept
            assert refused(lambda: east.update_table(**create), "dynamodb")
            assert replicas_held(eddy) == regional_table
        retrying = regional(eddy, EAST, Config(retries={"mode": "standard", "total_max_attempts": 3}))
        with failing_writes(eddy.pid, state):  # the first attempt refused, then the disk works again
            retrying.meta.events.register_first("needs-retry", lambda attempts, **_: lift(eddy.pid))
            answer = retrying.update_table(**create)
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        eddy.control("/_eddy/clock", {"advance": 120})  # the replica's creation is over: ACTIVE
        assert eddy.control("/_eddy/replication/wait", {"timeout": 60})["Converged"]
        before = replicas_held(eddy)
        assert ([before[region]["table"].get("Replicas") for region in (EAST, WEST)],
                [before[region]["items"] for region in (EAST, WEST)]) == \
            ([[{"RegionName": WEST, "ReplicaStatus": "ACTIVE"}], [{"RegionName": EAST, "ReplicaStatus": "ACTIVE"}]],
             [["a"], ["a"]])
        with failing_writes(eddy.pid, state):
            assert refused(lambda: west.delete_table(TableName="scores"), "dynamodb")
            assert replicas_held(eddy) == before
    with running(door, state) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert replicas_held(eddy) == before
        regional(eddy, EAST).put_item(TableName="scores", Item={"pk": {"S": "b"}})  # the group still replicates
        assert eddy.control("/_eddy/replication/wait", {"timeout": 60})["Converged"]
        assert [replicas_held(eddy)[region]["items"] for region in (EAST, WEST)] == [["a", "b"], ["a", "b"]]
        retrying = regional(eddy, WEST, Config(retries={"mode": "standard", "total_max_attempts": 3}))
        with failing_writes(eddy.pid, state):  # the first attempt refused, then the disk works again
            retrying.meta.events.register_first("needs-retry", lambda attempts, **_: lift(eddy.pid))
            answer = retrying.delete_table(TableName="scores")
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"]) == (200, 1)
        expected = replicas_held(eddy)
        assert (expected[WEST], "Replicas" in expected[EAST]["table"], expected[EAST]["items"]) == \
            ("ResourceNotFoundException", False, ["a", "b"])
    with running(door, state, kill=False) as eddy:
        assert replicas_held(eddy) == expected
