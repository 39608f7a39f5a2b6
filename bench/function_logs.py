"""What durable function logs cost an invocation: warm Invoke of a Python zip function and direct invocations of
a registered callable on a durable emulator (a state directory), with each invocation's log events written to
moto's CloudWatch Logs and Eddy's write-ahead log (today's path) against moto only (the path before logs were
durable), measured in the same run, alternating rounds so both see the same machine.

    .venv/bin/python bench/function_logs.py [--rounds 6] [--invokes 200]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import tempfile
import time
import zipfile

import boto3

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")


def package() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\n    print('got', event['n'])\n    return event\n")
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--invokes", type=int, default=200)
    args = parser.parse_args()
    from eddy import emulate
    from eddy.emulator.moto_seam.cloudwatch_logs import put_events

    per_invoke: dict[str, dict[str, list[float]]] = {kind: {"durable": [], "moto only": []}
                                                     for kind in ("zip Invoke", "callable")}
    with tempfile.TemporaryDirectory() as state, emulate(state_dir=state, housekeeping_interval=None) as emu:
        lam = boto3.client("lambda", region_name="us-east-1")
        lam.create_function(FunctionName="talks", Runtime="python3.12", Handler="app.handler",
                            Role="arn:aws:iam::123456789012:role/bench", Code={"ZipFile": package()})
        callable_function = emu.register_function("talks-here", lambda event, context: event["n"])
        function = emu.functions.get(callable_function, "123456789012", "us-east-1")
        durable_sink = emu.invoker.logs.sink
        lam.invoke(FunctionName="talks", Payload=b'{"n": 0}')  # the worker is warm
        modes = [("durable", durable_sink), ("moto only", put_events)]
        for round_ in range(args.rounds):
            for mode, sink in modes[::-1] if round_ % 2 else modes:  # each mode first in half of the rounds
                emu.invoker.logs.sink = sink
                started = time.perf_counter()
                for n in range(args.invokes):
                    lam.invoke(FunctionName="talks", Payload=json.dumps({"n": n}).encode())["Payload"].read()
                per_invoke["zip Invoke"][mode].append((time.perf_counter() - started) / args.invokes * 1e6)
                started = time.perf_counter()
                for n in range(args.invokes):
                    emu.invoker.invoke(function, {"n": n})
                per_invoke["callable"][mode].append((time.perf_counter() - started) / args.invokes * 1e6)
    print(f"{'invocation':<12}{'durable µs':>12}{'moto only µs':>14}{'ratio':>8}")
    for kind, modes in per_invoke.items():
        durable, moto_only = statistics.median(modes["durable"]), statistics.median(modes["moto only"])
        print(f"{kind:<12}{durable:>12.0f}{moto_only:>14.0f}{durable / moto_only:>8.3f}")


if __name__ == "__main__":
    main()
