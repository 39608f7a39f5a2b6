"""Delivery semantics of event source mappings: batching, lineage, checkpoints, retries, bisect, partial
failures, record age, destinations, parallelization, tumbling windows, filters. In-process, with registered
callables, so each test can look at exactly what the handler saw."""

from __future__ import annotations

import json
import re
import threading

import boto3
import pytest

from tests.emulator.helpers import create_table, shards
from tests.emulator.trigger_helpers import put

REGION = "us-east-1"


class Recorder:
    """A handler that records every event it gets, and can be told how to answer."""

    def __init__(self, answer=None):
        self.events: list[dict] = []
        self.answer = answer
        self.lock = threading.Condition()

    def __call__(self, event, context):
        with self.lock:
            self.events.append(json.loads(json.dumps(event)))
            count = len(self.events)
            self.lock.notify_all()
        if self.answer is not None:
            return self.answer(event, count)
        return None

    def wait_for(self, count: int, timeout: float = 120) -> None:
        """Until `count` events came (`timeout` bounds the wait for that condition)."""
        with self.lock:
            assert self.lock.wait_for(lambda: len(self.events) >= count, timeout), self.events

    def keys(self) -> list[list[str]]:
        return [[r["dynamodb"]["Keys"]["pk"]["S"] for r in e["Records"]] for e in self.events]

    def flat(self) -> list[str]:
        return [k for batch in self.keys() for k in batch]


@pytest.fixture
def setup(emu):
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    lam = boto3.client("lambda", region_name=REGION)
    stream_arn = create_table(dynamodb, "orders")["LatestStreamArn"]

    def mapping(recorder, **options):
        emu.register_function("handler", recorder, timeout=5)
        params = dict(EventSourceArn=stream_arn, FunctionName="handler", StartingPosition="TRIM_HORIZON")
        params.update(options)
        return lam.create_event_source_mapping(**params)["UUID"]

    return emu, dynamodb, lam, stream_arn, mapping


