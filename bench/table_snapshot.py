"""A snapshot of a durable emulator holding one table of many items (issue 39): the CPU and wall time of
`Persistence.snapshot()` (every channel's entries written, the items' lines most of them), repeated, medians.

    .venv/bin/python bench/table_snapshot.py [--items 100000] [--rounds 5] [--tree DIR ...]

The table (a NEW_AND_OLD_IMAGES stream) is filled through boto3's BatchWriteItem (bench/common.py's fill_table), then snapshotted
`--rounds` times (each snapshot writes the whole state again). `--tree DIR`: the same run with another checkout's
Eddy (a `git archive` of another commit), each tree in its own process, the trees' processes in turn, so that a
busy spell of the machine falls on all of them: a before and after in one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
HERE = Path(__file__).resolve().parent


def measure(items: int, rounds: int) -> None:
    """In this process: fill, then snapshot `rounds` times; prints one line of figures."""
    import boto3

    sys.path.insert(0, str(HERE))
    from common import create_table, fill_table

    from eddy import emulate

    with tempfile.TemporaryDirectory() as state, emulate(
        state_dir=state, housekeeping_interval=None, snapshot_every=10**9
    ) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "orders", "NEW_AND_OLD_IMAGES")
        fill_table(dynamodb, items)
        cpu, wall, size = [], [], 0
        for _ in range(rounds):
            started_cpu, started = time.process_time(), time.perf_counter()
            path = emu.persistence.snapshot()
            cpu.append(time.process_time() - started_cpu)
            wall.append(time.perf_counter() - started)
            size = path.stat().st_size
    print(f"{statistics.median(cpu):.3f} {statistics.median(wall):.3f} {size}")


def linked(tree: Path, into: Path) -> str:
    sys.path.insert(0, str(HERE))
    from starts import linked_package

    return str(linked_package(tree, into))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tree", action="append", default=[], type=Path, help="another checkout to run as well")
    parser.add_argument("--runs", type=int, default=2, help="processes of each tree, in turn")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.items, args.rounds)
        return
    with tempfile.TemporaryDirectory() as scratch:
        variants = {"this checkout": linked(HERE.parent, Path(scratch) / "tree0")}
        for number, tree in enumerate(args.tree, 1):
            variants[str(tree)] = linked(tree.resolve(), Path(scratch) / f"tree{number}")
        results: dict[str, list[tuple[float, float, int]]] = {label: [] for label in variants}
        for _ in range(args.runs):
            for label, pythonpath in variants.items():
                command = [sys.executable, str(Path(__file__).resolve()), "--measure", "--items", str(args.items),
                           "--rounds", str(args.rounds)]
                answer = subprocess.run(command, cwd=scratch, env={**os.environ, "PYTHONPATH": pythonpath},
                                        check=True, capture_output=True, text=True).stdout.split()
                results[label].append((float(answer[0]), float(answer[1]), int(answer[2])))
    load = os.getloadavg()
    print(f"bench/table_snapshot.py --items {args.items} --rounds {args.rounds} --runs {args.runs}, "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    for label, runs in results.items():
        cpu = ", ".join(f"{c:.3f}" for c, _, _ in runs)
        wall = ", ".join(f"{w:.3f}" for _, w, _ in runs)
        print(f"{label}: a snapshot's CPU {cpu} s, wall {wall} s (medians of each process's rounds); "
              f"the file {runs[-1][2]:,} bytes")


if __name__ == "__main__":
    main()
