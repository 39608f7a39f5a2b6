#!/usr/bin/env python3
"""Peer suite: moto's own DynamoDB / DynamoDB Streams tests, run in server mode against moto and against Eddy.

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

This module doubles as the tiny pytest plugin that records outcomes: the child pytest gets
`-p peer_suite` (with this directory on PYTHONPATH) and PEER_SUITE_RESULTS=<jsonl file>.
"""
from __future__ import annotations

import argparse
import ast
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path, PurePosixPath

# Test-only dependencies of moto's dynamodb + dynamodbstreams tests. Each one is pip-installed into the
# running interpreter's environment only if it is missing. Everything else those tests import (boto3,
# botocore, moto itself) is already a dependency of Eddy.
TEST_DEPENDENCIES = [
    "pytest",             # the runner (normally present through eddy[dev])
    "freezegun",          # tests/test_dynamodb/test_dynamodb.py: `from freezegun import freeze_time`
    "py-partiql-parser",  # moto[dynamodb] extra (PartiQL statements); pinned to what moto's metadata asks
]
# Not needed: pytest-xdist (the suites share one server and every test POSTs /moto-api/reset, so parallel
# workers wipe each other's tables; see --help), pytest-order, pyotp, pycognito (other moto suites only).

SUITES = ["tests/test_dynamodb", "tests/test_dynamodbstreams"]

REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = REPO_ROOT / ".peer"
TOOLS_DIR = Path(__file__).resolve().parent

DEFAULT_EDDY_CMD = f"{shlex.quote(sys.executable)} -m emulator.cli serve --host 127.0.0.1 --port {{port}} --in-memory"
MOTO_CMD = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", "{port}"]
MOTO_HEALTH_PATH = "/moto-api/"

PASSING = {"passed", "xpassed"}
RESULTS_ENV = "PEER_SUITE_RESULTS"

# Environment variables that would change what the tests or the servers do; dropped for both runs.
SCRUBBED_ENV = (
    "MOTO_CALL_RESET_API",           # "false" would stop mock_aws from POSTing /moto-api/reset
    "MOTO_TEST_ALLOW_AWS_REQUEST",   # "true" would send the tests to real AWS
    "TEST_SERVER_MODE",
    "TEST_SERVER_MODE_ENDPOINT",
    "TEST_PROXY_MODE",
)


class HarnessError(Exception):
    """The comparison could not be made (exit status 2)."""


def log(msg: str = "") -> None:
    print(msg, flush=True)


# --------------------------------------------------------------------------------------------------------
# pytest plugin half (loaded inside the child pytest via `-p peer_suite`)
# --------------------------------------------------------------------------------------------------------

_pending: dict[str, dict] = {}


def _crash_message(report) -> str:
    longrepr = report.longrepr
    msg = ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # skip: (path, lineno, reason)
        msg = str(longrepr[2])
    else:
        crash = getattr(longrepr, "reprcrash", None)
        if crash is not None and getattr(crash, "message", None):
            msg = crash.message
        elif longrepr is not None:
            lines = str(longrepr).strip().splitlines()
            msg = lines[-1] if lines else ""
    msg = " ".join(msg.split())
    return msg[:300] + ("..." if len(msg) > 300 else "")


