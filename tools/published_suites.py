#!/usr/bin/env python3
"""The published suites' re-count: LocalStack's AWS-validated tests, unmodified, against `eddy serve`.

LocalStack's tests (github.com/localstack/localstack, tests/aws/services/...) were recorded against real AWS: each
test marked ``markers.aws.validated`` compares what it is answered with AWS's recorded answer in the
``*.snapshot.json`` beside it (the localstack-snapshot library). Their fixtures make boto3 clients for the endpoint
in TEST_AWS_ENDPOINT_URL when TEST_SKIP_LOCALSTACK_START is set, so they run against Eddy as they are.

    python tools/published_suites.py --localstack PATH [--commit REV] [--area NAME ...] [--python python3.13]

What it does:
  1. Takes LocalStack's test sources and its testing library (localstack-core) from the git repository at PATH
     (a clone or a bare mirror; nothing is downloaded from it) at REV (default HEAD) into
     .published/<commit>/src (git-ignored), and makes .published/venv-<commit>: a Python 3.12+ virtualenv with the
     packages those fixtures import, at the versions LocalStack's requirements-test.txt pins (from PyPI).
  2. For each area (tools/published/areas.py): starts a fresh `eddy serve --in-memory` on a free port, runs the
     area's test files with ``-m aws_validated``, records each test's outcome (tools/peer/plugin.py), stops it.
  3. Prints a table (area, passed of ran, failed, errors, skipped), writes it with every test's outcome to
     .published/<commit>/results.json, and lists the tests that did not pass.

Exit status: 0 = every area was counted (whatever it counted); 2 = the harness failed (no LocalStack repository,
no Python 3.12, pip), or an area could not be counted (its tests did not load, Eddy did not become healthy): the
other areas are still run and counted.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from peer.common import RESULTS_ENV, TOOLS_DIR, HarnessError, log
from peer.servers import Server, _kill_group, base_env, free_port
from published.areas import Area, chosen
from published.counts import not_passing, read_results, table, tally
from published.localstack import SetupError, client_venv, default_python, extract, resolve_commit

CACHE = TOOLS_DIR.parent / ".published"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--localstack", type=Path, required=True, help="LocalStack's git repository (clone or mirror)")
    p.add_argument("--commit", default="HEAD", help="the revision whose tests run (default HEAD)")
    p.add_argument("--area", action="append", help="an area to count (repeatable; default all)")
    p.add_argument("--python", default=None, help="a Python 3.12+ for LocalStack's tests (default: found on PATH)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds for one area's pytest run")
    p.add_argument("--start-timeout", type=float, default=120, help="seconds for eddy serve to become healthy")
    p.add_argument("pytest_args", nargs="*", help="after --: more pytest arguments, e.g. -k")
    return p.parse_args(argv)


def caller_account(url: str) -> str:
    """The account Eddy answers LocalStack's test credentials with: the tests' transformers and ARNs use it."""
    import boto3

    sts = boto3.client("sts", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                       aws_secret_access_key="test")
    return sts.get_caller_identity()["Account"]


def run_area(area: Area, interpreter: Path, sources: Path, workdir: Path, args: argparse.Namespace) -> dict:
    # a file this commit of LocalStack lacks: said before an `eddy serve` and a pytest are started for nothing
    lacking = [name for name in area.files if not (sources / name).is_file()]
    if lacking:
        raise HarnessError(f"{area.name}: this LocalStack commit has no {', '.join(lacking)}")
    results_file = workdir / f"results-{area.name}.jsonl"
    results_file.unlink(missing_ok=True)
    port = free_port()
    env = base_env()
    argv = [sys.executable, "-m", "eddy", "serve", "--host", "127.0.0.1", "--port", str(port), "--in-memory"]
    server = Server(f"eddy-{area.name}", argv, "/_eddy/health", workdir / f"server-{area.name}.log", env)
    child_env = dict(
        env,
        TEST_SKIP_LOCALSTACK_START="1",
        TEST_AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        PYTHONPATH=str(TOOLS_DIR),
        **{RESULTS_ENV: str(results_file)},
    )
    cmd = [str(interpreter), "-m", "pytest", "-p", "peer.plugin", "-p", "no:cacheprovider", "-p", "no:logging",
           "-W", "ignore", "--color=no", "-q", "--tb=short", "--rootdir", str(sources),
           *(["-c", str(sources / "pyproject.toml")] if (sources / "pyproject.toml").exists() else []),
           *area.pytest_args(), *args.pytest_args]
    started = time.monotonic()
    try:
        server.start(port, args.start_timeout)
        child_env["TEST_AWS_ACCOUNT_ID"] = caller_account(server.url)
        log(f"published: {area.name}: {' '.join(area.files)} against {server.url}")
        with open(workdir / f"pytest-{area.name}.log", "w", encoding="utf-8") as out:
            proc = subprocess.Popen(cmd, cwd=sources, env=child_env, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                proc.wait(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                log(f"published: {area.name} exceeded --timeout {args.timeout:.0f}s; stopped, counted as it stood")
            finally:
                _kill_group(proc, 10)
    finally:
        server.stop(10)
    results = read_results(results_file)
    if proc.returncode not in (0, 1, -9, -15) or not results:  # 0/1: ran (and failed); killed: counted as it stood
        tail = (workdir / f"pytest-{area.name}.log").read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        raise HarnessError(f"{area.name}: pytest exited {proc.returncode} with no count:\n" + "\n".join(tail))
    figures = tally(results)
    log(f"published: {area.name}: {figures['passed']} of {figures['of']} passed in {time.monotonic() - started:.0f}s")
    return {"title": area.title, "files": list(area.files), "keyword": area.keyword, "figures": figures,
            "results": results}


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        areas = chosen(args.area)
        commit = resolve_commit(args.localstack, args.commit)
        workdir = CACHE / commit[:12]
        sources = extract(args.localstack, commit, workdir / "src")
        interpreter = client_venv(CACHE / f"venv-{commit[:12]}", args.python or default_python(), sources)
    except (SetupError, ValueError) as exc:
        log(f"published: {exc}")
        return 2
    counted, not_run = {}, {}
    for area in areas:
        try:
            counted[area.name] = run_area(area, interpreter, sources, workdir, args)
        except HarnessError as exc:  # this area could not be counted: the others still are
            log(f"published: {exc}")
            not_run[area.name] = str(exc)
    report = workdir / "results.json"
    report.write_text(json.dumps({"commit": commit, "areas": counted, "not_run": not_run}, indent=1, sort_keys=True),
                      encoding="utf-8")
    log(f"\nLocalStack {commit[:12]}, tests marked aws_validated, against eddy serve:\n")
    log(table([(entry["title"], entry["figures"]) for entry in counted.values()]))
    for name, entry in counted.items():
        lines = not_passing(entry["results"])
        if lines:
            log(f"\n{name}: not passing ({len(lines)})")
            for line in lines:
                log("  " + line)
    for name, reason in not_run.items():
        log(f"\n{name}: not counted: {reason.splitlines()[0]}")
    log(f"\nevery test's outcome: {report}")
    return 2 if not_run else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    # stopped, it stops its server and pytest too (each runs in a session of its own, out of reach of the group)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main(sys.argv[1:]))