def test_the_event_is_lambdas(setup):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder()
    mapping(recorder)
    dynamodb.update_time_to_live(TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "ttl": {"N": str(int(emu.clock.now()) - 1)}})
    emu.sweep_ttl()
    assert emu.wait_idle(120)["Idle"]
    records = [r for e in recorder.events for r in e["Records"]]
    assert [r["eventName"] for r in records] == ["INSERT", "REMOVE"]
    assert set(records[0]) == {"eventID", "eventName", "eventVersion", "eventSource", "awsRegion", "dynamodb", "eventSourceARN"}
    assert records[0]["eventSourceARN"] == arn and isinstance(records[0]["dynamodb"]["ApproximateCreationDateTime"], float)  # as AWS sends it
    assert records[1]["userIdentity"] == {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def test_batch_size_and_batching_window_on_the_clock(setup):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder()
    mapping(recorder, BatchSize=4, MaximumBatchingWindowInSeconds=60)
    for i in range(6):
        put(dynamodb, f"k{i}")
    recorder.wait_for(1)  # four go as a full batch
    assert emu.wait_idle(0.5)["Idle"] is False  # two wait for the window, which closes on the emulator's clock
    assert recorder.keys() == [["k0", "k1", "k2", "k3"]]
    emu.clock.advance(61)
    assert emu.wait_idle(120)["Idle"]
    assert recorder.keys() == [["k0", "k1", "k2", "k3"], ["k4", "k5"]]


def test_parents_before_children_through_splits_and_rollovers(setup):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder()
    keys = [f"k{i}" for i in range(12)]
    for key in keys:
        put(dynamodb, key, 1)
    [root] = shards(boto3.client("dynamodbstreams", region_name=REGION), arn)
    children = emu.split_shard(arn, root["ShardId"])
    for key in keys:
        put(dynamodb, key, 2)
    emu.rollover(arn)
    for key in keys:
        put(dynamodb, key, 3)
    mapping(recorder, BatchSize=5)
    emu.split_shard(arn, emu.streams.get(arn).open_shards[0].shard_id)  # a split while the mapping runs
    for key in keys:
        put(dynamodb, key, 4)
    assert emu.wait_idle(120)["Idle"]
    versions: dict[str, list[int]] = {}
    for event in recorder.events:
        for record in event["Records"]:
            versions.setdefault(record["dynamodb"]["Keys"]["pk"]["S"], []).append(int(record["dynamodb"]["NewImage"]["v"]["N"]))
    assert versions == {key: [1, 2, 3, 4] for key in keys}
    assert len(children) == 2


def test_disable_enable_and_update_resume_from_the_checkpoint(setup):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder()
    uuid = mapping(recorder, BatchSize=2)
    for i in range(3):
        put(dynamodb, f"a{i}")
    assert emu.wait_idle(120)["Idle"]
    lam.update_event_source_mapping(UUID=uuid, Enabled=False)
    for i in range(3):
        put(dynamodb, f"b{i}")
    assert recorder.flat() == ["a0", "a1", "a2"]
    lam.update_event_source_mapping(UUID=uuid, Enabled=True)
    assert emu.wait_idle(120)["Idle"]
    lam.update_event_source_mapping(UUID=uuid, BatchSize=10)
    put(dynamodb, "c0")
    assert emu.wait_idle(120)["Idle"]
    assert recorder.flat() == ["a0", "a1", "a2", "b0", "b1", "b2", "c0"]  # nothing replayed, nothing skipped
    # an emulator that keeps nothing (no state directory given) holds its checkpoints in memory: no file is written
    # after each batch, as none would ever be read (tests/durability/test_restart.py: a durable one resumes from its files)
    assert not list((emu.state_dir / "checkpoints").glob("*")), "an in-memory emulator writes no checkpoint file"


def test_retries_then_the_on_failure_destination_with_aws_record(setup):
    emu, dynamodb, lam, arn, mapping = setup
    sqs = boto3.client("sqs", region_name=REGION)
    queue_url = sqs.create_queue(QueueName="failures")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    def answer(event, count):
        if any(r["dynamodb"]["Keys"]["pk"]["S"] == "bad" for r in event["Records"]):
            raise ValueError("bad record")

    recorder = Recorder(answer)
    uuid = mapping(recorder, MaximumRetryAttempts=2, DestinationConfig={"OnFailure": {"Destination": queue_arn}})
    put(dynamodb, "bad")
    assert emu.wait_idle(120)["Idle"]
    put(dynamodb, "good")
    assert emu.wait_idle(120)["Idle"]
    assert recorder.keys() == [["bad"], ["bad"], ["bad"], ["good"]]  # 2 retries = 3 invocations, then it moves on
    [message] = sqs.receive_message(QueueUrl=queue_url)["Messages"]
    record = json.loads(message["Body"])
    assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 3
    assert record["requestContext"]["functionArn"] == "arn:aws:lambda:us-east-1:123456789012:function:handler"
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    assert record["version"] == "1.0" and record["timestamp"].endswith("Z")
    info = record["DDBStreamBatchInfo"]
    assert info["batchSize"] == 1 and info["streamArn"] == arn
    assert info["startSequenceNumber"] == info["endSequenceNumber"] == recorder.events[0]["Records"][0]["dynamodb"]["SequenceNumber"]
    figures = emu.mapping_figures(uuid)["EventSourceMappings"][0]
    assert (figures["Invocations"], figures["Errors"], figures["Retries"], figures["RecordsSentToOnFailureDestination"]) == (4, 3, 2, 1)


def test_the_shard_waits_while_a_batch_is_retried(setup):
    emu, dynamodb, lam, arn, mapping = setup
    failures = {"left": 3}

    def answer(event, count):
        if failures["left"]:
            failures["left"] -= 1
            raise RuntimeError("not yet")

    recorder = Recorder(answer)
    mapping(recorder, BatchSize=1)
    for key in ("a", "b", "c"):
        put(dynamodb, key)
    assert emu.wait_idle(120)["Idle"]
    assert recorder.flat() == ["a", "a", "a", "a", "b", "c"]


def test_bisect_isolates_the_bad_record(setup):
    emu, dynamodb, lam, arn, mapping = setup

    def answer(event, count):
        if any(r["dynamodb"]["Keys"]["pk"]["S"] == "k2" for r in event["Records"]):
            raise RuntimeError("k2 is bad")

    recorder = Recorder(answer)
    for i in range(4):
        put(dynamodb, f"k{i}")
    mapping(recorder, BatchSize=4, BisectBatchOnFunctionError=True, MaximumRetryAttempts=0)
    assert emu.wait_idle(120)["Idle"]
    assert recorder.keys() == [["k0", "k1", "k2", "k3"], ["k0", "k1"], ["k2", "k3"], ["k2"], ["k3"]]


@pytest.mark.parametrize("response", [None, {}, [], {"batchItemFailures": []}, {"batchItemFailures": None}])
def test_report_batch_item_failures_success_answers(setup, response):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder(lambda event, count: response)
    mapping(recorder, FunctionResponseTypes=["ReportBatchItemFailures"])
    put(dynamodb, "a")
    put(dynamodb, "b")
    assert emu.wait_idle(120)["Idle"]
    assert recorder.flat() == ["a", "b"]


def test_report_batch_item_failures_retries_from_the_lowest_failure(setup):
    emu, dynamodb, lam, arn, mapping = setup

    def answer(event, count):
        if count == 1:
            second = event["Records"][1]["dynamodb"]["SequenceNumber"]
            third = event["Records"][2]["dynamodb"]["SequenceNumber"]
            return {"batchItemFailures": [{"itemIdentifier": third}, {"itemIdentifier": second}]}
        return {"batchItemFailures": []}

    recorder = Recorder(answer)
    for key in ("a", "b", "c", "d"):
        put(dynamodb, key)
    mapping(recorder, FunctionResponseTypes=["ReportBatchItemFailures"], BatchSize=4)
    assert emu.wait_idle(120)["Idle"]
    assert recorder.keys() == [["a", "b", "c", "d"], ["b", "c", "d"]]


@pytest.mark.parametrize("bad", [[{"itemIdentifier": ""}], [{"itemIdentifier": None}], [{"wrongKey": "1"}],
                                 [{"itemIdentifier": "999999999999999999999"}], "not a response"])
def test_report_batch_item_failures_malformed_answers_fail_the_whole_batch(setup, bad):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder(lambda event, count: ({"batchItemFailures": bad} if isinstance(bad, list) else bad) if count == 1 else None)
    put(dynamodb, "a")
    put(dynamodb, "b")
    mapping(recorder, FunctionResponseTypes=["ReportBatchItemFailures"])
    assert emu.wait_idle(120)["Idle"]
    assert recorder.keys() == [["a", "b"], ["a", "b"]]


def test_records_older_than_the_maximum_age_go_to_the_destination(setup):
    emu, dynamodb, lam, arn, mapping = setup
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket="failures")
    recorder = Recorder(lambda event, count: (_ for _ in ()).throw(RuntimeError("always")))
    uuid = mapping(recorder, MaximumRecordAgeInSeconds=60, DestinationConfig={"OnFailure": {"Destination": "arn:aws:s3:::failures"}})
    put(dynamodb, "old")
    assert emu.wait_idle(0.3)["Idle"] is False
    emu.clock.advance(61)
    assert emu.wait_idle(120)["Idle"]
    [key] = [o["Key"] for o in s3.list_objects_v2(Bucket="failures")["Contents"]]
    shard_id = emu.streams.get(arn).open_shards[0].shard_id
    assert key.startswith(f"aws/lambda/{uuid}/{shard_id}/")
    body = json.loads(s3.get_object(Bucket="failures", Key=key)["Body"].read())
    assert body["requestContext"]["condition"] == "RecordAgeExceeded"
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in body["payload"]["Records"]] == ["old"]


