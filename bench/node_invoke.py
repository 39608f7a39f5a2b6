"""Invoke times of a Node.js zip function, cold and warm, against a Python zip function measured in the same run.

Cold: the first Invoke after UpdateFunctionCode (a new worker process starts and loads the handler); warm: an
Invoke of a worker already running. Each function is a no-op handler, and one more of each that loads the
AWS SDK (boto3 / @aws-sdk/client-dynamodb) at start, as real handlers do. In-process door, boto3 client.

    .venv/bin/python bench/node_invoke.py [--cold 8] [--warm 200]
"""

from __future__ import annotations

import argparse
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
FUNCTIONS = {
    "python": ("python3.12", "app.handler", "app.py", "def handler(event, context):\n    return event\n"),
    "python+boto3": ("python3.12", "app.handler", "app.py",
                     "import boto3\nclient = boto3.client('dynamodb')\ndef handler(event, context):\n    return event\n"),
    "node": ("nodejs20.x", "index.handler", "index.mjs", "export const handler = async (event) => event;\n"),
    "node+sdk": ("nodejs20.x", "index.handler", "index.mjs",
                 "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nconst client = new DynamoDBClient({});\n"
                 "export const handler = async (event) => event;\n"),
}


def zip_of(name: str, source: str, salt: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, source + ("\n" * salt))  # a new package each time: a new CodeSha256
    return buffer.getvalue()


def timed_invoke(lam, name: str) -> float:
    started = time.perf_counter()
    response = lam.invoke(FunctionName=name, Payload=json.dumps({"n": 1}))
    response["Payload"].read()
    assert "FunctionError" not in response, name
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cold", type=int, default=8)
    parser.add_argument("--warm", type=int, default=200)
    args = parser.parse_args()
    from eddy import emulate

    cold: dict[str, list[float]] = {name: [] for name in FUNCTIONS}
    warm: dict[str, list[float]] = {name: [] for name in FUNCTIONS}
    with emulate(housekeeping_interval=None) as emu:
        lam = boto3.client("lambda", region_name="us-east-1")
        for name, (runtime, handler, file, source) in FUNCTIONS.items():
            lam.create_function(FunctionName=name.replace("+", "-"), Runtime=runtime, Role=ROLE, Handler=handler,
                                Code={"ZipFile": zip_of(file, source, 0)})
        for round_ in range(1, args.cold + 1):  # alternate the functions so each round sees the same machine
            for name, (_, _, file, source) in FUNCTIONS.items():
                function = name.replace("+", "-")
                lam.update_function_code(FunctionName=function, ZipFile=zip_of(file, source, round_))
                cold[name].append(timed_invoke(lam, function))
        for _ in range(args.warm):
            for name in FUNCTIONS:
                warm[name].append(timed_invoke(lam, name.replace("+", "-")))
    python_cold, python_warm = statistics.median(cold["python"]), statistics.median(warm["python"])
    print(f"{'function':<14}{'cold p50 ms':>12}{'x python':>10}{'warm p50 ms':>13}{'warm p99 ms':>13}{'x python':>10}")
    for name in FUNCTIONS:
        c, w = statistics.median(cold[name]), statistics.median(warm[name])
        p99 = statistics.quantiles(warm[name], n=100)[98]
        print(f"{name:<14}{c:>12.1f}{c / python_cold:>10.2f}{w:>13.2f}{p99:>13.2f}{w / python_warm:>10.2f}")


if __name__ == "__main__":
    main()
