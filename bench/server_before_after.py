"""`eddy serve` at another commit against this checkout's, over HTTP, servers alternating: what a change did.

The other commit's tree is taken out of git (`git archive`) into a temporary directory laid out as the installed
package (`eddy/` with its parts beside it), found first on PYTHONPATH, and both servers run with this virtualenv's
Python and packages. Each round starts each server fresh (in memory), makes bench/peer_servers.py's tables, and runs
its workloads against it from client processes: the rate, the server's CPU per call (its process tree's user and
system time over the workload, from /proc) and the p99 latency. Medians over the rounds.

`--raw`: the calls are made by boto3 beforehand (each signed, its bytes kept) and sent by one plain socket of this
process, one after the other on one connection: the server's CPU per call without boto3 clients competing for the
machine's two cores, and the rate the server alone reaches.

    .venv/bin/python bench/server_before_after.py --before COMMIT [--rounds 3] [--calls 400] [--kinds PutItem,GetItem]
        [--clients 1,8] [--raw]
"""

from __future__ import annotations

import argparse
import io
import os
import socket
import time
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import peer_servers as servers
from peer_servers import Peer, median, percentile

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("emulator", "handlers", "infra", "spark_batch")


def tree_of(commit: str, into: Path) -> Path:
    """The package at `commit`, laid out as installed: `into`/eddy/{__init__.py, emulator/, ...}; `into` is the
    PYTHONPATH entry."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "eddy", *PARTS], capture_output=True,
                             check=True).stdout
    source = into / "source"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(source)
    package = into / "path" / "eddy"
    package.parent.mkdir(parents=True)
    (source / "eddy").rename(package)
    for part in PARTS:
        (package / part).symlink_to(source / part)
    return package.parent


def server(name: str, path: str | None) -> Peer:
    def env(port: int) -> dict[str, str]:
        return {"PYTHONPATH": path} if path else {}
    return Peer(name, lambda port: [sys.executable, "-m", "eddy", "serve", "--port", str(port), "--in-memory"], env)


def signed_requests(url: str, kind: str, calls: int, prefix: str) -> list[bytes]:
    """`calls` calls of workload `kind` as boto3 sends them (signed), each as the bytes of its HTTP request."""
    from botocore.awsrequest import AWSResponse

    made: list[bytes] = []
    port = url.rsplit(":", 1)[1]

    def keep(request, **_):
        body = request.body or b""
        body = body.encode() if isinstance(body, str) else body
        head = [f"{request.method} / HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}"]
        head += [f"{name}: {value.decode() if isinstance(value, bytes) else value}"
                 for name, value in request.headers.items()]
        made.append(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        return AWSResponse(url, 200, {"x-amzn-RequestId": "x"}, _Raw(b'{"Count": 10, "Items": []}'))

    dynamodb = servers.client(url)
    dynamodb.meta.events.register("before-send", keep)
    call = servers.operation(dynamodb, url, kind, prefix)
    for i in range(calls):
        call(i)
    return made


class _Raw:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_):
        yield self.body

    def read(self, *_):
        return self.body


def send_raw(port: int, requests: list[bytes]) -> tuple[float, list[float]]:
    """Each request sent once its previous one is answered, on one connection: (seconds in all, latencies)."""
    latencies = []
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = connection.makefile("rb")
        started = time.perf_counter()
        for request in requests:
            sent = time.perf_counter()
            connection.sendall(request)
            status = reader.readline()
            length = 0
            while (line := reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            reader.read(length)
            assert status.startswith(b"HTTP/1.1 200"), status
            latencies.append(time.perf_counter() - sent)
        return time.perf_counter() - started, latencies


def one_round(peer: Peer, kinds: list[str], clients: list[int], calls: int, number: int, raw: bool) -> dict[str, float]:
    figures: dict[str, float] = {}
    peer.start()
    try:
        servers.create_tables(servers.client(peer.url))
        for kind in kinds:
            if raw:
                requests = signed_requests(peer.url, kind, calls + 20, f"r{number}")
                send_raw(int(peer.url.rsplit(":", 1)[1]), requests[:20])  # the first calls' loading left out
                cpu = peer.cpu_seconds()
                elapsed, latencies = send_raw(int(peer.url.rsplit(":", 1)[1]), requests[20:])
                figures[f"{kind}, raw: rate /s"] = calls / elapsed
                figures[f"{kind}, raw: server CPU per call (us)"] = (peer.cpu_seconds() - cpu) / calls * 1e6
                figures[f"{kind}, raw: p99 (ms)"] = percentile(latencies, 0.99) * 1000
                continue
            for count in clients:
                each = max(3, calls // count)
                cpu = peer.cpu_seconds()
                result = servers.load(peer.url, kind, count, each, f"r{number}")
                assert result["errors"] == 0, (peer.name, kind, result["errors"])
                label = f"{kind}, {count} client{'s' if count > 1 else ''}"
                figures[f"{label}: rate /s"] = result["rate"]
                figures[f"{label}: server CPU per call (us)"] = (peer.cpu_seconds() - cpu) / (count * (each + 1)) * 1e6
                figures[f"{label}: p99 (ms)"] = percentile(result["latencies"], 0.99) * 1000
    finally:
        peer.stop()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the commit to hold this checkout against")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=400, help="calls of a workload, shared among its clients")
    parser.add_argument("--kinds", default="PutItem,GetItem")
    parser.add_argument("--clients", default="1", help="client counts, e.g. 1,8")
    parser.add_argument("--raw", action="store_true", help="requests signed beforehand, sent by one plain socket")
    args = parser.parse_args()
    kinds, clients = args.kinds.split(","), [int(count) for count in args.clients.split(",")]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = " (with uncommitted changes)" if subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD"]).returncode else ""
    with tempfile.TemporaryDirectory() as temporary:
        before_path = str(tree_of(args.before, Path(temporary)))
        samples: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
        for number in range(args.rounds):
            for name, path in (("before", before_path), ("after", None)):
                for label, value in one_round(server(name, path), kinds, clients, args.calls, number, args.raw).items():
                    samples[name].setdefault(label, []).append(value)
    print(f"bench/server_before_after.py --before {args.before} --rounds {args.rounds} --calls {args.calls} "
          f"--kinds {args.kinds} --clients {args.clients}{' --raw' if args.raw else ''}: after = {head}{dirty}, load average {os.getloadavg()[0]:.1f}")
    print(f"| measure | before ({args.before}) | after | after/before |\n|---|---|---|---|")
    for label, values in samples["after"].items():
        before, after = median(samples["before"][label]), median(values)
        print(f"| {label} | {before:,.0f} | {after:,.0f} | {after / before:.2f}x |")


if __name__ == "__main__":
    main()
