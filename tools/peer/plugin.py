"""The pytest plugin loaded inside the child pytest (`-p peer.plugin`): each test's outcome as a JSON line."""

from __future__ import annotations

import json
import os

from peer.common import RESULTS_ENV

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
        _write_result(
            {
                "nodeid": report.nodeid or "<collection>",
                "outcome": "collection_error",
                "message": _crash_message(report),
                "duration": 0.0,
            }
        )