def test_infinite_retries_last_until_the_record_expires(setup):
    emu, dynamodb, lam, arn, mapping = setup
    sns = boto3.client("sns", region_name=REGION)
    sqs = boto3.client("sqs", region_name=REGION)
    topic = sns.create_topic(Name="failures")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="from-topic")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn, Attributes={"RawMessageDelivery": "true"})
    recorder = Recorder(lambda event, count: (_ for _ in ()).throw(RuntimeError("always")))
    mapping(recorder, DestinationConfig={"OnFailure": {"Destination": topic}})
    put(dynamodb, "doomed")
    assert emu.wait_idle(0.3)["Idle"] is False
    emu.clock.advance(24 * 3600 + 1)
    assert emu.wait_idle(120)["Idle"]
    [message] = sqs.receive_message(QueueUrl=queue_url)["Messages"]
    assert json.loads(message["Body"])["requestContext"]["condition"] == "RecordAgeExceeded"


def test_parallelization_keeps_order_per_key(setup):
    emu, dynamodb, lam, arn, mapping = setup
    active, most = [0], [0]
    gate = threading.Lock()

    def answer(event, count):
        with gate:
            active[0] += 1
            most[0] = max(most[0], active[0])
        threading.Event().wait(0.02)
        with gate:
            active[0] -= 1

    recorder = Recorder(answer)
    keys = [f"k{i}" for i in range(30)]
    for round_ in range(3):
        for key in keys:
            put(dynamodb, key, round_)
    mapping(recorder, ParallelizationFactor=5, BatchSize=5)
    assert emu.wait_idle(120)["Idle"]
    versions: dict[str, list[int]] = {}
    for event in recorder.events:
        for record in event["Records"]:
            versions.setdefault(record["dynamodb"]["Keys"]["pk"]["S"], []).append(int(record["dynamodb"]["NewImage"]["v"]["N"]))
    assert versions == {key: [0, 1, 2] for key in keys}
    assert most[0] > 1


