"""Eddy is inert until used: importing it or loading its pytest plugin imports no moto service and patches
nothing; every patch of moto is applied while an emulator is open and removed when the last one closes, so a
project's own `mock_aws` tests and Eddy's alternate in one process (moto_seam/__init__.py). A service's patches go
on when moto's package for it is loaded, so an emulator loads only the services it is asked for."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap

import boto3
from botocore.config import Config
from moto import mock_aws

from eddy import emulate
from eddy.emulator import moto_seam as patching
from tests.conftest import QUIET


def _imported_after(code: str) -> list[str]:
    """The moto and Eddy modules a fresh interpreter has loaded after running `code`."""
    probe = code + "\nimport sys\nprint('\\n'.join(sorted(m for m in sys.modules if m.split('.')[0] in ('moto', 'eddy'))))"
    return subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout.split()


def test_importing_eddy_and_loading_its_plugin_import_neither_moto_nor_the_engine():
    loaded = _imported_after("import eddy, eddy.emulator.pytest_plugin")
    assert loaded == ["eddy", "eddy.emulator", "eddy.emulator.aws_environment", "eddy.emulator.pytest_plugin",
                      "eddy.emulator.settings"]


def test_an_emulator_loads_only_the_moto_services_it_patches_or_is_asked_for():
    """Application Auto Scaling's models (and with them EC2's and ECS's: seconds of imports) load on first use."""
    loaded = _imported_after(textwrap.dedent("""
        import boto3
        from eddy import emulate
        with emulate(housekeeping_interval=None):
            boto3.client("dynamodb", region_name="us-east-1").list_tables()
    """))
    assert not [name for name in loaded if name.startswith(("moto.ec2", "moto.ecs", "moto.applicationautoscaling"))]
    assert "moto.dynamodb.models" in loaded


def test_a_service_loaded_while_an_emulator_is_open_is_patched_as_it_loads_and_given_back_at_the_close():
    """moto's SQS, first imported inside the block: its patches go on at that import (and what the emulator told
    the SQS seam at its start, its clock, with them); after the block moto's SQS is moto's own again."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys
        from eddy import emulate
        from eddy.emulator.clock import Clock
        with emulate(housekeeping_interval=None, clock=Clock(source=lambda: 1_000_000.0)):
            print("moto.sqs" in sys.modules)
            from moto.sqs import models
            print(models.Queue.__dict__["add_message"].__module__, models.unix_time())
        print(models.Queue.__dict__["add_message"].__module__, models.unix_time() > 1_700_000_000)
    """)], check=True, capture_output=True, text=True).stdout.split("\n")
    assert out[:3] == ["False", "eddy.emulator.moto_seam.sqs 1000000.0", "moto.sqs.models True"]


def _patched() -> list[tuple[object, str, object]]:
    """Every (owner, name, moto's original) the seam has replaced now."""
    return [replaced for name in patching.MODULES for replaced in _patches_of(importlib.import_module(name))]


def _patches_of(module: object) -> list[tuple[object, str, object]]:
    found = []
    for value in vars(module).values():
        if isinstance(value, patching.Patches):
            found += value._replaced
        elif getattr(value, "__name__", "").startswith(module.__name__ + ".") and hasattr(value, "install"):
            found += _patches_of(value)  # a package's modules (notifications/, speedups/)
    return found


def test_every_patch_is_on_while_an_emulator_is_open_and_off_after_the_last_one_closes():
    for package, _ in patching.PATCHES:  # every service loaded: each one's patches go on when the emulator opens
        importlib.import_module(package)
    assert not patching.applied() and _patched() == []
    with emulate(**QUIET):
        replaced = _patched()
        owners = {getattr(owner, "__name__", type(owner).__name__) for owner, _, _ in replaced}
        assert {"Table", "BotocoreStubber", "Stream", "KinesisBackend", "Item", "DynamoType", "Queue", "S3Backend",
                "Subscription", "Rule", "FakeBucket", "SQSBackend"} <= owners
        patching.apply()  # a second emulator (eddy serve's, the loopback server's) opens
        patching.remove()  # ... and closes: the first one's patches stay
        assert _patched() == replaced and all(vars(owner).get(name) is not original
                                              for owner, name, original in replaced)
    assert not patching.applied() and _patched() == []
    first = {}  # an attribute patched twice (Stream.to_json) has moto's original in its first record
    for owner, name, original in replaced:
        first.setdefault((id(owner), name), (owner, name, original))
    for owner, name, original in first.values():
        assert vars(owner).get(name, patching._ABSENT) is original, f"{owner!r}.{name} is not moto's again"


def _moto_stream_test() -> list[dict]:
    """A project's own moto test: a table with a stream, an item, the stream described through moto's
    DynamoDB Streams (botocore's account endpoint off: moto 5.2 serves only streams.dynamodb.<region>)."""
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST",
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}})
        arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
        streams = boto3.client("dynamodbstreams", region_name="us-east-1",
                               config=Config(account_id_endpoint_mode="disabled"))
        shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        return [{key: value for key, value in shard.items() if key != "ShardId"} for shard in shards]


def test_mock_aws_and_emulate_alternate_in_one_process():
    """With the plugin loaded, moto's own DynamoDB Streams answered a moto test with AttributeError
    'NoneType' object has no attribute 'created_on' (Eddy's stream_shard property, set at import)."""
    before = _moto_stream_test()
    assert before == [{"SequenceNumberRange": {"StartingSequenceNumber": "1100000000017454423009"}}]  # moto's own
    with emulate(**QUIET):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST",
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o1"}})
        arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
        assert len(boto3.client("dynamodbstreams", region_name="us-east-1").describe_stream(
            StreamArn=arn)["StreamDescription"]["Shards"]) == 1
    assert _moto_stream_test() == before


def test_services_loaded_before_the_first_emulator_are_patched_once_and_deliver_once():
    """moto's services already imported when an emulator opens (a project that imported moto, or Eddy's own dashboard
    view, first): each seam module's patches go on once, though installing one loads another of moto's packages. Seen
    before the fix: SNS's subscription patch went on twice, so one message to an SQS subscription counted two
    deliveries on the dashboard (and S3's, EventBridge's and IAM's patches were doubled too)."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import json
        import moto.sns.models, moto.s3.models, moto.sqs.models, moto.events.models  # loaded before any emulator
        import boto3
        from eddy import emulate
        from eddy.emulator import moto_seam
        from eddy.emulator.dashboard.view import dashboard
        with emulate(housekeeping_interval=None) as emu:
            sqs, sns = boto3.client("sqs", region_name="us-east-1"), boto3.client("sns", region_name="us-east-1")
            url = sqs.create_queue(QueueName="inbox")["QueueUrl"]
            arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            topic = sns.create_topic(Name="orders")["TopicArn"]
            sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
            sns.publish(TopicArn=topic, Message="one")
            assert emu.wait_idle(60)["Idle"]
            installed = list(moto_seam._installed)
            print(json.dumps({
                "doubled": sorted({name for name in installed if installed.count(name) > 1}),
                "messages": sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])[
                    "Attributes"],
                "delivered": [s["NumberOfNotificationsDelivered"] for s in dashboard(emu)["Subscriptions"]],
            }))
    """)], check=True, capture_output=True, text=True, env={**os.environ, "AWS_ACCESS_KEY_ID": "testing",
                                                             "AWS_SECRET_ACCESS_KEY": "testing"}).stdout
    assert json.loads(out.splitlines()[-1]) == {"doubled": [], "messages": {"ApproximateNumberOfMessages": "1"},
                                                "delivered": [1]}
