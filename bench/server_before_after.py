"""`eddy serve` at another commit against this checkout's, over HTTP, servers alternating: what a change did.

The other commit's tree is taken out of git (`git archive`) into a temporary directory laid out as the installed
package (`eddy/` with its parts beside it), found first on PYTHONPATH, and both servers run with this virtualenv's
Python and packages. Each round starts each server fresh (in memory), makes bench/peer_servers.py's tables, and runs
its workloads against it from client processes: the rate, the server's CPU per call (its process tree's user and
system time over the workload, from /proc) and the p99 latency. Medians over the rounds.

    .venv/bin/python bench/server_before_after.py --before COMMIT [--rounds 3] [--calls 400] [--kinds PutItem,GetItem]
"""

from __future__ import annotations

import argparse
import io
import os
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


def one_round(peer: Peer, kinds: list[str], clients: list[int], calls: int, number: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    peer.start()
    try:
        servers.create_tables(servers.client(peer.url))
        for kind in kinds:
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
                for label, value in one_round(server(name, path), kinds, clients, args.calls, number).items():
                    samples[name].setdefault(label, []).append(value)
    print(f"bench/server_before_after.py --before {args.before} --rounds {args.rounds} --calls {args.calls} "
          f"--kinds {args.kinds} --clients {args.clients}: after = {head}{dirty}, load average {os.getloadavg()[0]:.1f}")
    print(f"| measure | before ({args.before}) | after | after/before |\n|---|---|---|---|")
    for label, values in samples["after"].items():
        before, after = median(samples["before"][label]), median(values)
        print(f"| {label} | {before:,.0f} | {after:,.0f} | {after / before:.2f}x |")


if __name__ == "__main__":
    main()
