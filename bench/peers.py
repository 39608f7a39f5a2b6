"""Eddy against the lightest peer, MiniStack, and against its own floors; one ratio table (issue 39).

Over HTTP, `eddy serve` and MiniStack are started alternately, each fresh in every round: the time from the
process's start to its first ListTables answer (cold start, an empty state; and the CPU time the server spent up to
that answer), its resident memory (the process and
its children) two seconds later, then the same boto3 workloads against each, the clients in their own processes:
PutItem on a table with a NEW_AND_OLD_IMAGES stream (1 client; 8 clients), GetItem (1; 8), Query (one 10-item
partition), BatchWriteItem (25 puts), GetRecords (a 1,000-record stream read from every shard's start), p99
latency under load (the 8-client rounds), and the server's CPU per call (its process tree's user and system time
over a workload, per call made: what the server spends, apart from the clients that share the machine), beside
the boto3 clients' own CPU per call and how busy the whole machine was meanwhile (where the clients' share is most
of a call's CPU and the machine is busy, a rate's ratio is bounded by (client + MiniStack's CPU) / (client +
Eddy's CPU) whatever the server does). Recovery is timed apart: each restarted on a state directory holding
two tables of 1,000 items (MiniStack with PERSIST_STATE=1). Medians over the rounds.

In-process (no MiniStack column): PutItem with a stream and GetItem per CPU second against boto3's own client
floor, a test's cycle against moto's mock_aws, triggers (a no-op handler's records/s at BatchSize 100, PutItem
returning -> handler starting), bytes held per stored item (tracemalloc).

    .venv/bin/python bench/peers.py [--rounds 3] [--calls 600] [--only http|inprocess|start]

`--only start`: the cold start, the idle memory and the recovery rows alone (no workloads).
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
import time

import peer_servers as servers
from peer_servers import eddy_peer, ministack_peer, median, percentile

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

# (label, workload, clients, share of --calls each client makes)
LOADS = [("PutItem, 1 client, streamed table", "PutItem", 1, 1.0),
         ("PutItem, 8 client processes", "PutItem", 8, 0.25),
         ("GetItem, 1 client", "GetItem", 1, 1.0),
         ("GetItem, 8 client processes", "GetItem", 8, 0.25),
         ("Query, 1 client (10 items)", "Query", 1, 0.5),
         ("BatchWriteItem, 1 client (25 puts)", "BatchWriteItem", 1, 0.1),
         ("GetRecords, 1 client (records/s)", "GetRecords", 1, 0.01)]


def http_round(peer, calls: int, number: int) -> dict[str, float]:
    figures = {"cold start -> first ListTables (s)": peer.start()}
    # the same start in the server's own CPU time (its process tree's, up to its first answer): steadier than the
    # wall time on a busy machine, where the start waits for a core
    figures["cold start: the server's CPU to its first answer (s)"] = peer.cpu_seconds()
    figures["cold start -> DynamoDB loaded (first DescribeTable answered) (s)"] = peer.ready()
    figures["the same: the server's CPU to that answer (s)"] = peer.cpu_seconds()
    try:
        time.sleep(2)  # idle: what the process holds once it has started and answered
        figures["idle RSS after start (MB)"] = peer.rss_mb()
        if calls == 0:  # --only start
            return figures
        servers.create_tables(servers.client(peer.url))
        for label, kind, clients, share in LOADS:
            count = max(3, int(calls * share))
            cpu = peer.cpu_seconds()
            result = servers.load(peer.url, kind, clients, count, f"r{number}")
            assert result["errors"] == 0, (peer.name, label, result["errors"])
            figures[label] = result["rate"]
            if kind != "GetRecords":  # its calls are many per unit: its rate is the row
                figures[f"{label}: server CPU per call (us)"] = (peer.cpu_seconds() - cpu) / (clients * (count + 1)) * 1e6
                figures[f"{label}: the boto3 client's CPU per call (us)"] = result["client CPU per call"] * 1e6
                figures[f"{label}: machine busy (%)"] = result["machine busy"] * 100
            if clients > 1:
                figures[f"{kind} p99 under load, 8 clients (ms)"] = percentile(result["latencies"], 0.99) * 1000
    finally:
        peer.stop()
    return figures


def recovery(peer_for, rounds: int) -> list[float]:
    """Seconds from a restart to the first ListTables on a state directory a clean stop left (two tables of
    1,000 items, one with a stream)."""
    with tempfile.TemporaryDirectory() as state_dir:
        peer = peer_for(state_dir)
        peer.start()
        servers.create_tables(servers.client(peer.url))
        peer.stop()
        times = []
        for _ in range(rounds):
            times.append(peer.start())
            peer.stop()
        return times


def http_rows(rounds: int, calls: int) -> list[tuple[str, float, float]]:
    samples: dict[str, dict[str, list[float]]] = {"Eddy": {}, "MiniStack": {}}
    for number in range(rounds):
        for name in samples:
            with tempfile.TemporaryDirectory() as state_dir:
                peer = eddy_peer(state_dir) if name == "Eddy" else ministack_peer()
                for label, value in http_round(peer, calls, number).items():
                    samples[name].setdefault(label, []).append(value)
    samples["Eddy"]["recovery: restart -> first ListTables (s)"] = recovery(eddy_peer, rounds)
    samples["MiniStack"]["recovery: restart -> first ListTables (s)"] = recovery(ministack_peer, rounds)
    return [(label, median(values), median(samples["MiniStack"][label])) for label, values in samples["Eddy"].items()]


def inprocess_rows(calls: int, rounds: int) -> list[tuple[str, float, float]]:
    import inprocess_floor
    import triggers

    floor = inprocess_floor.against_floor(calls * 2, rounds)
    cycle = inprocess_floor.test_cycle(rounds * 5)
    memory = inprocess_floor.bytes_per_item(2000)
    samples = sorted(triggers.latency(300))
    rate, cpu_rate = triggers.throughput(20000, collect_first=True)
    return [("PutItem, streamed table, per CPU s (vs boto3's client floor)", floor["eddy"]["PutItem"], floor["floor"]["PutItem"]),
            ("GetItem per CPU s (vs boto3's client floor)", floor["eddy"]["GetItem"], floor["floor"]["GetItem"]),
            ("Eddy's own share of a PutItem (us)", 1e6 / floor["eddy"]["PutItem"] - 1e6 / floor["floor"]["PutItem"], 0),
            ("Eddy's own share of a GetItem (us)", 1e6 / floor["eddy"]["GetItem"] - 1e6 / floor["floor"]["GetItem"], 0),
            ("test cycle, s (vs mock_aws)", cycle["eddy"], cycle["mock_aws"]),
            ("bytes per stored item (vs moto, no stream)", memory["eddy"], memory["mock_aws"]),
            ("the same, Eddy's table without a stream (vs moto)", memory["eddy_no_stream"], memory["mock_aws"]),
            ("no-op handler, BatchSize 100, records/s", rate, 0),
            ("the same, records per CPU second of the process", cpu_rate, 0),
            ("PutItem -> handler start p99 (ms)", samples[min(len(samples) - 1, int(len(samples) * 0.99))], 0)]


def table(title: str, peer: str, rows: list[tuple[str, float, float]]) -> None:
    print(f"\n{title}\n| measure | Eddy | {peer} | ratio Eddy/{peer} |\n|---|---|---|---|")
    for label, eddy, other in rows:
        shown = (lambda v: f"{v:,.2f}" if v < 10 else f"{v:,.0f}")
        print(f"| {label} | {shown(eddy)} | {shown(other) if other else ''} | "
              f"{f'{eddy / other:.2f}x' if other else ''} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=600, help="calls of the 1-client rounds (others: a share)")
    parser.add_argument("--only", choices=("http", "inprocess", "start"))
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    shown = f"--only start" if args.only == "start" else f"--calls {args.calls}"
    print(f"bench/peers.py --rounds {args.rounds} {shown}: {datetime.date.today()}, commit {commit}, "
          f"load average {os.getloadavg()[0]:.1f}, MiniStack {servers.MINISTACK_VERSION}, Python {sys.version.split()[0]}")
    if args.only != "inprocess":
        servers.ministack_command()
        table("Over HTTP (servers alternating, medians; times and memory: lower is better)", "MiniStack",
              http_rows(args.rounds, 0 if args.only == "start" else args.calls))
    if args.only not in ("http", "start"):
        table("In-process (medians; the peer column is the floor named in the row)", "floor",
              inprocess_rows(args.calls, args.rounds))


if __name__ == "__main__":
    main()
