"""What having Eddy installed costs a project, against moto's mock_aws, in one run (issue 34's targets):

  - `import eddy`: a fresh interpreter importing it (target: <= 0.2 s);
  - a pytest session of one trivial test with Eddy's plugin loaded and with `-p no:eddy` (target: <= 0.1 s more);
  - the first in-process cycle in a fresh interpreter: import, emulate() (or mock_aws), a table, 5 puts and a read,
    its wall time, its CPU time (user and system, the steadier figure on a busy machine) and the process's peak
    memory (target: no slower than moto's);
  - the per-test cycle, in one warm process: emulate() (or mock_aws) around a table, 5 puts and a read (target: no
    slower than moto's).

Fresh interpreters are timed from outside (process start to exit), each figure the median of --rounds runs in
alternation (Eddy, moto, Eddy, ...), after one untimed run of each. They run with bytecode, as an installed Eddy
does (pip compiles it at install, as it compiled moto): PYTHONDONTWRITEBYTECODE is dropped for them, so a checkout's
modules are compiled once by that first run instead of at every import. A virtual machine's speed moves from minute
to minute: read the ratios.

    .venv/bin/python bench/guest_cost.py [--rounds 7] [--cycles 30]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

CYCLE = """
import boto3
dynamodb = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")
dynamodb.create_table(TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                      BillingMode="PAY_PER_REQUEST")
for number in range(5):
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"o-{number}"}})
assert dynamodb.get_item(TableName="orders", Key={"pk": {"S": "o-3"}})["Item"] == {"pk": {"S": "o-3"}}
"""
BLOCK = {"eddy": "from eddy import emulate\nwith emulate(housekeeping_interval=None):\n",
         "moto": "from moto import mock_aws\nwith mock_aws():\n"}
FIRST_CYCLE = {name: opening + textwrap.indent(CYCLE, "    ") +
               "\nimport resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
               for name, opening in BLOCK.items()}
WARM = """
import gc, statistics, time
{opening}    pass
times = []
for _ in range({cycles}):
    gc.collect()
    started = time.perf_counter()
{block}
    times.append(time.perf_counter() - started)
print(statistics.median(times))
"""


#: the children's environment: with bytecode (see above), plugins loaded as pytest loads them
CHILD_ENV = {name: value for name, value in os.environ.items()
             if name not in ("PYTHONDONTWRITEBYTECODE", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")}


def timed(argv: list[str], cwd: str | None = None) -> tuple[float, str]:
    seconds, _, output = timed_with_cpu(argv, cwd)
    return seconds, output


def timed_with_cpu(argv: list[str], cwd: str | None = None) -> tuple[float, float, str]:
    """The command's wall time, its CPU time (user and system) and its output."""
    before, started = children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, check=True, env=CHILD_ENV)
    return time.perf_counter() - started, children_cpu() - before, done.stdout


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def medians(runs: dict[str, list[str]], rounds: int, cwd: str | None = None) -> dict[str, tuple[float, str]]:
    """Each command `rounds` times in alternation: its median wall time and the last run's output."""
    return {name: (wall, output) for name, (wall, _, output) in medians_with_cpu(runs, rounds, cwd).items()}


def medians_with_cpu(runs: dict[str, list[str]], rounds: int, cwd: str | None = None) -> dict[str, tuple[float, float, str]]:
    """Each command `rounds` times in alternation: its median wall and CPU times and the last run's output."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    outputs: dict[str, str] = {}
    for argv in runs.values():  # untimed: bytecode written, files in the page cache
        timed(argv, cwd)
    for _ in range(rounds):
        for name, argv in runs.items():
            seconds, used, outputs[name] = timed_with_cpu(argv, cwd)
            times[name].append(seconds)
            cpu[name].append(used)
    return {name: (statistics.median(times[name]), statistics.median(cpu[name]), outputs[name]) for name in runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cycles", type=int, default=30)
    args = parser.parse_args()
    python = sys.executable
    print(f"guest cost: medians of {args.rounds} rounds in alternation; warm cycles: median of {args.cycles}")

    imports = medians({"import eddy": [python, "-c", "import eddy"], "python": [python, "-c", "pass"]}, args.rounds)
    print(f"  import eddy (process)        {imports['import eddy'][0]:7.3f} s   "
          f"python alone {imports['python'][0]:.3f} s   import eddy itself "
          f"{imports['import eddy'][0] - imports['python'][0]:+.3f} s   (target <= 0.2 s)")

    with tempfile.TemporaryDirectory() as project:
        Path(project, "test_trivial.py").write_text("def test_nothing():\n    assert True\n")
        pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_trivial.py"]
        sessions = medians({"plugin": pytest, "no plugin": [*pytest, "-p", "no:eddy"]}, args.rounds, project)
    more = sessions["plugin"][0] - sessions["no plugin"][0]
    print(f"  pytest, one trivial test     {sessions['plugin'][0]:7.3f} s with the plugin, "
          f"{sessions['no plugin'][0]:.3f} s with -p no:eddy: {more:+.3f} s   (target <= +0.1 s)")

    first = medians_with_cpu({name: [python, "-c", code] for name, code in FIRST_CYCLE.items()}, args.rounds)
    (eddy_s, eddy_cpu, eddy_out), (moto_s, moto_cpu, moto_out) = first["eddy"], first["moto"]
    eddy_mb, moto_mb = int(eddy_out.split()[-1]) / 1024, int(moto_out.split()[-1]) / 1024
    print(f"  first cycle (fresh process)  Eddy {eddy_s:.3f} s {eddy_mb:.0f} MB, moto {moto_s:.3f} s "
          f"{moto_mb:.0f} MB: {eddy_s / moto_s:.2f}x the time, {eddy_mb / moto_mb:.2f}x the memory   (target <= 1x)")
    print(f"                               CPU: Eddy {eddy_cpu:.3f} s, moto {moto_cpu:.3f} s: {eddy_cpu / moto_cpu:.2f}x")

    warm = {name: [python, "-c", WARM.format(opening=BLOCK[name], cycles=args.cycles,
                                             block=textwrap.indent(BLOCK[name] + textwrap.indent(CYCLE, "    "),
                                                                   "    "))]
            for name in BLOCK}
    outputs = {name: float(timed(argv)[1].split()[-1]) for name, argv in warm.items()}  # after the first cycle
    print(f"  per-test cycle (warm)        Eddy {outputs['eddy'] * 1000:.1f} ms, moto {outputs['moto'] * 1000:.1f} ms: "
          f"{outputs['eddy'] / outputs['moto']:.2f}x   (target <= 1x)")


if __name__ == "__main__":
    main()
