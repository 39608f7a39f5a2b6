"""One pytest run of moto's suites against one server, with its per-test results."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from peer.common import RESULTS_ENV, TOOLS_DIR, log
from peer.servers import Server, _kill_group


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


def run_pytest(
    run: Run,
    url: str | None,
    tree: Path,
    workdir: Path,
    suites: list[str],
    extra: list[str],
    env: dict[str, str],
    timeout: float,
    echo: bool,
    stop_timeout: float,
    plugins: tuple[str, ...] = (),
) -> None:
    """pytest on moto's `suites`: against the server at `url` (moto's server mode), or in-process (url None,
    moto's mock_aws in the test process itself) with `plugins` given to pytest (`-p no:eddy`)."""
    results_file = workdir / f"results-{run.label}.jsonl"
    results_file.unlink(missing_ok=True)
    log_path = workdir / f"pytest-{run.label}.log"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "peer.plugin",
        "-p",
        "no:cacheprovider",
        *plugins,
        "--color=no",
        "-q",
        "-rfEs",
        *suites,
        *extra,
    ]
    child_env = dict(env)
    server_mode = {"TEST_SERVER_MODE": "true", "TEST_SERVER_MODE_ENDPOINT": url} if url else {}
    child_env.update(
        **server_mode,
        MOTO_TEST_ALLOW_AWS_REQUEST="false",
        **{RESULTS_ENV: str(results_file)},
        PYTHONPATH=os.pathsep.join([str(TOOLS_DIR)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
    )
    log(f"peer: running {' '.join(suites)} " + (f"against {run.label} ({url})" if url else f"in-process ({run.label})"))
    started = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as fh:
        fh.write(f"$ cd {tree} && {' '.join(f'{k}={v}' for k, v in server_mode.items())} {shlex.join(cmd)}\n")
        proc = subprocess.Popen(
            cmd,
            cwd=tree,
            env=child_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            start_new_session=True,
        )

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
    log(
        f"peer: {run.label}: {len(run.results)} results in {run.seconds:.1f}s "
        f"(pytest exit {run.returncode}): " + ", ".join(f"{n} {k}" for k, n in sorted(c.items()))
    )


def serve_and_run(
    label: str, argv: list[str], health_path: str, args, tree: Path, workdir: Path, env: dict[str, str], port: int
) -> Run:
    run = Run(label)
    server = Server(label, argv, health_path, workdir / f"server-{label}.log", env)
    try:
        server.start(port, args.start_timeout)
        run_pytest(
            run,
            server.url,
            tree,
            workdir,
            args.suites,
            args.pytest_args,
            env,
            args.timeout,
            args.verbose,
            args.stop_timeout,
        )
        if server.proc.poll() is not None:
            run.note = f"{label} exited with status {server.proc.returncode} during the run"
    finally:
        server.stop(args.stop_timeout)
    return run
