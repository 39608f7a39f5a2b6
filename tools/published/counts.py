"""The re-count's figures: each area's outcomes from the per-test results, as a table and as JSON."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

PASSING = {"passed", "xpassed"}


def read_results(path: Path) -> dict[str, dict]:
    """The JSON lines tools/peer/plugin.py wrote, by test id (the last line for an id wins)."""
    if not path.exists():
        return {}
    results = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            results[record["nodeid"]] = record
    return results


def tally(results: dict[str, dict]) -> dict[str, int]:
    """passed (xpassed counts), of (every test that ran or failed to), and each other outcome's number."""
    outcomes = Counter(record["outcome"] for record in results.values())
    passed = sum(outcomes[name] for name in PASSING)
    ran = sum(number for name, number in outcomes.items() if name not in ("skipped", "xfailed"))
    return {"passed": passed, "of": ran, **{name: n for name, n in sorted(outcomes.items()) if name not in PASSING}}


def table(rows: list[tuple[str, dict[str, int]]]) -> str:
    """A Markdown table: area, passed of ran, and the failures, errors and skips."""
    lines = ["| area | passed | failed | errors | skipped |", "|---|---|---|---|---|"]
    for title, figures in rows:
        errors = figures.get("error", 0) + figures.get("collection_error", 0) + figures.get("unknown", 0)
        lines.append(
            f"| {title} | {figures['passed']} of {figures['of']} | {figures.get('failed', 0)} | {errors} "
            f"| {figures.get('skipped', 0) + figures.get('xfailed', 0)} |"
        )
    return "\n".join(lines)


def not_passing(results: dict[str, dict]) -> list[str]:
    """One line per test that did not pass: its outcome, its id, the first line of why."""
    return [
        f"{record['outcome']:8} {nodeid}  {record.get('message', '')[:160]}"
        for nodeid, record in sorted(results.items())
        if record["outcome"] not in PASSING | {"skipped", "xfailed"}
    ]
