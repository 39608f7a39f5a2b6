"""One fixture API: `eddy` (in-process) and `eddy_server` offer the same calls (client, wait_idle, assert_delivered,
the clock, control, reset) with the same answers, and their failures raise Eddy's own exceptions carrying the
emulator's message. A project of its own runs every test body below once with each fixture."""

from __future__ import annotations

import pytest

PROJECT_TESTS = '''
import io
import zipfile

import pytest

from eddy import NotDeliveredError
from eddy.emulator.errors import ResourceNotFoundException, ValidationException

KEY = dict(KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
STREAM = {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
FAILS = "def handler(event, context):\\n    raise ValueError('no price on ' + event['Records'][0]['dynamodb']['Keys']['pk']['S'])\\n"
IDLE = {"Idle": True, "Delivered": True, "Pending": [], "Failures": []}


@pytest.fixture(params=["eddy", "eddy_server"])
def aws(request):
    door = request.getfixturevalue(request.param)
    door.reset()  # the server is the session's: each test starts from nothing, as with the in-process fixture
    return door


def zipped(code):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", code)
    return buffer.getvalue()


def failing_pipeline(aws):
    """orders -> a zip function that fails on every record, no retries; returns (mapping UUID, shard id, stream)."""
    dynamodb = aws.client("dynamodb")
    arn = dynamodb.create_table(TableName="orders", StreamSpecification=STREAM, **KEY)["TableDescription"]["LatestStreamArn"]
    aws.client("lambda").create_function(FunctionName="audit", Runtime="python3.12", Handler="app.handler",
                                         Role="arn:aws:iam::123456789012:role/audit", Code={"ZipFile": zipped(FAILS)})
    mapping = aws.client("lambda").create_event_source_mapping(
        EventSourceArn=arn, FunctionName="audit", StartingPosition="TRIM_HORIZON", MaximumRetryAttempts=0)
    [shard] = aws.client("dynamodbstreams").describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    return mapping["UUID"], shard["ShardId"], arn


def discarded(uuid, shard, pk):
    return (f"not everything was delivered:\\n  mapping audit <- orders ({uuid[:8]}): 1 record(s) of {shard} discarded (RetryAttemptsExhausted "
            f'after 1 invocations, no on-failure destination): {{"pk": {{"S": "{pk}"}}}}; error: ValueError: no price on {pk}')


def test_assert_delivered_raises_not_delivered_with_the_emulators_message(aws):
    uuid, shard, stream = failing_pipeline(aws)
    aws.client("dynamodb").put_item(TableName="orders", Item={"pk": {"S": "o-17"}})
    with pytest.raises(NotDeliveredError) as raised:
        aws.assert_delivered()
    assert str(raised.value) == discarded(uuid, shard, "o-17")
    report = raised.value.report
    assert (report["Idle"], report["Delivered"], report["Pending"]) == (True, False, [])
    [failure] = report["Failures"]
    records = [discarded.pop("Records") for discarded in failure["Discarded"]]
    assert [[record["Keys"] for record in batch] for batch in records] == [[{"pk": {"S": "o-17"}}]]
    error = "ValueError: no price on o-17"
    assert failure == {
        "UUID": uuid, "Mapping": f"audit <- orders ({uuid[:8]})", "EventSourceArn": stream,
        "FunctionArn": "arn:aws:lambda:us-east-1:123456789012:function:audit", "FailedBatches": 1, "RecordsDiscarded": 1,
        "Discarded": [{"ShardId": shard, "Condition": "RetryAttemptsExhausted", "ApproximateInvokeCount": 1,
                       "OnFailureDestination": None, "Error": error}],
        "LastError": error}
    assert aws.assert_delivered() == IDLE  # what failed is reported once, by the wait after it
    aws.client("dynamodb").put_item(TableName="orders", Item={"pk": {"S": "o-18"}})
    with pytest.raises(NotDeliveredError) as raised:
        aws.control("delivered", {"timeout": 60})
    assert str(raised.value) == discarded(uuid, shard, "o-18")


def test_wait_idle_answers_alike(aws):
    assert aws.wait_idle() == IDLE
    assert aws.wait_idle(timeout=5) == IDLE
    assert aws.control("idle", {"timeout": 5}) == IDLE
    assert aws.control("/_eddy/idle", {}) == IDLE


def test_the_clock(aws):
    before, offset = aws.clock.now(), aws.clock.offset
    aws.clock.advance(3600)
    assert aws.clock.offset == offset + 3600
    assert 3600 <= aws.clock.now() - before < 3600 + 600
    answer = aws.control("clock", {"advance": 60})
    assert sorted(answer) == ["Now", "Offset"] and answer["Offset"] == offset + 3660
    with pytest.raises(ValueError):
        aws.clock.advance(-1)
    assert aws.clock.offset == offset + 3660


def test_a_controls_failure_is_the_emulators_error_with_its_message(aws):
    stream = "arn:aws:dynamodb:us-east-1:123456789012:table/none/stream/2026-01-01T00:00:00.000"
    with pytest.raises(ResourceNotFoundException) as raised:
        aws.control("shards/split", {"StreamArn": stream, "ShardId": "shardId-00000001"})
    assert (raised.value.code, raised.value.status) == ("ResourceNotFoundException", 400)
    assert raised.value.message == f"Requested resource not found: Stream: {stream} not found"
    with pytest.raises(ResourceNotFoundException, match="^No Eddy control at /_eddy/no-such-control$"):
        aws.control("no-such-control")
    with pytest.raises(ValidationException, match="^timeout must be a number of seconds from 0 to 600$"):
        aws.control("_eddy/idle", {"timeout": -1})


def test_reset_forgets_eddys_state_and_motos(aws):
    failing_pipeline(aws)
    aws.client("sqs").create_queue(QueueName="inbox")
    aws.reset()
    assert aws.client("dynamodb").list_tables()["TableNames"] == []
    assert aws.client("lambda").list_functions()["Functions"] == []
    assert aws.client("lambda").list_event_source_mappings()["EventSourceMappings"] == []
    assert "QueueUrls" not in aws.client("sqs").list_queues()
    assert aws.control("/moto-api/reset") == {"status": "ok"}
'''


def test_both_fixtures_offer_the_same_calls_with_the_same_answers(pytester: pytest.Pytester, unconfigured: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_fixture_api=PROJECT_TESTS)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "eddy", "-p", "no:cacheprovider", "-v", timeout=600)
    result.assert_outcomes(passed=10)