def test_tumbling_windows_carry_state_and_end_with_a_final_invoke(setup):
    emu, dynamodb, lam, arn, mapping = setup

    def answer(event, count):
        total = event["state"].get("count", 0) + len(event["Records"])
        return {"state": {"count": total}}

    recorder = Recorder(answer)
    mapping(recorder, TumblingWindowInSeconds=120, BatchSize=2)
    start = emu.clock.now()
    emu.clock.advance(120 - start % 120 + 1)  # the start of a fresh window
    for key in ("a", "b", "c"):
        put(dynamodb, key)
    assert emu.wait_idle(120)["Idle"]
    emu.clock.advance(120)  # the window ends
    assert emu.wait_idle(120)["Idle"]
    events = recorder.events
    sizes = [len(e["Records"]) for e in events]
    assert sum(sizes) == 3 and sizes[-1] == 0 and all(sizes[:-1])
    running = 0
    for event, size in zip(events, sizes):
        assert event["state"] == ({"count": running} if running else {})
        running += size
    assert [e["isFinalInvokeForWindow"] for e in events] == [False] * (len(events) - 1) + [True]
    assert {e["window"]["start"] for e in events} == {events[0]["window"]["start"]}
    assert events[0]["shardId"] and events[0]["eventSourceARN"] == arn and not events[-1]["isWindowTerminatedEarly"]


def test_a_window_closes_early_when_its_shard_ends(setup):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder(lambda event, count: {"state": {"n": len(event["Records"])}})
    mapping(recorder, TumblingWindowInSeconds=900)
    put(dynamodb, "a")
    assert emu.wait_idle(120)["Idle"]
    emu.rollover(arn)
    assert emu.wait_idle(120)["Idle"]
    final = recorder.events[-1]
    assert final["isFinalInvokeForWindow"] and final["isWindowTerminatedEarly"] and final["Records"] == []


def test_filters_skip_records_and_move_the_checkpoint(setup):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder()
    uuid = mapping(recorder, FilterCriteria={"Filters": [
        {"Pattern": json.dumps({"dynamodb": {"NewImage": {"pk": {"S": [{"prefix": "keep"}]}}}})},
        {"Pattern": json.dumps({"eventName": ["REMOVE"]})},
    ]})
    for key in ("keep-1", "drop-1", "keep-2"):
        put(dynamodb, key)
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "drop-1"}})
    assert emu.wait_idle(120)["Idle"]
    assert recorder.flat() == ["keep-1", "keep-2", "drop-1"]
    figures = emu.mapping_figures(uuid)["EventSourceMappings"][0]
    assert figures["RecordsFiltered"] == 1
    lam.update_event_source_mapping(UUID=uuid, Enabled=False)
    lam.update_event_source_mapping(UUID=uuid, Enabled=True)
    assert emu.wait_idle(120)["Idle"] and recorder.flat() == ["keep-1", "keep-2", "drop-1"]
    with pytest.raises(lam.exceptions.InvalidParameterValueException):  # a leaf value must be a list
        lam.update_event_source_mapping(UUID=uuid, FilterCriteria={"Filters": [{"Pattern": '{"eventName": "INSERT"}'}]})
    assert len(json.loads(lam.get_event_source_mapping(UUID=uuid)["FilterCriteria"]["Filters"][0]["Pattern"])) == 1


def test_a_crashing_handler_never_takes_eddy_down(setup):
    emu, dynamodb, lam, arn, mapping = setup
    recorder = Recorder(lambda event, count: (_ for _ in ()).throw(SystemExit(1)) if count == 1 else None)
    mapping(recorder)
    put(dynamodb, "a")
    assert emu.wait_idle(120)["Idle"]
    assert recorder.flat() == ["a", "a"]


