"""`eddy serve` and MiniStack side by side over HTTP: each started fresh, timed to its first ListTables, its idle
memory read, then the same boto3 workloads against each (client processes, so the clients do not share a GIL).

MiniStack (the peer) is installed from PyPI into a virtualenv of its own, outside the project's
(~/.cache/eddy-bench/ministack, or $EDDY_BENCH_CACHE/ministack), and run as its package documents: in memory
(PERSIST_STATE unset), bound to 127.0.0.1 (BIND_HOST), on a free port (GATEWAY_PORT), logging warnings only.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import boto3
from botocore.config import Config

MINISTACK_VERSION = "1.5.33"
CACHE = Path(os.environ.get("EDDY_BENCH_CACHE", Path.home() / ".cache" / "eddy-bench"))
TABLE, QUERY_TABLE, RECORDS_TABLE = "bench", "bench_query", "bench_records"
RECORDS = 1000  # the GetRecords table's items, one record each


def ministack_command() -> list[str]:
    """The `ministack` command of its own virtualenv, made (and MiniStack installed, pinned) when missing."""
    venv = CACHE / "ministack"
    command = venv / "bin" / "ministack"
    marker = venv / f".ministack-{MINISTACK_VERSION}"
    if not marker.exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"ministack=={MINISTACK_VERSION}"], check=True)
        marker.touch()
    return [str(command)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def client(url: str, service: str = "dynamodb"):
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="bench",
                        aws_secret_access_key="bench",
                        config=Config(retries={"max_attempts": 1}, max_pool_connections=2, connect_timeout=5))


def _tree(pid: int) -> list[int]:
    """A process and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(children.get(current, []))
    return found


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, MB (from /proc)."""
    total = 0
    for current in _tree(pid):
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) a process and all its descendants have used so far (from /proc)."""
    total = 0
    for current in _tree(pid):
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


class Peer:
    """One server process: `start()` times it to its first ListTables answer; `stop()` ends it (SIGTERM)."""

    def __init__(self, name: str, argv: Callable[[int], list[str]], env: Callable[[int], dict[str, str]]) -> None:
        self.name, self._argv, self._env = name, argv, env
        self.process: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> float:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        probe = client(self.url)
        started = self._started = time.perf_counter()
        self.process = subprocess.Popen(self._argv(port), env={**os.environ, **self._env(port)},
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = started + 180
        while time.perf_counter() < deadline:
            try:
                probe.list_tables()
                return time.perf_counter() - started
            except Exception:  # not listening yet: connection refused, or an answer before its services are up
                if self.process.poll() is not None:
                    raise RuntimeError(f"{self.name} exited with {self.process.returncode}")
                time.sleep(0.005)
        raise RuntimeError(f"{self.name} did not answer ListTables in 180 s")

    def ready(self) -> float:
        """Seconds from the start to the first answer of a request no server answers without its DynamoDB loaded
        (DescribeTable of a missing table: ResourceNotFoundException); `eddy serve` on an empty state answers
        ListTables before that (its port opens before its engine is loaded: cli/serve.py)."""
        probe = client(self.url)
        try:
            probe.describe_table(TableName="never-made")
        except probe.exceptions.ResourceNotFoundException:
            return time.perf_counter() - self._started
        raise RuntimeError(f"{self.name} described a table never made")

    def rss_mb(self) -> float:
        assert self.process is not None
        return tree_rss_mb(self.process.pid)

    def cpu_seconds(self) -> float:
        assert self.process is not None
        return tree_cpu_seconds(self.process.pid)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


def eddy_peer(state_dir: str, extra: tuple[str, ...] = ()) -> Peer:
    return Peer("Eddy", lambda port: [sys.executable, "-m", "eddy", "serve", "--port", str(port),
                                      "--state-dir", state_dir, *extra], lambda port: {})


def ministack_peer(state_dir: str | None = None) -> Peer:
    def env(port: int) -> dict[str, str]:
        values = {"GATEWAY_PORT": str(port), "BIND_HOST": "127.0.0.1", "LOG_LEVEL": "WARNING"}
        if state_dir:
            values.update(PERSIST_STATE="1", STATE_DIR=state_dir)
        return values
    return Peer("MiniStack", lambda port: ministack_command(), env)


# ---- the tables and the workloads

def create_tables(dynamodb) -> None:
    stream = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    for name in (TABLE, RECORDS_TABLE):
        dynamodb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST", StreamSpecification=stream)
    dynamodb.create_table(TableName=QUERY_TABLE, BillingMode="PAY_PER_REQUEST",
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                {"AttributeName": "sk", "AttributeType": "N"}])
    for start in range(0, 1000, 25):
        dynamodb.batch_write_item(RequestItems={QUERY_TABLE: [
            {"PutRequest": {"Item": dict(item(i), pk={"S": f"user#{i // 10}"}, sk={"N": str(i % 10)})}}
            for i in range(start, start + 25)]})
        dynamodb.batch_write_item(RequestItems={RECORDS_TABLE: [
            {"PutRequest": {"Item": dict(item(i), pk={"S": f"user#{i}"})}} for i in range(start, start + 25)]})


