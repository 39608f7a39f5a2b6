"""`eddy tail`: one readable line per record, following the stream across rollovers and splits."""

from __future__ import annotations

import subprocess
import sys
import threading

from emulator.streams.record_lines import describe
from emulator.tail import follow
from tests.conftest import ServerDoor, eddy_server, http_json

from .helpers import create_table


def test_a_record_as_one_line():
    record = {"eventName": "MODIFY", "dynamodb": {
        "ApproximateCreationDateTime": 1700000000, "Keys": {"pk": {"S": "a"}},
        "OldImage": {"pk": {"S": "a"}, "n": {"N": "1"}, "gone": {"S": "x"}},
        "NewImage": {"pk": {"S": "a"}, "n": {"N": "2"}, "tag": {"SS": ["x"]}}}}
    assert describe(record) == "22:13:20 MODIFY  pk='a'  -gone  n: 1 -> 2  +tag={'x'}"
    ttl = {"eventName": "REMOVE", "userIdentity": {"Type": "Service"}, "dynamodb": {
        "ApproximateCreationDateTime": 1700000000, "Keys": {"pk": {"S": "s"}}, "OldImage": {"pk": {"S": "s"}}}}
    assert describe(ttl) == "22:13:20 REMOVE  pk='s'  (TTL)"


def test_tail_follows_across_rollovers_and_splits(server_url):
    http_json(server_url + "/moto-api/reset", {})
    door = ServerDoor(server_url)
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb)["LatestStreamArn"]
    tail = subprocess.Popen([sys.executable, "-m", "emulator.cli", "tail", "orders", "--endpoint-url", server_url,
                             "--from-start", "--count", "6"], stdout=subprocess.PIPE, text=True)
    assert tail.stdout.readline().startswith("Following ")
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(tail.stdout), daemon=True)
    reader.start()
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
    shard_id = door.client("dynamodbstreams").describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    door.split(arn, shard_id)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "2"}})
    door.rollover(arn)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "b"}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "d"}})
    assert tail.wait(timeout=30) == 0
    reader.join(timeout=120)  # ends at the output's end, which the exit has closed
    events = [line.split()[1:3] for line in lines]
    assert ["MODIFY", "pk='a'"] in events and ["REMOVE", "pk='b'"] in events
    assert events.index(["INSERT", "pk='a'"]) < events.index(["MODIFY", "pk='a'"])
    assert len(events) == 6 and any("n: 1 -> 2" in line for line in lines)


def test_tail_resumes_after_its_iterator_expired_from_the_last_record_it_printed():
    with eddy_server("--housekeeping-interval", "0", "--in-memory") as (url, _):
        door = ServerDoor(url)
        dynamodb = door.client("dynamodb")
        create_table(dynamodb)
        tail = subprocess.Popen([sys.executable, "-m", "emulator.cli", "tail", "orders", "--endpoint-url", url,
                                 "--from-start", "--count", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        assert tail.stdout.readline().startswith("Following ")
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        first = tail.stdout.readline()
        door.advance(1000)  # the reader's iterator (15 minutes) expires while it waits
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
        out, err = tail.communicate(timeout=60)
    assert (tail.returncode, err) == (0, "")
    assert [line.split()[1:3] for line in [first, *out.splitlines()]] == [
        ["INSERT", "pk='a'"], ["INSERT", "pk='b'"], ["INSERT", "pk='c'"]]


class HeldStreams:
    """A Streams client whose GetRecords can be held at a gate: the test changes the world while the tail waits."""

    def __init__(self, streams) -> None:
        self.streams = streams
        self.caught_up, self.held, self.gate = threading.Event(), threading.Event(), threading.Event()
        self.hold = False

    def __getattr__(self, name):
        return getattr(self.streams, name)

    def get_records(self, **params):
        if self.hold:
            self.held.set()
            self.gate.wait()
        page = self.streams.get_records(**params)
        if not page["Records"]:
            self.caught_up.set()
        return page


def test_tail_from_now_resumes_where_it_was_when_its_iterator_expired_before_it_printed_anything(door):
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "before"}})  # written before the tail began: not shown
    streams = HeldStreams(door.client("dynamodbstreams"))
    seen: list[str] = []
    done = threading.Event()

    def tail() -> None:
        for record in follow(streams, arn, from_start=False, poll_seconds=0.05, stop=done.is_set):
            seen.append(record["dynamodb"]["Keys"]["pk"]["S"])
            if len(seen) == 2:
                done.set()

    reader = threading.Thread(target=tail, daemon=True)
    reader.start()
    assert streams.caught_up.wait(60)  # the tail has begun its shard and read to its end
    streams.hold = True
    assert streams.held.wait(60)  # its next read waits, with the iterator it holds
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
    door.advance(1000)  # that iterator (15 minutes) expires
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
    streams.hold = False
    streams.gate.set()
    reader.join(60)
    assert seen == ["b", "c"]
