"""Where the test suite's CPU goes (issue 35: `make test` within 15 minutes on 2 cores).

The suite is CPU-bound on 2 cores (both busy from its first minute to its last), so its time is its CPU: the CPU of
everything the tests start, the processes no one waits for included (Spark's JVMs, servers a test kills, function
workers), which `time` and getrusage do not count. This bench counts it with a cpuacct cgroup (Linux, cgroup v1, as
root): as a pytest plugin (`-p suite_cpu`, this directory on PYTHONPATH) it puts each pytest-xdist worker in a cgroup
of its own, which every process the worker starts inherits, and writes one line per test: its wall time, the CPU of
its worker's whole process tree while it ran, and the worker's own.

    .venv/bin/python bench/suite_cpu.py run [--out FILE] [pytest's arguments]   # the whole suite by default, as make test
    .venv/bin/python bench/suite_cpu.py report FILE [--top 30]

With `run --processes`, every Python process the tests start also writes when it starts and ends (bench/suite_processes/
sitecustomize.py, put first on PYTHONPATH), and `report` counts them by kind: `eddy serve`, function workers, CLI
commands, tools; a process that was killed is counted without its CPU.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

#: one cgroup folder a run (`run` names it after its own pid), so that two runs at once on a shared machine do not add
#: their workers' CPU together
CGROUPS = Path("/sys/fs/cgroup/cpuacct") / os.environ.get("SUITE_CPU_CGROUP", "eddy-suite-cpu")
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "controller")
OUT = os.environ.get("SUITE_CPU_OUT", "suite-cpu.jsonl")

_started: dict[str, tuple[float, float, float]] = {}
_lines = None
_records = True  # False in pytest-xdist's controller: it sees every test's report, its workers ran them


def _usage() -> float:
    return int((CGROUPS / WORKER / "cpuacct.usage").read_text()) / 1e9


def pytest_configure(config) -> None:
    global _lines, _records
    _records = WORKER != "controller" or not getattr(config.option, "numprocesses", None)
    (CGROUPS / WORKER).mkdir(parents=True, exist_ok=True)
    (CGROUPS / WORKER / "cgroup.procs").write_text(str(os.getpid()))
    _lines = open(OUT, "a", buffering=1)


def pytest_runtest_logstart(nodeid, location) -> None:
    if _records:
        _started[nodeid] = (time.time(), _usage(), time.process_time())


def pytest_runtest_logfinish(nodeid, location) -> None:
    if not _records:
        return
    start, usage, own = _started.pop(nodeid)
    _lines.write(json.dumps({"worker": WORKER, "test": nodeid, "wall": time.time() - start,
                             "tree": _usage() - usage, "own": time.process_time() - own}) + "\n")


def area(test: str) -> str:
    """What a test is, for the report: Spark's (its groups and modules), the installed wheel's, the real deploy
    tools', the durability tests', else its folder under tests/emulator/ or its module."""
    module = test.split("::")[0]
    if "@spark" in test or module.startswith("tests/spark_batch/"):
        return "Spark"
    if "@package" in test:
        return "the installed wheel (test_package, test_guest_project)"
    if module in ("tests/emulator/cloudformation/test_cdk.py", "tests/emulator/cloudformation/test_real_tools.py"):
        return "real deploy tools (CDK, SAM, aws cloudformation)"
    parts = module.split("/")
    if parts[1] == "emulator" and len(parts) > 3:
        return "/".join(parts[:3])
    return "/".join(parts[:2]) if len(parts) > 2 else module


def report(path: Path, top: int) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    total = sum(row["tree"] for row in rows)
    if not rows:
        raise SystemExit(f"{path}: no test ran (pytest's arguments chose none?)")
    by_area, counts = collections.Counter(), collections.Counter()
    for row in rows:
        by_area[area(row["test"])] += row["tree"]
        counts[area(row["test"])] += 1
    print(f"{len(rows)} tests, {total:,.0f} s of CPU (their workers' process trees)\n")
    print("| area | tests | CPU s | share |\n|---|---|---|---|")
    for name, seconds in by_area.most_common():
        print(f"| {name} | {counts[name]} | {seconds:,.0f} | {seconds / total:.0%} |")
    print("\n| CPU per test | tests | CPU s | share |\n|---|---|---|---|")
    bounds = [(0, 0.1), (0.1, 1), (1, 3), (3, 10), (10, float("inf"))]
    for low, high in bounds:
        chosen = [row["tree"] for row in rows if low <= row["tree"] < high]
        label = f">= {low:g} s" if high == float("inf") else f"{low:g} to {high:g} s"
        print(f"| {label} | {len(chosen)} | {sum(chosen):,.0f} | {sum(chosen) / total:.0%} |")
    print(f"\nthe {top} costliest tests (CPU s, wall s):")
    for row in sorted(rows, key=lambda row: -row["tree"])[:top]:
        print(f"  {row['tree']:6.1f} {row['wall']:6.1f}  {row['test']}")


def process_kind(argv: list[str]) -> str:
    """What a Python process the suite started is, from its command line."""
    words = " ".join(argv[1:])
    if "eddy serve" in words.replace("-m eddy serve", "eddy serve") or ("run()" in words and "serve" in argv):
        return "eddy serve"
    if "functions/worker.py" in words:
        return "a Python function's worker"
    if "functions/worker_template.py" in words:  # the workers it forks write no line of their own
        return "the Python workers' template"
    if "-m pytest" in words or "exec(eval(sys.stdin" in words:  # execnet starts pytest-xdist's workers
        return "pytest and its workers"
    if "-m eddy" in words:
        return "eddy " + next((word for word in argv[argv.index("eddy") + 1:] if not word.startswith("-")), "")
    if "pyspark" in words:
        return "Spark's Python workers"
    tool = next((name for name in ("sam", "aws", "cdk", "pip") if f"/{name} " in words or f"-m {name}" in words), None)
    return f"a deploy or packaging tool ({tool})" if tool else "other"


def report_processes(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    started = {row["pid"]: row for row in rows if row["event"] == "start"}
    ended = {row["pid"]: row for row in rows if row["event"] == "end"}
    counts, exited, cpu = collections.Counter(), collections.Counter(), collections.Counter()
    for pid, row in started.items():
        kind = process_kind(row["argv"])
        counts[kind] += 1
        if pid in ended:
            exited[kind] += 1
            cpu[kind] += ended[pid]["cpu"]
    print("\n| Python processes started | started | exited | their CPU s (exited ones) |\n|---|---|---|---|")
    for kind, count in counts.most_common():
        print(f"| {kind} | {count} | {exited[kind]} | {cpu[kind]:,.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="the suite (or pytest's arguments) with the plugin")
    run.add_argument("--out", type=Path, default=Path("suite-cpu.jsonl"))
    run.add_argument("--processes", action="store_true", help="count the Python processes the tests start")
    show = commands.add_parser("report", help="the figures of a run")
    show.add_argument("file", type=Path)
    show.add_argument("--top", type=int, default=30)
    args, pytest_args = parser.parse_known_args()
    if args.command == "report":
        report(args.file, args.top)
        if args.file.with_suffix(".processes.jsonl").exists():
            report_processes(args.file.with_suffix(".processes.jsonl"))
        return
    args.out.unlink(missing_ok=True)
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    processes = args.out.with_suffix(".processes.jsonl")
    processes.unlink(missing_ok=True)
    site = [str(Path(__file__).parent / "suite_processes")] if args.processes else []
    env.update(PYTHONPATH=os.pathsep.join(filter(None, [*site, str(Path(__file__).parent), env.get("PYTHONPATH")])),
               SUITE_CPU_OUT=str(args.out.resolve()), SUITE_CPU_CGROUP=f"eddy-suite-cpu-{os.getpid()}",
               SUITE_PROCESSES_OUT=str(processes.resolve()))
    pytest_args = pytest_args or ["-q", "-n", "4", "--dist", "loadgroup"]
    status = subprocess.run([sys.executable, "-m", "pytest", "-p", "suite_cpu", *pytest_args], env=env).returncode
    run_cgroup = CGROUPS.parent / env["SUITE_CPU_CGROUP"]
    deadline = time.monotonic() + 30  # processes the tests killed or left to end (JVMs) leave their cgroup by then
    for folder in [*run_cgroup.glob("*/"), run_cgroup]:
        while (folder / "cgroup.procs").read_text().strip() and time.monotonic() < deadline:
            time.sleep(0.1)  # polling a condition (the cgroup is empty), bounded by the deadline
        try:
            folder.rmdir()  # a cgroup goes once no process is left in it
        except OSError as error:
            print(f"{folder} not removed: {error}", file=sys.stderr)
    report(args.out, 30)
    if args.processes:
        report_processes(processes)
    sys.exit(status)


if __name__ == "__main__":
    main()
