"""A Python function's cold start, its worker forked from the template that has imported boto3
(runtimes/python_template.py) against one started by exec as before (issue 39: a function's cold start is part of
the triggers' lead; issue 35: the test suite starts about 800 Python workers a run).

Cold: the first Invoke of a new function (a new worker starts and loads its handler). The handlers: a no-op, and one
that imports boto3 and makes a DynamoDB client as it loads, as real handlers do. Each is made twice in every round:
as is (forked), and with PYTHONCASEOK set, a start-up variable that changes nothing on Linux and makes its worker a
fresh interpreter (started by exec). Per start: the Invoke's time, and the worker's CPU from its start to the end of
its handler (os.times in the worker: a forked worker counts from its fork, an exec'd one from its exec). Also the
template's own CPU (its preload, once per process, and its forks), read from /proc at the end. In-process door.

    .venv/bin/python bench/python_cold_start.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import statistics
import time
import zipfile

import boto3

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

ROLE = "arn:aws:iam::123456789012:role/bench"
REPORT = "import os\ndef handler(event, context):\n    return {'cpu': sum(os.times()[:2]), 'parent': os.getppid()}\n"
HANDLERS = {"no-op": REPORT, "boto3 + a client": "import boto3\nclient = boto3.client('dynamodb')\n" + REPORT}
STARTS = {"forked": {}, "exec": {"PYTHONCASEOK": "1"}}


def _zip(source: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", source)
    return buffer.getvalue()


def _cpu_of(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    from eddy import emulate

    figures: dict[tuple[str, str], dict[str, list[float]]] = {}
    templates = set()
    with emulate():
        lam = boto3.client("lambda", region_name="us-east-1")
        for round_ in range(args.rounds + 1):  # the first round (the template's start among it) is not counted
            for handler, source in HANDLERS.items():
                for started_by, variables in STARTS.items():
                    name = f"cold-{round_}-{len(figures)}-{started_by}-{handler.split()[0]}"
                    lam.create_function(FunctionName=name, Runtime="python3.12", Role=ROLE, Handler="app.handler",
                                        Code={"ZipFile": _zip(source)}, Environment={"Variables": variables})
                    lam.get_waiter("function_active_v2").wait(FunctionName=name)
                    began = time.perf_counter()
                    answer = json.loads(lam.invoke(FunctionName=name)["Payload"].read())
                    took = time.perf_counter() - began
                    if started_by == "forked":
                        templates.add(answer["parent"])
                    if round_:
                        row = figures.setdefault((handler, started_by), {"invoke": [], "cpu": []})
                        row["invoke"].append(took)
                        row["cpu"].append(answer["cpu"])
        template_cpu = sum(_cpu_of(pid) for pid in templates if os.path.exists(f"/proc/{pid}"))
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {args.rounds} rounds, load "
          f"{os.getloadavg()[0]:.1f}\n")
    print("| handler | started | cold Invoke (s, median) | the worker's CPU (s, median) |\n|---|---|---|---|")
    for (handler, started_by), row in figures.items():
        print(f"| {handler} | {started_by} | {statistics.median(row['invoke']):.3f} | "
              f"{statistics.median(row['cpu']):.3f} |")
    forks = len(HANDLERS) * (args.rounds + 1)
    print(f"\nthe template's own CPU over the run (its preload and {forks} forks): {template_cpu:.2f} s")


if __name__ == "__main__":
    main()
