#!/usr/bin/env python3
"""Peer suite: moto's own DynamoDB / DynamoDB Streams tests, run in server mode against moto and against Eddy;
with --guest, moto's in-process suites with and without Eddy's pytest plugin loaded (tools/peer/guest.py).

Requirement: every test from moto's dynamodb and dynamodbstreams suites that passes against a plain moto
server (TEST_SERVER_MODE=true) must also pass against `eddy serve`.

    python tools/peer_suite.py [--eddy-cmd "..."] [--keep] [-- <extra pytest args, e.g. -k streams>]

What it does:
  1. Downloads the sdist of the installed moto version into .peer/ (git-ignored, kept as a cache), extracts
     its tests/ tree (the two suites, the top-level tests/*.py files and every `tests.*` module they import)
     into a fresh work directory under .peer/, and pip-installs the missing TEST_DEPENDENCIES below.
  2. Starts a plain moto server on a free loopback port, runs pytest on the suites with TEST_SERVER_MODE=true
     and TEST_SERVER_MODE_ENDPOINT=<its url>, records every test's outcome, stops the server.
  3. Starts Eddy (--eddy-cmd), waits for GET /_eddy/health == 200, runs the same tests against it, stops it
     (SIGTERM, SIGKILL after --stop-timeout).
  4. Prints counts for both servers and the tests that passed on moto but did not pass on Eddy.

Exit status: 0 = no regressions; 1 = at least one test passed on moto but failed / errored / was skipped /
did not run on Eddy (or Eddy never became healthy); 2 = the harness itself failed (download, moto server
did not start, the moto baseline had collection errors or an abnormal pytest exit).

The work directory (.peer/run-<moto version>/: extracted tests, server and pytest logs, per-test results)
is deleted after a successful run unless --keep is given; it is always kept when the run fails.

The tiny pytest plugin that records outcomes is tools/peer/plugin.py: the child pytest gets
`-p peer.plugin` (tools/ on PYTHONPATH) and PEER_SUITE_RESULTS=<jsonl file>.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import shlex
import shutil
import sys
from pathlib import Path

from peer.common import (
    CACHE_DIR,
    DEFAULT_EDDY_CMD,
    MOTO_CMD,
    MOTO_HEALTH_PATH,
    PASSING,
    REPO_ROOT,
    SUITES,
    HarnessError,
    log,
)
from peer.guest import GUEST_SUITES, differences, guest_runs, report as guest_report
from peer.moto_tests import ensure_test_dependencies, extract_tests, fetch_sdist
from peer.report import aws_difference, print_summary
from peer.runs import Run, serve_and_run
from peer.servers import base_env, free_port


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Run moto's dynamodb + dynamodbstreams tests in server mode against plain moto and "
        "against Eddy; fail if a test passes on moto but not on Eddy.",
        epilog="Arguments after `--` go to both pytest runs (e.g. `-- -k stream -x`). The suites run "
        "serially on purpose: every test POSTs /moto-api/reset to the shared server, so pytest-xdist "
        "workers would wipe each other's tables (measured: -n 2 is ~12x slower and fails tests).",
    )
    p.add_argument(
        "--eddy-cmd",
        default=DEFAULT_EDDY_CMD,
        help="command that starts Eddy; {port} (and {host}) are substituted (default: %(default)s)",
    )
    p.add_argument(
        "--health-path",
        default="/_eddy/health",
        help="GET path that must answer 200 once Eddy is up, or 'tcp' to only wait for the port to "
        "accept connections (use /moto-api/ or tcp when --eddy-cmd is a plain moto server); "
        "default: %(default)s",
    )
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep the work dir .peer/run-<version>/ (extracted tests, logs, results) even on success",
    )
    p.add_argument("--sdist", type=Path, help="use this moto sdist instead of downloading it")
    p.add_argument("--no-install", action="store_true", help="fail instead of pip-installing missing test deps")
    p.add_argument(
        "--suites",
        nargs="+",
        default=SUITES,
        metavar="DIR",
        help="test directories inside moto's sdist (default: %(default)s)",
    )
    p.add_argument(
        "--guest",
        action="store_true",
        help="instead: run moto's in-process suites (--guest-suites) with Eddy's pytest plugin loaded and "
        "with -p no:eddy; fail if any test's outcome differs",
    )
    p.add_argument(
        "--guest-suites",
        nargs="+",
        default=GUEST_SUITES,
        metavar="DIR",
        help="the suites of the --guest run (default: %(default)s)",
    )
    p.add_argument("--start-timeout", type=float, default=60.0, help="seconds to wait for a server (default 60)")
    p.add_argument("--stop-timeout", type=float, default=10.0, help="seconds between SIGTERM and SIGKILL (default 10)")
    p.add_argument(
        "--timeout",
        type=float,
        default=1200.0,
        help="wall-clock limit for one pytest run; tests not finished count as not run (default 1200)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="stream the full pytest output")
    own, rest = argv, []
    if "--" in argv:
        i = argv.index("--")
        own, rest = argv[:i], argv[i + 1 :]
    args = p.parse_args(own)
    args.pytest_args = rest
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        version = importlib.metadata.version("moto")
    except importlib.metadata.PackageNotFoundError:
        log(f"peer: moto is not installed in {sys.prefix}; run `make setup` first")
        return 2
    workdir = CACHE_DIR / (f"guest-{version}" if args.guest else f"run-{version}")
    tree = workdir / f"moto-{version}"
    ok = False
    try:
        ensure_test_dependencies(not args.no_install)
        sdist = fetch_sdist(version, args.sdist)
        nfiles = extract_tests(sdist, tree, args.guest_suites if args.guest else args.suites)
        log(f"peer: moto {version}: extracted {nfiles} files from {sdist.name} into {tree.relative_to(REPO_ROOT)}")
        env = base_env()
        if args.guest:
            without, with_eddy = guest_runs(args, tree, workdir, env)
            differing = differences(without, with_eddy)
            guest_report(without, with_eddy, differing)
            if without.timed_out or with_eddy.timed_out or without.returncode not in (0, 1):
                raise HarnessError(f"a guest run ended abnormally; see {workdir / 'pytest-without-eddy.log'}")
            ok = not differing
            return 0 if ok else 1

        moto_port = free_port()
        moto_argv = [a.replace("{port}", str(moto_port)) for a in MOTO_CMD]
        moto_run = serve_and_run("moto", moto_argv, MOTO_HEALTH_PATH, args, tree, workdir, env, moto_port)
        if moto_run.timed_out or moto_run.returncode not in (0, 1):
            raise HarnessError(
                f"the baseline pytest run against plain moto ended abnormally (exit "
                f"{moto_run.returncode}{', timed out' if moto_run.timed_out else ''}); "
                f"see {workdir / 'pytest-moto.log'}"
            )
        coll = [n for n, r in moto_run.results.items() if r["outcome"] == "collection_error"]
        if coll:
            raise HarnessError(
                "collection errors against plain moto (a missing test dependency or helper "
                "module?): " + "; ".join(f"{n}: {moto_run.results[n]['message']}" for n in coll)
            )
        if not any(r["outcome"] in PASSING for r in moto_run.results.values()):
            raise HarnessError("no test passed against plain moto; nothing to compare")

        eddy_port = free_port()
        eddy_argv = [
            a.replace("{port}", str(eddy_port)).replace("{host}", "127.0.0.1") for a in shlex.split(args.eddy_cmd)
        ]
        try:
            eddy_run = serve_and_run("eddy", eddy_argv, args.health_path, args, tree, workdir, env, eddy_port)
        except HarnessError as exc:  # Eddy not starting is Eddy's failure, not the harness's
            log(f"peer: {exc}")
            eddy_run = Run("eddy")
            eddy_run.note = "did not become healthy"

        differing = [
            (n, eddy_run.results.get(n))
            for n, r in moto_run.results.items()
            if r["outcome"] in PASSING and (n not in eddy_run.results or eddy_run.results[n]["outcome"] not in PASSING)
        ]
        regressions = [(n, rec) for n, rec in differing if not aws_difference(n)]
        for nodeid, _ in differing:
            if aws_difference(nodeid):
                log(f"peer: as AWS, unlike moto: {nodeid}: {aws_difference(nodeid)}")
        print_summary(moto_run, eddy_run, regressions)
        ok = not regressions
        if not ok:
            log(f"peer: logs and per-test results kept in {workdir.relative_to(REPO_ROOT)}/")
        return 0 if ok else 1
    except HarnessError as exc:
        log(f"peer: ERROR: {exc}")
        if workdir.exists():
            log(f"peer: logs kept in {workdir.relative_to(REPO_ROOT)}/")
        return 2
    except KeyboardInterrupt:
        log("peer: interrupted")
        return 130
    finally:
        if ok and not args.keep and workdir.exists():
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
