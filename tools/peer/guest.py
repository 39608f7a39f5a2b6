"""The guest run: moto's own in-process test suites in the environment where Eddy is installed, run twice, with
Eddy's pytest plugin loaded (as every project that has Eddy installed loads it: the pytest11 entry point) and with
it switched off (`-p no:eddy`). Installing Eddy must change nothing for a project's moto tests, so every test must
have the same outcome in both runs (passed, failed, skipped, ... alike: a test moto itself fails must fail the
same way with Eddy there).

    python tools/peer_suite.py --guest [--guest-suites tests/test_sqs ...] [-- -k <selection>]
"""

from __future__ import annotations

from pathlib import Path

from peer.common import log
from peer.runs import Run, run_pytest

#: moto's suites of the services Eddy serves or patches
GUEST_SUITES = [
    "tests/test_dynamodb",
    "tests/test_dynamodbstreams",
    "tests/test_s3",
    "tests/test_sqs",
    "tests/test_sns",
    "tests/test_kinesis",
    "tests/test_events",
    "tests/test_logs",
]


def guest_runs(args, tree: Path, workdir: Path, env: dict[str, str]) -> tuple[Run, Run]:
    """moto's suites in-process without Eddy's plugin, then with it."""
    env = {name: value for name, value in env.items() if name != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    runs = []
    for label, plugins in (("without-eddy", ("-p", "no:eddy")), ("with-eddy", ())):
        run = Run(label)
        run_pytest(
            run,
            None,
            tree,
            workdir,
            args.guest_suites,
            args.pytest_args,
            env,
            args.timeout,
            args.verbose,
            args.stop_timeout,
            plugins,
        )
        runs.append(run)
    return runs[0], runs[1]


def differences(without: Run, with_eddy: Run) -> list[tuple[str, str, str]]:
    """(test, outcome without Eddy, outcome with Eddy's plugin loaded) of every test whose outcome differs."""
    names = sorted(set(without.results) | set(with_eddy.results))
    outcome = lambda run, name: run.results[name]["outcome"] if name in run.results else "not run"  # noqa: E731
    return [
        (name, outcome(without, name), outcome(with_eddy, name))
        for name in names
        if outcome(without, name) != outcome(with_eddy, name)
    ]


def report(without: Run, with_eddy: Run, differing: list[tuple[str, str, str]]) -> None:
    for run in (without, with_eddy):
        counts = ", ".join(f"{n} {k}" for k, n in sorted(run.counts().items()))
        log(f"peer: guest {run.label}: {len(run.results)} tests in {run.seconds:.0f} s: {counts}")
    if not differing:
        log("peer: guest: every test has the same outcome with Eddy's plugin loaded as without it")
    for name, before, after in differing:
        log(f"peer: guest: DIFFERS {name}: {before} without Eddy, {after} with Eddy's plugin loaded")
