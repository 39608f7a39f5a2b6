"""Instructions per in-process PutItem and GetItem, Eddy against boto3's client floor, counted by valgrind (issue 39).

Wall and CPU time on a shared machine move with its load more than with the code (bench/inprocess_floor.py's rates
moved by a third between runs minutes apart); an instruction count does not, so a change's effect on Eddy's share
of a call can be read from one run before and one after. Each figure is a process run under
`valgrind --tool=callgrind` twice, with no measured calls and with `--calls` of them, after the same warm-up (a
table with a NEW_AND_OLD_IMAGES stream, 200 PutItems and GetItems): the difference over the calls is one call's
instructions, start-up and warm-up left out. The floor is bench/inprocess_floor.py's client (its before-send event
answers `{}`, no emulator active); Eddy's share is the difference. Instructions are not time (a cache miss costs
more than an add), so docs/performance.md's rates stay the figures users feel; this is for before and after.

    .venv/bin/python bench/inprocess_instructions.py [--calls 400]     # a few minutes: six processes under valgrind
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _calls(who: str, operation: str, count: int) -> None:
    """The measured process: the warm-up, then `count` calls of `operation` by `who` (eddy or floor)."""
    sys.path.insert(0, str(HERE))
    import boto3

    import inprocess_floor
    from peer_servers import item

    def run(client) -> None:
        for i in range(200):
            client.put_item(TableName="bench", Item=dict(item(i), pk={"S": f"k{i}"}))
            client.get_item(TableName="bench", Key={"pk": {"S": f"k{i}"}})
        for i in range(count):
            if operation == "put":
                client.put_item(TableName="bench", Item=dict(item(i), pk={"S": f"n{i}"}))
            else:
                client.get_item(TableName="bench", Key={"pk": {"S": f"k{i % 200}"}})

    from eddy import emulate  # imported by the floor too: as in bench/inprocess_floor.py, no emulator active

    if who == "floor":
        run(inprocess_floor.floor_client())
        return
    with emulate(housekeeping_interval=None, split_records_per_second=None):
        client = boto3.client("dynamodb", region_name="us-east-1")
        inprocess_floor.create_streamed(client)
        run(client)


def _instructions(who: str, operation: str, count: int) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
         "--child", who, operation, str(count)],
        capture_output=True, text=True, check=True, env=dict(os.environ, PYTHONHASHSEED="0"),
    )
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def per_call(calls: int) -> dict[str, dict[str, float]]:
    """{"floor"|"eddy": {"PutItem"|"GetItem": instructions per call}}."""
    figures: dict[str, dict[str, float]] = {}
    for who in ("floor", "eddy"):
        none = _instructions(who, "put", 0)
        figures[who] = {
            name: (_instructions(who, operation, calls) - none) / calls
            for name, operation in (("PutItem", "put"), ("GetItem", "get"))
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        who, operation, count = args.child
        _calls(who, operation, int(count))
        return
    figures = per_call(args.calls)
    print("| call | Eddy | boto3's client floor | Eddy's share | floor / Eddy |")
    print("| --- | --- | --- | --- | --- |")
    for name in ("PutItem", "GetItem"):
        eddy, floor = figures["eddy"][name], figures["floor"][name]
        print(f"| {name} | {eddy / 1e6:.3f} M | {floor / 1e6:.3f} M | {(eddy - floor) / 1e6:.3f} M | {floor / eddy:.2f}x |")


if __name__ == "__main__":
    main()