def test_a_batch_stays_within_six_megabytes(setup):
    emu, dynamodb, lam, arn, mapping = setup
    sizes = []
    recorder = Recorder(lambda event, count: sizes.append(len(json.dumps(event))))
    blob = "x" * 380_000
    for i in range(20):
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"big{i}"}, "blob": {"S": blob}})
    mapping(recorder, BatchSize=100)
    assert emu.wait_idle(120)["Idle"]
    assert recorder.flat() == [f"big{i}" for i in range(20)]
    assert len(sizes) >= 2 and max(sizes) <= 6 * 1024 * 1024
    # as full as the limit allows: 16 records of about 380,350 bytes (the blob, its key, the record) are 6.09 MB
    assert [len(keys) for keys in recorder.keys()] == [16, 4]


def test_the_log_line_names_the_function_and_the_table(setup, caplog):
    emu, dynamodb, lam, arn, mapping = setup
    caplog.set_level("INFO", logger="eddy.triggers")
    uuid = mapping(Recorder())
    put(dynamodb, "a")
    assert emu.wait_idle(120)["Idle"]
    [line] = [r.getMessage() for r in caplog.records if r.name == "eddy.triggers" and " batch " in r.getMessage()]
    assert line.startswith(f"mapping handler <- orders ({uuid[:8]}) shard ") and " batch 1 OK in " in line


def test_what_a_handler_changes_in_its_event_stays_with_it(setup):
    """Lambda hands each invocation its own JSON: a handler that edits the records it got (here it empties every
    image, then fails, so the batch is retried) changes neither the retry's event, nor the stream's records, nor
    the next change's old image."""
    emu, dynamodb, lam, arn, mapping = setup

    def answer(event, count):
        for record in event["Records"]:
            for image in ("Keys", "NewImage", "OldImage"):
                record["dynamodb"].get(image, {}).clear()
        if count == 1:
            raise ValueError("retry me")

    recorder = Recorder(answer)
    mapping(recorder, MaximumRetryAttempts=1)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    assert emu.wait_idle(120)["Idle"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "v": {"N": "2"}})
    assert emu.wait_idle(120)["Idle"]
    first = {"Keys": {"pk": {"S": "a"}}, "NewImage": {"pk": {"S": "a"}, "v": {"N": "1"}}}
    seen = [{name: r["dynamodb"][name] for name in ("Keys", "NewImage", "OldImage") if name in r["dynamodb"]}
            for e in recorder.events for r in e["Records"]]
    assert seen == [first, first, {**first, "NewImage": {"pk": {"S": "a"}, "v": {"N": "2"}}, "OldImage": first["NewImage"]}]
    streams = boto3.client("dynamodbstreams", region_name=REGION)
    [shard] = shards(streams, arn)
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
    records = streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    assert [r["dynamodb"].get("OldImage") for r in records] == [None, first["NewImage"]]
    assert [r["dynamodb"]["NewImage"]["v"] for r in records] == [{"N": "1"}, {"N": "2"}]


def test_an_invocation_that_fails_items_is_one_line_a_successful_invocation_with_failed_items(setup, caplog):
    """One outcome line per batch: an invocation that answers batchItemFailures succeeded (the function did not
    raise) with failed items, and the line says both once (not `batch 4 OK` and then `batch 4 failed`)."""
    emu, dynamodb, lam, arn, mapping = setup
    caplog.set_level("INFO", logger="eddy.triggers")

    def answer(event, count):
        if count == 1:
            return {"batchItemFailures": [{"itemIdentifier": event["Records"][2]["dynamodb"]["SequenceNumber"]}]}
        return None

    for key in ("a", "b", "c", "d"):
        put(dynamodb, key)
    uuid = mapping(Recorder(answer), FunctionResponseTypes=["ReportBatchItemFailures"], BatchSize=4)
    assert emu.wait_idle(120)["Idle"]
    lines = [r.getMessage() for r in caplog.records if r.name == "eddy.triggers" and " batch" in r.getMessage()]
    [shard] = shards(boto3.client("dynamodbstreams", region_name=REGION), arn)
    prefix = f"mapping handler <- orders ({uuid[:8]}) shard {shard['ShardId']} batch"
    assert [re.sub(r"in \d+\.\d ms", "in T ms", line) for line in lines] == [
        f"{prefix} 4 OK in T ms, the function reported batch item failures (retry in 0.5 s)",
        f"{prefix} 2 OK in T ms",
        f"mapping handler <- orders ({uuid[:8]}) succeeded again after 1 failed batches"]