def _write_result(record: dict) -> None:
    path = os.environ.get(RESULTS_ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def pytest_runtest_logreport(report) -> None:
    if not os.environ.get(RESULTS_ENV):
        return
    rec = _pending.setdefault(report.nodeid, {"outcome": None, "message": "", "duration": 0.0})
    rec["duration"] += getattr(report, "duration", 0.0) or 0.0
    if report.failed:
        if rec["outcome"] not in ("failed", "error"):
            rec["outcome"] = "failed" if report.when == "call" else "error"
            rec["message"] = f"[{report.when}] " + _crash_message(report)
    elif report.skipped:
        if rec["outcome"] is None:
            rec["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
            rec["message"] = _crash_message(report)
    elif report.when == "call" and rec["outcome"] is None:
        rec["outcome"] = "xpassed" if hasattr(report, "wasxfail") else "passed"


def pytest_runtest_logfinish(nodeid, location) -> None:
    if not os.environ.get(RESULTS_ENV):
        return
    rec = _pending.pop(nodeid, None) or {"outcome": None, "message": "", "duration": 0.0}
    _write_result({"nodeid": nodeid, **rec, "outcome": rec["outcome"] or "unknown"})


def pytest_collectreport(report) -> None:
    if os.environ.get(RESULTS_ENV) and report.failed:
        _write_result({"nodeid": report.nodeid or "<collection>", "outcome": "collection_error",
                       "message": _crash_message(report), "duration": 0.0})


# --------------------------------------------------------------------------------------------------------
# preparation: dependencies, sdist, extraction
# --------------------------------------------------------------------------------------------------------

def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed(dist: str) -> bool:
    try:
        importlib.metadata.distribution(dist)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def _moto_pin(dist: str) -> str:
    """The requirement moto's own metadata states for `dist` (e.g. 'py-partiql-parser==0.6.3'), else `dist`."""
    for req in importlib.metadata.requires("moto") or []:
        spec = req.split(";", 1)[0].strip()
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if m and _norm(m.group(1)) == _norm(dist):
            return re.sub(r"\[.*?\]", "", spec).replace(" ", "")
    return dist


def ensure_test_dependencies(allow_install: bool) -> None:
    missing = [_moto_pin(d) for d in TEST_DEPENDENCIES if not _installed(d)]
    if not missing:
        return
    if not allow_install:
        raise HarnessError(f"missing test dependencies (and --no-install given): {' '.join(missing)}")
    log(f"peer: installing missing test dependencies into {sys.prefix}: {' '.join(missing)}")
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *missing],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise HarnessError(f"pip install {' '.join(missing)} failed:\n{proc.stdout}{proc.stderr}")
    importlib.invalidate_caches()


def fetch_sdist(version: str, explicit: Path | None) -> Path:
    if explicit is not None:
        if not explicit.is_file():
            raise HarnessError(f"--sdist {explicit}: no such file")
        return explicit
    CACHE_DIR.mkdir(exist_ok=True)
    candidates = sorted(CACHE_DIR.glob(f"moto-{version}.tar.gz"))
    if candidates:
        return candidates[0]
    log(f"peer: downloading the moto {version} sdist into {CACHE_DIR.relative_to(REPO_ROOT)}/ ...")
    cmd = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
           f"moto=={version}", "--dest", str(CACHE_DIR)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    candidates = sorted(CACHE_DIR.glob(f"moto-{version}.tar.gz"))
    if proc.returncode != 0 or not candidates:
        raise HarnessError(f"`{shlex.join(cmd)}` failed (rc={proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return candidates[0]


def _tests_imports(source: bytes, rel: str) -> set[str]:
    """Dotted names of `tests.*` modules (and possible submodules) imported by the file at `rel`."""
    try:
        tree = ast.parse(source, filename=rel)
    except SyntaxError:
        return set()
    path = PurePosixPath(rel)
    package = list(path.parent.parts)  # the package the module lives in (for relative imports)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name == "tests" or a.name.startswith("tests."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                base = ".".join(base_parts + (node.module.split(".") if node.module else []))
            else:
                base = node.module or ""
            if base == "tests" or base.startswith("tests."):
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    return found


def _module_files(dotted: str) -> list[str]:
    parts = dotted.split(".")
    files = ["/".join(parts[:i]) + "/__init__.py" for i in range(1, len(parts) + 1)]
    files.append("/".join(parts) + ".py")
    return files


def extract_tests(sdist: Path, dest: Path, suites: list[str]) -> int:
    """Extract pytest config, tests/*.py, the suites and the `tests.*` modules they import. Returns #files."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        members: dict[str, tarfile.TarInfo] = {}
        for m in tar.getmembers():
            top, _, rel = m.name.partition("/")
            if rel and m.isfile():
                members[rel] = m
        wanted = {rel for rel in members if rel in ("pyproject.toml", "setup.cfg")}
        wanted |= {rel for rel in members if rel.startswith("tests/") and rel.count("/") == 1}
        wanted |= {rel for rel in members if any(rel.startswith(s.rstrip("/") + "/") for s in suites)}
        missing_suites = [s for s in suites if not any(r.startswith(s.rstrip("/") + "/") for r in members)]
        if missing_suites:
            raise HarnessError(f"{sdist.name} has no {', '.join(missing_suites)}")
        queue = sorted(r for r in wanted if r.endswith(".py"))
        seen: set[str] = set()
        while queue:
            rel = queue.pop()
            if rel in seen:
                continue
            seen.add(rel)
            data = tar.extractfile(members[rel]).read()
            for dotted in _tests_imports(data, rel):
                for cand in _module_files(dotted):
                    if cand in members and cand not in wanted:
                        wanted.add(cand)
                        queue.append(cand)
        for rel in sorted(wanted):
            target = dest / rel
            if ".." in PurePosixPath(rel).parts or PurePosixPath(rel).is_absolute():
                raise HarnessError(f"refusing to extract suspicious path {rel!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(members[rel]).read())
    return len(wanted)


# --------------------------------------------------------------------------------------------------------
# servers
# --------------------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k not in SCRUBBED_ENV}
    env.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_CONFIG_FILE=os.devnull,              # keep ~/.aws out of it
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        PYTHONUNBUFFERED="1",
    )
    no_proxy = [p for p in env.get("NO_PROXY", env.get("no_proxy", "")).split(",") if p]
    for host in ("127.0.0.1", "localhost"):
        if host not in no_proxy:
            no_proxy.append(host)
    env["NO_PROXY"] = env["no_proxy"] = ",".join(no_proxy)
    return env


def _kill_group(proc: subprocess.Popen, timeout: float) -> None:
    """SIGTERM the process group we created for `proc`, SIGKILL it after `timeout` seconds."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


class Server:
    def __init__(self, label: str, argv: list[str], health_path: str, log_path: Path, env: dict[str, str]):
        self.label, self.argv, self.health_path, self.log_path, self.env = label, argv, health_path, log_path, env
        self.proc: subprocess.Popen | None = None
        self._log = None

    def start(self, port: int, timeout: float) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self._log = open(self.log_path, "w", encoding="utf-8")
        log(f"peer: starting {self.label}: {shlex.join(self.argv)}")
        try:
            self.proc = subprocess.Popen(self.argv, cwd=REPO_ROOT, env=self.env, stdout=self._log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        except OSError as exc:
            raise HarnessError(f"could not start {self.label}: {exc}") from exc
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise HarnessError(f"{self.label} exited with status {self.proc.returncode} before becoming "
                                   f"healthy\n{self.log_tail()}")
            ok, last = self._probe(port)
            if ok:
                return
            time.sleep(0.2)
        raise HarnessError(f"{self.label} not healthy after {timeout:.0f}s ({self.health_path}: {last})\n"
                           f"{self.log_tail()}")

    def _probe(self, port: int) -> tuple[bool, str]:
        if self.health_path == "tcp":
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True, "connected"
            except OSError as exc:
                return False, str(exc)
        try:
            with urllib.request.urlopen(self.url + self.health_path, timeout=2) as resp:
                return resp.status == 200, f"HTTP {resp.status}"
        except urllib.error.HTTPError as exc:
            return False, f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            return False, str(getattr(exc, "reason", exc))

    def stop(self, timeout: float) -> None:
        if self.proc is not None:
            _kill_group(self.proc, timeout)
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 25) -> str:
        if self._log is not None:
            self._log.flush()
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(f"    | {line}" for line in text[-lines:])


# --------------------------------------------------------------------------------------------------------
# running the suites
# --------------------------------------------------------------------------------------------------------

class Run:
    def __init__(self, label: str):
        self.label = label
        self.results: dict[str, dict] = {}
        self.returncode: int | None = None
        self.seconds = 0.0
        self.timed_out = False
        self.note = ""

    def counts(self) -> Counter:
        return Counter(r["outcome"] for r in self.results.values())


_PROGRESS = re.compile(r"\[\s*\d+%\]\s*$")


def run_pytest(run: Run, url: str, tree: Path, workdir: Path, suites: list[str], extra: list[str],
               env: dict[str, str], timeout: float, echo: bool, stop_timeout: float) -> None:
    results_file = workdir / f"results-{run.label}.jsonl"
    results_file.unlink(missing_ok=True)
    log_path = workdir / f"pytest-{run.label}.log"
    cmd = [sys.executable, "-m", "pytest", "-p", "peer_suite", "-p", "no:cacheprovider", "--color=no",
           "-q", "-rfEs", *suites, *extra]
    child_env = dict(env)
    child_env.update(
        TEST_SERVER_MODE="true",
        TEST_SERVER_MODE_ENDPOINT=url,
        MOTO_TEST_ALLOW_AWS_REQUEST="false",
        **{RESULTS_ENV: str(results_file)},
        PYTHONPATH=os.pathsep.join([str(TOOLS_DIR)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
    )
    log(f"peer: running {' '.join(suites)} against {run.label} ({url})")
    started = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as fh:
        fh.write(f"$ cd {tree} && TEST_SERVER_MODE=true TEST_SERVER_MODE_ENDPOINT={url} {shlex.join(cmd)}\n")
        proc = subprocess.Popen(cmd, cwd=tree, env=child_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True)

        def pump() -> None:
            for line in proc.stdout:
                fh.write(line)
                if echo or _PROGRESS.search(line):
                    sys.stdout.write("    " + line if not echo else line)
                    sys.stdout.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.timed_out = True
            log(f"peer: pytest against {run.label} exceeded --timeout {timeout:.0f}s; stopping it")
            _kill_group(proc, stop_timeout)
        finally:
            if proc.poll() is None:  # KeyboardInterrupt and friends
                _kill_group(proc, stop_timeout)
            reader.join(timeout=10)
    run.returncode = proc.returncode
    run.seconds = time.monotonic() - started
    if results_file.exists():
        for line in results_file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                run.results[rec["nodeid"]] = rec
    c = run.counts()
    log(f"peer: {run.label}: {len(run.results)} results in {run.seconds:.1f}s "
        f"(pytest exit {run.returncode}): " + ", ".join(f"{n} {k}" for k, n in sorted(c.items())))


def serve_and_run(label: str, argv: list[str], health_path: str, args, tree: Path, workdir: Path,
                  env: dict[str, str], port: int) -> Run:
    run = Run(label)
    server = Server(label, argv, health_path, workdir / f"server-{label}.log", env)
    try:
        server.start(port, args.start_timeout)
        run_pytest(run, server.url, tree, workdir, args.suites, args.pytest_args, env, args.timeout,
                   args.verbose, args.stop_timeout)
        if server.proc.poll() is not None:
            run.note = f"{label} exited with status {server.proc.returncode} during the run"
    finally:
        server.stop(args.stop_timeout)
    return run


# --------------------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------------------

#: tests where Eddy answers as AWS does and plain moto does not. They are listed in the summary, with the
#: reason, and not counted as regressions. Keep this list short and every entry explained.
AWS_DIFFERENCES = {
    "test_enable_stream_on_table": "sends StreamViewType 'OLD_IMAGES', not a view type: AWS (and Eddy) answer "
                                   "ValidationException, moto accepts it",
    "test_stream_with_range_key": "sends StreamViewType 'NEW_IMAGES', not a view type: AWS (and Eddy) answer "
                                  "ValidationException, moto accepts it",
}


def aws_difference(nodeid: str) -> str | None:
    return AWS_DIFFERENCES.get(nodeid.rsplit("::", 1)[-1].split("[", 1)[0])


COLUMNS = ["passed", "failed", "error", "skipped", "xfailed", "xpassed", "collection_error"]


def print_summary(moto_run: Run, eddy_run: Run, regressions: list[tuple[str, dict | None]]) -> None:
    log()
    log("=" * 100)
    log("peer suite summary (moto's own tests, TEST_SERVER_MODE=true)")
    cols = [c for c in COLUMNS if any(r.counts().get(c) for r in (moto_run, eddy_run))] or ["passed"]
    header = f"  {'server':<8}{'tests':>7}" + "".join(f"{c:>{max(9, len(c) + 2)}}" for c in cols) + f"{'time':>9}"
    log(header)
    for r in (moto_run, eddy_run):
        c = r.counts()
        row = f"  {r.label:<8}{len(r.results):>7}" + "".join(f"{c.get(k, 0):>{max(9, len(k) + 2)}}" for k in cols)
        row += f"{r.seconds:>8.1f}s"
        if r.timed_out:
            row += "  (TIMED OUT)"
        if r.note:
            row += f"  ({r.note})"
        log(row)

    skipped = Counter(r["message"] for r in moto_run.results.values() if r["outcome"] == "skipped")
    if skipped:
        log("\n  skipped on moto (not compared), by reason:")
        for reason, n in skipped.most_common():
            log(f"    {n:>4} x {reason}")
    base_fail = sorted(n for n, r in moto_run.results.items() if r["outcome"] not in PASSING | {"skipped", "xfailed"})
    if base_fail:
        log(f"\n  failing on plain moto too (not compared): {len(base_fail)}")
        for n in base_fail[:20]:
            log(f"    {moto_run.results[n]['outcome'].upper():<8} {n}")
        if len(base_fail) > 20:
            log(f"    ... and {len(base_fail) - 20} more")
    fixed = [n for n, r in eddy_run.results.items()
             if r["outcome"] in PASSING and n in moto_run.results and moto_run.results[n]["outcome"] not in PASSING]
    if fixed:
        log(f"\n  not passing on moto but passing on Eddy (informational): {len(fixed)}")

    log()
    if regressions:
        log(f"  PASSED ON MOTO BUT NOT ON EDDY: {len(regressions)}")
        for nodeid, rec in regressions:
            outcome = rec["outcome"].upper() if rec else "NOT RUN"
            msg = f"  -- {rec['message']}" if rec and rec.get("message") else ""
            log(f"    {outcome:<8} {nodeid}{msg}")
    else:
        log("  no test that passes against plain moto fails against Eddy")
    log("=" * 100)


# --------------------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------------------

def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Run moto's dynamodb + dynamodbstreams tests in server mode against plain moto and "
                    "against Eddy; fail if a test passes on moto but not on Eddy.",
        epilog="Arguments after `--` go to both pytest runs (e.g. `-- -k stream -x`). The suites run "
               "serially on purpose: every test POSTs /moto-api/reset to the shared server, so pytest-xdist "
               "workers would wipe each other's tables (measured: -n 2 is ~12x slower and fails tests).")
    p.add_argument("--eddy-cmd", default=DEFAULT_EDDY_CMD,
                   help="command that starts Eddy; {port} (and {host}) are substituted (default: %(default)s)")
    p.add_argument("--health-path", default="/_eddy/health",
                   help="GET path that must answer 200 once Eddy is up, or 'tcp' to only wait for the port to "
                        "accept connections (use /moto-api/ or tcp when --eddy-cmd is a plain moto server); "
                        "default: %(default)s")
    p.add_argument("--keep", action="store_true",
                   help="keep the work dir .peer/run-<version>/ (extracted tests, logs, results) even on success")
    p.add_argument("--sdist", type=Path, help="use this moto sdist instead of downloading it")
    p.add_argument("--no-install", action="store_true", help="fail instead of pip-installing missing test deps")
    p.add_argument("--suites", nargs="+", default=SUITES, metavar="DIR",
                   help="test directories inside moto's sdist (default: %(default)s)")
    p.add_argument("--start-timeout", type=float, default=60.0, help="seconds to wait for a server (default 60)")
    p.add_argument("--stop-timeout", type=float, default=10.0, help="seconds between SIGTERM and SIGKILL (default 10)")
    p.add_argument("--timeout", type=float, default=1200.0,
                   help="wall-clock limit for one pytest run; tests not finished count as not run (default 1200)")
    p.add_argument("-v", "--verbose", action="store_true", help="stream the full pytest output")
    own, rest = argv, []
    if "--" in argv:
        i = argv.index("--")
        own, rest = argv[:i], argv[i + 1:]
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
    workdir = CACHE_DIR / f"run-{version}"
    tree = workdir / f"moto-{version}"
    ok = False
    try:
        ensure_test_dependencies(not args.no_install)
        sdist = fetch_sdist(version, args.sdist)
        nfiles = extract_tests(sdist, tree, args.suites)
        log(f"peer: moto {version}: extracted {nfiles} files from {sdist.name} into {tree.relative_to(REPO_ROOT)}")
        env = base_env()

        moto_port = free_port()
        moto_argv = [a.replace("{port}", str(moto_port)) for a in MOTO_CMD]
        moto_run = serve_and_run("moto", moto_argv, MOTO_HEALTH_PATH, args, tree, workdir, env, moto_port)
        if moto_run.timed_out or moto_run.returncode not in (0, 1):
            raise HarnessError(f"the baseline pytest run against plain moto ended abnormally (exit "
                               f"{moto_run.returncode}{', timed out' if moto_run.timed_out else ''}); "
                               f"see {workdir / 'pytest-moto.log'}")
        coll = [n for n, r in moto_run.results.items() if r["outcome"] == "collection_error"]
        if coll:
            raise HarnessError("collection errors against plain moto (a missing test dependency or helper "
                               "module?): " + "; ".join(f"{n}: {moto_run.results[n]['message']}" for n in coll))
        if not any(r["outcome"] in PASSING for r in moto_run.results.values()):
            raise HarnessError("no test passed against plain moto; nothing to compare")

        eddy_port = free_port()
        eddy_argv = [a.replace("{port}", str(eddy_port)).replace("{host}", "127.0.0.1")
                     for a in shlex.split(args.eddy_cmd)]
        try:
            eddy_run = serve_and_run("eddy", eddy_argv, args.health_path, args, tree, workdir, env, eddy_port)
        except HarnessError as exc:  # Eddy not starting is Eddy's failure, not the harness's
            log(f"peer: {exc}")
            eddy_run = Run("eddy")
            eddy_run.note = "did not become healthy"

        differing = [(n, eddy_run.results.get(n)) for n, r in moto_run.results.items()
                     if r["outcome"] in PASSING
                     and (n not in eddy_run.results or eddy_run.results[n]["outcome"] not in PASSING)]
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
