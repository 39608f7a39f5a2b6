"""The components a test may never use are made, and their modules loaded, by their first use (engine.py's
deferred_components.py): a plain DynamoDB cycle loads none of them (nor moto's Kinesis); the first use of each,
once the emulator runs, makes it and it works as if it had been there from the start."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from eddy import emulate
from tests.conftest import QUIET, Door, InProcessDoor, ServerDoor, eddy_server
from tests.lambda_functions import created_function

#: the packages of the components a DynamoDB table and its items do not use
UNUSED_BY_DYNAMODB = (
    "eddy.emulator.functions",
    "eddy.emulator.notifications",
    "eddy.emulator.eventbridge",
    "eddy.emulator.global_tables.replication",
    "eddy.emulator.triggers",
    "eddy.emulator.pipes",
    "eddy.emulator.cloudformation",
    "eddy.emulator.kinesis.durable",  # moto's Kinesis: its streams' channel, the seam's patches, moto's models
    "eddy.emulator.moto_seam.kinesis.streams",
    "moto.kinesis",
)

CYCLE = """
import sys
import boto3
from eddy import emulate

with emulate(housekeeping_interval=None):
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    dynamodb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST",
                          StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    for number in range(5):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"o-{number}"}})
    dynamodb.describe_table(TableName="orders")
    assert dynamodb.get_item(TableName="orders", Key={"pk": {"S": "o-3"}})["Item"] == {"pk": {"S": "o-3"}}
print(sorted(name for name in sys.modules if name.startswith(UNUSED)))
"""


def test_a_plain_dynamodb_cycle_loads_none_of_the_components_it_does_not_use():
    probe = f"UNUSED = {UNUSED_BY_DYNAMODB!r}\n" + CYCLE
    done = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr


def _zip(source: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("index.py", textwrap.dedent(source))
    return buffer.getvalue()


def test_components_made_after_the_emulator_started_run_as_if_made_at_its_start(door_with):
    # a fresh emulator in each door (in memory): the table's writes first, which make nothing deferred; then a
    # function, an S3 notification to it and an EventBridge rule targeting it, each made by that first use and started
    # as it is made (the function's code, in a worker, reaches the door through the environment the door set)
    with door_with() as door:
        dynamodb = door.client("dynamodb")
        dynamodb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST")
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}})
        if door.name == "inprocess":
            made = (door.emu._functions, door.emu._notifications, door.emu._eventbridge, door.emu._replication)
            assert made == (None, None, None, None)

        lambda_client, s3, events = (door.client(name) for name in ("lambda", "s3", "events"))
        code = """
            import boto3
            def handler(event, context):
                source = event["Records"][0]["s3"]["object"]["key"] if "Records" in event else event["detail-type"]
                boto3.client("dynamodb").put_item(TableName="orders", Item={"pk": {"S": source}})
        """
        function_arn = created_function(lambda_client,
            FunctionName="seen", Runtime="python3.12", Role="arn:aws:iam::123456789012:role/r", Handler="index.handler",
            Code={"ZipFile": _zip(code)},
        )["FunctionArn"]
        s3.create_bucket(Bucket="uploads")
        s3.put_bucket_notification_configuration(
            Bucket="uploads",
            NotificationConfiguration={"LambdaFunctionConfigurations": [
                {"LambdaFunctionArn": function_arn, "Events": ["s3:ObjectCreated:*"]}]},
        )
        s3.put_object(Bucket="uploads", Key="report.csv", Body=b"1")
        events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
        events.put_targets(Rule="orders", Targets=[{"Id": "seen", "Arn": function_arn}])
        events.put_events(Entries=[{"Source": "shop", "DetailType": "OrderPlaced", "Detail": "{}"}])
        door.wait_idle(timeout=120)

        keys = sorted(item["pk"]["S"] for item in dynamodb.scan(TableName="orders")["Items"])
        assert keys == ["OrderPlaced", "o-1", "report.csv"]


def _channels(emulator) -> list[tuple[str, str]]:
    return [(name, type(channel).__name__) for name, channel in emulator.persistence.channels.items()]


def test_a_durable_emulator_on_a_new_state_directory_makes_them_by_their_first_use_in_their_places(tmp_path):
    with emulate(state_dir=tmp_path / "kept", **QUIET) as first:  # leaves a snapshot and a log there
        assert first.persistence.durable
    with emulate(state_dir=tmp_path / "kept", **QUIET) as emu:  # a state directory that holds something: all made
        made_at_start = _channels(emu)
    assert "Reserved" not in {kind for _, kind in made_at_start}
    with emulate(state_dir=tmp_path / "new", **QUIET) as emu:
        reserved = [name for name, kind in _channels(emu) if kind == "Reserved"]
        assert reserved == ["s3_sequencer", "functions", "async_event", "rule_delivery", "sns_http_delivery"]
        assert [name for name, _ in _channels(emu)] == [name for name, _ in made_at_start]
        assert (emu._functions, emu._notifications, emu._eventbridge, emu._async_invocations) == (None,) * 4
        emu.notifications, emu.eventbridge  # made by their first use: each channel in the place its name held
        assert _channels(emu) == made_at_start


@contextmanager
def _durable_door(name: str, state: Path, kill: bool) -> Iterator[Door]:
    """A door on the durable state directory `state`; `kill`: the server ends with SIGKILL (no final snapshot)."""
    if name == "inprocess":
        with emulate(state_dir=state, **QUIET) as emu:
            yield InProcessDoor(emu)
        return
    with eddy_server("--state-dir", str(state), "--housekeeping-interval", "0") as (url, process):
        yield ServerDoor(url)
        if kill:
            process.kill()
            process.wait()


@pytest.mark.parametrize("door_name", ["inprocess", "server"])
def test_what_is_made_after_a_start_on_a_new_state_directory_is_kept(tmp_path, door_name):
    # functions, their asynchronous invocations and EventBridge made once the emulator runs, on a new state directory:
    # kept by a clean stop's snapshot (in-process) and by the log alone (the server killed with SIGKILL)
    state = tmp_path / "state"
    with _durable_door(door_name, state, kill=True) as door:
        lambda_client, events = door.client("lambda"), door.client("events")
        arn = created_function(lambda_client,
            FunctionName="kept", Runtime="python3.12", Role="arn:aws:iam::123456789012:role/r", Handler="index.handler",
            Code={"ZipFile": _zip("def handler(event, context):\n    return event\n")},
        )["FunctionArn"]
        lambda_client.invoke(FunctionName="kept", InvocationType="Event", Payload=b"{}")
        events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
        events.put_targets(Rule="orders", Targets=[{"Id": "kept", "Arn": arn}])
        door.wait_idle(timeout=120)
        before = (lambda_client.list_functions()["Functions"], events.list_targets_by_rule(Rule="orders")["Targets"])
    with _durable_door(door_name, state, kill=False) as door:
        lambda_client, events = door.client("lambda"), door.client("events")
        after = (lambda_client.list_functions()["Functions"], events.list_targets_by_rule(Rule="orders")["Targets"])
    assert after == before and before[0][0]["FunctionArn"] == arn
