"""`eddy serve`'s cold start, many times over: how its first answers are spread, and its idle memory (issue 39's
start target; issue 35: the test suite starts about 200 servers, each one's CPU to DynamoDB loaded counted in full).

Every start is a new `eddy serve --port P --state-dir D`, D a new empty directory (as peers.py starts it: the port
opens before the engine is loaded, cli/serve.py), a boto3 client asking ListTables every 5 ms from the process's
start. Then, per start: the time to that first ListTables answer and the server's CPU up to it (user and system
time, /proc), the time and the CPU to the first answer that needs DynamoDB loaded (DescribeTable of a table never
made: ResourceNotFoundException), the resident memory a second after that, then the server's CPU for a CreateTable
with a stream and its first PutItem (/proc counts CPU in ticks of 10 ms: read its median over many rounds). Each
figure's median and slowest tenth (the 90th percentile) over the rounds.

    .venv/bin/python bench/starts.py [--rounds 20] [--tree DIR ...]

`--tree DIR`: also start the Eddy of another checkout DIR (a `git worktree` or `git archive` of another commit), with
this virtualenv's packages, one start of each tree in turn in every round, so that a busy spell of the machine falls
on all of them: a before and after in one run. Each tree is then imported from its own folders (a package of links,
first on PYTHONPATH), this checkout's too, so that each pays the same to find its modules; a first start of each,
not counted, writes its bytecode (the run drops PYTHONDONTWRITEBYTECODE, as `make test` does).
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from peer_servers import Peer, client  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: the repository's folders that install as eddy.<name> (setup.py)
PARTS = ("emulator", "handlers", "spark_batch", "infra")
FIGURES = ("first ListTables answered (s)", "the server's CPU to its first ListTables (s)",
           "DynamoDB loaded: first DescribeTable answered (s)", "the server's CPU to DynamoDB loaded (s)",
           "idle RSS (MB)", "the server's CPU for CreateTable (a stream) and its first PutItem (s)")


def linked_package(tree: Path, into: Path) -> Path:
    """A folder holding an `eddy` package made of links to `tree`'s folders, laid out as setup.py installs them."""
    package = into / "eddy"
    package.mkdir(parents=True)
    for entry in (tree / "eddy").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry.resolve())
    for part in PARTS:
        (package / part).symlink_to((tree / part).resolve())
    return into


def one_start(label: str, state_dir: str, pythonpath: str | None) -> dict[str, float]:
    env = {"PYTHONDONTWRITEBYTECODE": ""}  # empty: not set (bytecode written and read, as `make test` runs)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    peer = Peer(label, lambda port: [sys.executable, "-m", "eddy", "serve", "--port", str(port), "--state-dir",
                                     state_dir], lambda port: env)
    first = peer.start()
    try:
        figures = {FIGURES[0]: first, FIGURES[1]: peer.cpu_seconds()}
        figures[FIGURES[2]] = peer.ready()
        figures[FIGURES[3]] = peer.cpu_seconds()
        time.sleep(1)  # idle: what the process holds once it has started and answered
        figures[FIGURES[4]] = peer.rss_mb()
        figures[FIGURES[5]] = first_put_cpu(peer)
    finally:
        peer.stop()
    return figures


def first_put_cpu(peer: Peer) -> float:
    """The server's CPU for a streamed table's CreateTable and its first PutItem (what a test's first write pays
    beyond the start: a cost moved out of the start would show here)."""
    dynamodb = client(peer.url)
    before = peer.cpu_seconds()
    dynamodb.create_table(TableName="first-put", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST",
                          StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    dynamodb.put_item(TableName="first-put", Item={"pk": {"S": "first"}, "n": {"N": "1"}})
    return peer.cpu_seconds() - before


def tenth(values: list[float]) -> float:
    """The slowest tenth's lower bound: the 90th percentile (the largest value where there are fewer than 10)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--tree", action="append", default=[], type=Path, help="another checkout to start as well")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.tree]
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # `python -m eddy` finds the package in its working directory first: never a checkout's here
        variants: dict[str, str | None] = {"this checkout": None}
        if trees:
            variants = {}
            for number, tree in enumerate([ROOT, *trees]):
                name = "this checkout" if tree == ROOT else f"{tree}"
                variants[name] = str(linked_package(tree, Path(scratch) / f"tree{number}"))
        for label, pythonpath in variants.items():  # each tree's bytecode written, not counted
            one_start(label, tempfile.mkdtemp(dir=scratch), pythonpath)
        samples: dict[str, dict[str, list[float]]] = {label: {} for label in variants}
        for _ in range(args.rounds):
            for label, pythonpath in variants.items():
                for name, value in one_start(label, tempfile.mkdtemp(dir=scratch), pythonpath).items():
                    samples[label].setdefault(name, []).append(value)
    load = os.getloadavg()
    print(f"`eddy serve` cold start, {args.rounds} rounds, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} "
          f"UTC, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    for label, figures in samples.items():
        print(f"\n{label}")
        print(f"| measure | median | slowest tenth (p90) | max |\n| --- | --- | --- | --- |")
        for name, values in figures.items():
            print(f"| {name} | {statistics.median(values):.3f} | {tenth(values):.3f} | {max(values):.3f} |")


if __name__ == "__main__":
    main()
