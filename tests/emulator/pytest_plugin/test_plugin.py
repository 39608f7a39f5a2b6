"""The pytest plugin, as a project that has never seen Eddy uses it: a test directory of its own, no conftest,
no AWS configuration on the machine, plugins not auto-loaded, `pytest -p eddy`."""

from __future__ import annotations

import textwrap

import pytest

PROJECT_TESTS = '''
import os
import subprocess
import sys

import boto3
import pytest

from eddy.infra import apply_stack

EARLY = boto3.client("dynamodb")  # made at import, as Lambda code does; no region is configured anywhere
KEY = dict(KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
STREAM = {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}


def test_a_client_made_before_the_fixture_reaches_eddy(eddy):
    EARLY.create_table(TableName="orders", **KEY)
    assert boto3.client("dynamodb").list_tables()["TableNames"] == ["orders"]
    assert os.environ["AWS_DEFAULT_REGION"] == "us-east-1"


def test_each_test_starts_empty_on_its_own_clock(eddy):
    assert EARLY.list_tables()["TableNames"] == []
    before = eddy.clock.now()
    eddy.clock.advance(3600)
    assert eddy.clock.now() - before >= 3600


@pytest.mark.eddy(retention_seconds=60, split_records_per_second=5)
def test_settings_by_marker(eddy):
    assert (eddy.settings.retention_seconds, eddy.settings.split_records_per_second) == (60, 5)


@pytest.fixture
def orders(eddy):
    apply_stack("stack.yaml")
    return boto3.client("dynamodb")


def test_a_stack_applied_in_a_fixture(orders):
    table = orders.describe_table(TableName="orders")["Table"]
    assert table["StreamSpecification"] == STREAM


def test_a_handler_fails(eddy):
    dynamodb = boto3.client("dynamodb")
    dynamodb.create_table(TableName="orders", StreamSpecification=STREAM, **KEY)

    @eddy.function("audit")
    def audit(event, context):
        raise ValueError("no price on " + event["Records"][0]["dynamodb"]["Keys"]["pk"]["S"])

    arn = dynamodb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    boto3.client("lambda").create_event_source_mapping(EventSourceArn=arn, FunctionName="audit",
                                                       StartingPosition="TRIM_HORIZON", MaximumRetryAttempts=0)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-17"}})
    eddy.wait_idle()
    assert False, "audit never wrote its line"


def topic_to_a_queue_that_is_gone(sns, sqs):
    topic = sns.create_topic(Name="orders")["TopicArn"]
    url = sqs.create_queue(QueueName="orders-inbox")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    sqs.delete_queue(QueueUrl=url)
    sns.publish(TopicArn=topic, Message="lost")


def test_a_subscription_fails(eddy):
    topic_to_a_queue_that_is_gone(boto3.client("sns"), boto3.client("sqs"))
    assert False, "the order was never seen"


def test_a_server_subscription_fails(eddy_server):
    topic_to_a_queue_that_is_gone(eddy_server.client("sns"), eddy_server.client("sqs"))
    assert False, "the order was never seen"


def test_the_server_serves_other_processes(eddy_server):
    eddy_server.client("dynamodb").create_table(TableName="earlier", StreamSpecification=STREAM, **KEY)
    eddy_server.client("dynamodb").put_item(TableName="earlier", Item={"pk": {"S": "e-1"}})
    listed = subprocess.run([sys.executable, "-c", "import boto3; print(boto3.client('dynamodb').list_tables()['TableNames'])"],
                            env=eddy_server.env, capture_output=True, text=True)
    assert listed.stdout.strip() == "['earlier']", listed.stderr


def test_a_server_test_fails(eddy_server):
    dynamodb = eddy_server.client("dynamodb")
    dynamodb.create_table(TableName="later", StreamSpecification=STREAM, **KEY)
    dynamodb.put_item(TableName="later", Item={"pk": {"S": "l-1"}})
    assert False, "later"
'''

STACK = '''
tables:
  orders:
    key: {pk: S}
    stream: NEW_IMAGE
'''


@pytest.fixture
def project(pytester: pytest.Pytester, unconfigured: None, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A directory with its own tests, on a machine with no AWS configuration, where nothing is auto-loaded."""
    pytester.makepyfile(test_orders=PROJECT_TESTS)
    (pytester.path / "stack.yaml").write_text(STACK)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def test_pytest_p_eddy_in_a_project_that_never_saw_eddy(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-p", "eddy", "-p", "no:cacheprovider", timeout=600)
    result.assert_outcomes(passed=5, failed=4)
    output = result.stdout.str()
    # the in-process failure explains itself: the mapping's figures, its failed batch and last error, the stream
    report = output[output.index("what Eddy saw"):]
    assert "-> audit, Enabled): Invocations 1, Errors 1" in report
    assert "last error: ValueError: no price on o-17" in report
    assert "failed batch (request " in report
    assert "INSERT  pk='o-17'" in report
    # the server's failure shows the stream that test wrote to, not the one an earlier test of the session wrote
    server_report = output[output.index("_ test_a_server_test_fails _"):]
    server_report = server_report[server_report.index("what Eddy saw"):]
    assert "table/later/stream/" in server_report and "INSERT  pk='l-1'" in server_report
    assert "table/earlier/" not in server_report
    # a subscription's failed delivery, in both doors: its figures and last error
    for name in ("test_a_subscription_fails", "test_a_server_subscription_fails"):
        subscription_report = output[output.index(f"_ {name} _"):]
        subscription_report = subscription_report[subscription_report.index("what Eddy saw"):]
        assert "(orders -> sqs orders-inbox): NumberOfNotificationsDelivered 0, NumberOfNotificationsFailed 1, " \
               "NumberOfNotificationsFilteredOut 0" in subscription_report
        assert ": The destination queue does not exist: arn:aws:sqs:us-east-1:123456789012:orders-inbox" in \
            subscription_report and "  last error at " in subscription_report


def test_a_mark_with_an_unknown_setting_is_refused_by_name(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(textwrap.dedent('''
        import pytest

        @pytest.mark.eddy(retention_hours=1)
        def test_it(eddy):
            pass
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=300)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["@pytest.mark.eddy: no setting named retention_hours (settings: *retention_seconds*"])
