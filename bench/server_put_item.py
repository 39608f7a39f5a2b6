"""Server mode: 8 concurrent boto3 clients doing PutItem against `eddy serve` and a moto server, same run.

Each client is its own process (so the clients' botocore work does not share one GIL) and puts distinct
keys. Both servers run side by side and the rounds alternate between them. Reported per server: the median
round's requests/s, p50 and p99 latency over all rounds, errors, the server process's CPU time a request (the median
round's, from /proc: other work on the machine weighs less on it); then every record is checked present:
Eddy's stream holds one INSERT per put and a Scan counts every item (moto: the Scan).

    .venv/bin/python bench/server_put_item.py [--clients 8] [--puts 300] [--rounds 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import boto3
from botocore.config import Config

from common import create_table, item

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(argv: list[str], url: str, health: str) -> subprocess.Popen:
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + health, timeout=1)
            return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{argv[2:4]} exited with {process.returncode}")
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"{argv} did not start")


def client(url: str):
    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                        config=Config(retries={"max_attempts": 1}, max_pool_connections=2))


def worker(url: str, table: str, prefix: str, puts: int, ready, results) -> None:
    dynamodb = client(url)
    dynamodb.describe_table(TableName=table)  # connection and credentials ready before the start line
    ready.wait()
    latencies, errors = [], 0
    for i in range(puts):
        started = time.perf_counter()
        try:
            dynamodb.put_item(TableName=table, Item=dict(item(i), pk={"S": f"{prefix}#{i}"}))
        except Exception:  # counted, not retried: the bench reports errors
            errors += 1
        latencies.append(time.perf_counter() - started)
    results.put((latencies, errors))


def run_clients(url: str, table: str, clients: int, puts: int, round_name: str) -> dict:
    ready = multiprocessing.Barrier(clients + 1)
    results = multiprocessing.Queue()
    processes = [multiprocessing.Process(target=worker, args=(url, table, f"{round_name}/{n}", puts, ready, results))
                 for n in range(clients)]
    for process in processes:
        process.start()
    ready.wait()
    started = time.perf_counter()
    gathered = [results.get(timeout=600) for _ in processes]
    elapsed = time.perf_counter() - started
    for process in processes:
        process.join()
    latencies = [latency for batch, _ in gathered for latency in batch]
    return {"rate": len(latencies) / elapsed, "latencies": latencies, "errors": sum(errors for _, errors in gathered)}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` and its threads so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def count_items(dynamodb, table: str) -> int:
    count, params = 0, {"TableName": table, "Select": "COUNT"}
    while True:
        page = dynamodb.scan(**params)
        count += page["Count"]
        if "LastEvaluatedKey" not in page:
            return count
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def count_inserts(url: str, stream_arn: str) -> int:
    streams = boto3.client("dynamodbstreams", endpoint_url=url, region_name="us-east-1")
    inserts = 0
    for shard in streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard["ShardId"],
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator, Limit=1000)
            inserts += sum(record["eventName"] == "INSERT" for record in page["Records"])
            if not page["Records"]:
                break
            iterator = page.get("NextShardIterator")
    return inserts


class Peer:
    """One server under test, started on a free port, with the bench table."""

    def __init__(self, label: str, argv: list[str], health: str, streamed: bool) -> None:
        self.label, self.streamed, self.port = label, streamed, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = start([arg.format(port=self.port) for arg in argv], self.url, health)
        self.dynamodb = client(self.url)
        self.description = create_table(self.dynamodb, "bench", view_type="NEW_AND_OLD_IMAGES" if streamed else None)
        self.rounds: list[dict] = []

    def round(self, name: str, clients: int, puts: int) -> None:
        before = cpu_seconds(self.process.pid)
        run = run_clients(self.url, "bench", clients, puts, name)
        run["cpu"] = (cpu_seconds(self.process.pid) - before) / len(run["latencies"])
        self.rounds.append(run)

    def figures(self) -> dict:
        latencies = sorted(latency for run in self.rounds for latency in run["latencies"])
        return {"label": self.label, "rate": statistics.median(run["rate"] for run in self.rounds),
                "p50": latencies[len(latencies) // 2] * 1000,
                "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
                "cpu": statistics.median(run["cpu"] for run in self.rounds) * 1000,
                "errors": sum(run["errors"] for run in self.rounds), "items": count_items(self.dynamodb, "bench"),
                "inserts": count_inserts(self.url, self.description["LatestStreamArn"]) if self.streamed else None}

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--puts", type=int, default=300, help="PutItems per client and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    expected = args.clients * (args.puts * args.rounds + 20)
    peers = []
    with tempfile.TemporaryDirectory() as state_dir:
        try:
            peers.append(Peer("Eddy (eddy serve, NEW_AND_OLD_IMAGES stream)", [
                sys.executable, "-m", "eddy", "serve", "--port", "{port}", "--state-dir", state_dir],
                "/_eddy/health", streamed=True))
            peers.append(Peer("moto (moto.server, no stream)", [sys.executable, "-m", "moto.server", "-p", "{port}"],
                              "/moto-api/", streamed=False))
            for peer in peers:
                run_clients(peer.url, "bench", args.clients, 20, "warm-up")
            for number in range(args.rounds):
                for peer in peers:
                    peer.round(f"round{number}", args.clients, args.puts)
            eddy, moto = (peer.figures() for peer in peers)
        finally:
            for peer in peers:
                peer.stop()
    print(f"PutItem in server mode, {args.clients} concurrent clients (processes) x {args.puts} puts x {args.rounds} "
          f"rounds, the servers in alternation (median round's requests/s; latencies over all rounds)")
    for figures in (eddy, moto):
        print(f"  {figures['label']:46} {figures['rate']:7.0f} requests/s  p50 {figures['p50']:6.1f} ms  "
              f"p99 {figures['p99']:6.1f} ms  CPU {figures['cpu']:.2f} ms a request  errors {figures['errors']}  items {figures['items']}/{expected}"
              + (f"  stream INSERTs {figures['inserts']}/{expected}" if figures["inserts"] is not None else ""))
    print(f"  ratio Eddy / moto: {eddy['rate'] / moto['rate']:.2f}x requests/s, "
          f"p99 {eddy['p99'] / moto['p99']:.2f}x of moto's")
    assert eddy["errors"] == moto["errors"] == 0 and eddy["items"] == moto["items"] == expected
    assert eddy["inserts"] == expected, "a stream record is missing"


if __name__ == "__main__":
    main()