def item(i: int) -> dict:
    return {"pk": {"S": f"user#{i}"}, "name": {"S": f"name {i}"}, "count": {"N": str(i)},
            "tags": {"SS": ["a", "b"]}, "profile": {"M": {"city": {"S": "Lisbon"}, "age": {"N": "42"}}}}


def operation(dynamodb, url: str, kind: str, prefix: str) -> Callable[[int], int]:
    """One call of workload `kind` for its i-th time; returns how many units it counts (records for GetRecords)."""
    if kind == "PutItem":
        return lambda i: dynamodb.put_item(TableName=TABLE, Item=dict(item(i), pk={"S": f"{prefix}#{i}"})) and 1
    if kind == "GetItem":
        return lambda i: dynamodb.get_item(TableName=QUERY_TABLE, Key={"pk": {"S": f"user#{i % 100}"},
                                                                       "sk": {"N": str(i % 10)}}) and 1
    if kind == "Query":
        return lambda i: dynamodb.query(TableName=QUERY_TABLE, KeyConditionExpression="pk = :p",
                                        ExpressionAttributeValues={":p": {"S": f"user#{i % 100}"}})["Count"] // 10
    if kind == "BatchWriteItem":
        return lambda i: dynamodb.batch_write_item(RequestItems={TABLE: [
            {"PutRequest": {"Item": dict(item(j), pk={"S": f"{prefix}/batch#{i}#{j}"})}} for j in range(25)]}) and 1
    if kind == "GetRecords":
        streams = client(url, "dynamodbstreams")
        arn = dynamodb.describe_table(TableName=RECORDS_TABLE)["Table"]["LatestStreamArn"]

        def read_stream(i: int) -> int:  # every shard from its start: RECORDS records
            count = 0
            for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
                iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                                      ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                while iterator:
                    page = streams.get_records(ShardIterator=iterator, Limit=1000)
                    count += len(page["Records"])
                    if not page["Records"]:
                        break
                    iterator = page.get("NextShardIterator")
            assert count == RECORDS, (count, RECORDS)
            return count
        return read_stream
    raise ValueError(kind)


def _worker(url: str, kind: str, prefix: str, calls: int, ready, results) -> None:
    dynamodb = client(url)
    call = operation(dynamodb, url, kind, prefix)
    call(calls)  # connection made before the start line
    ready.wait()
    latencies, units, errors = [], 0, 0
    cpu = time.process_time()
    for i in range(calls):
        started = time.perf_counter()
        try:
            units += call(i)
        except Exception:  # counted, not retried: the bench reports errors
            errors += 1
        latencies.append(time.perf_counter() - started)
    results.put((latencies, units, errors, time.process_time() - cpu))


def machine_cpu() -> tuple[int, int]:
    """(all, idle) CPU ticks of the whole machine so far, every core (from /proc/stat)."""
    ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(ticks), ticks[3] + ticks[4]  # idle and iowait


def load(url: str, kind: str, clients: int, calls: int, prefix: str) -> dict:
    """`clients` processes each making `calls` calls of `kind`: units/s over the whole, latencies, errors, the
    clients' own CPU seconds per call (boto3's work, which shares the machine with the server) and the share of the
    machine's CPU busy meanwhile (every process on it, other work included)."""
    context = multiprocessing.get_context("fork")
    ready, results = context.Barrier(clients + 1), context.Queue()
    processes = [context.Process(target=_worker, args=(url, kind, f"{prefix}/{n}", calls, ready, results))
                 for n in range(clients)]
    for process in processes:
        process.start()
    ready.wait()
    started, machine = time.perf_counter(), machine_cpu()
    gathered = [results.get(timeout=900) for _ in processes]
    elapsed = time.perf_counter() - started
    ticks, idle = (now - then for now, then in zip(machine_cpu(), machine))
    for process in processes:
        process.join()
    return {"rate": sum(units for _, units, _, _ in gathered) / elapsed,
            "latencies": [latency for batch, _, _, _ in gathered for latency in batch],
            "errors": sum(errors for _, _, errors, _ in gathered),
            "client CPU per call": sum(cpu for _, _, _, cpu in gathered) / (clients * calls),
            "machine busy": 1 - idle / ticks if ticks else 0.0}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def median(values: list[float]) -> float:
    return statistics.median(values)
