"""A zip function whose module imports a package that is not there, behind a stream mapping, made with boto3 in both
doors and both runtimes: each failure is the eddy.triggers WARNING line naming Lambda's error (repeats summarized),
the retries back off on the emulator's clock, and the runtime's own error line is in the function's log group, not
printed raw on the console at every attempt."""

from __future__ import annotations

import logging
import re
import threading
from typing import Iterator

import pytest

from eddy import emulate
from tests.conftest import QUIET, InProcessDoor, ServerDoor, eddy_server, http_json
from tests.emulator.helpers import create_table
from tests.emulator.trigger_helpers import create_zip_function, put, retrying

MISSING = {"python": "import shipping_rates_missing\n\ndef handler(event, context):\n    return 'shipped'\n",
           "node": "require('shipping-rates-missing');\nexports.handler = async () => 'shipped';\n"}
#: what each runtime's worker writes for the failed init (awslambdaric's `[ERROR] type: message`; the Node.js
#: runtime's `Uncaught Exception` line)
RUNTIME_LINE = {"python": "[ERROR] Runtime.ImportModuleError: Unable to import module 'app': No module named "
                          "'shipping_rates_missing'",
                "node": "Uncaught Exception"}
ATTEMPTS = 4


def fail_four_times(door, runtime: str) -> list[float]:
    """The function's first four attempts, each retry reached by moving the emulator's clock to it; the moments the
    retries were due."""
    dynamodb, lam = door.client("dynamodb"), door.client("lambda")
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    create_zip_function(lam, "ship", runtime, MISSING[runtime], Timeout=30)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="ship", StartingPosition="TRIM_HORIZON")
    put(dynamodb, "a")
    due = []
    for attempts in range(1, ATTEMPTS + 1):
        lane = retrying(door, attempts, deadline=120)
        assert "Runtime.ImportModuleError" in lane["LastError"]
        due.append(lane["NextAttemptAt"])
        if attempts < ATTEMPTS:
            door.advance(max(0.0, lane["NextAttemptAt"] - door.now()))
    return due


def assert_backs_off(due: list[float]) -> None:
    # each retry is due at least 0.5, 1, 2, 4 s after the one before began (which was when it was due, or later)
    assert [later - earlier >= delay for earlier, later, delay in zip(due, due[1:], (1, 2, 4))] == [True] * 3


def assert_warnings_summarized(warnings: list[str]) -> None:
    """The 1st, 2nd and 4th failures are WARNING lines (the 3rd is DEBUG), naming the error and the back-off."""
    assert len(warnings) == 3, warnings
    assert re.search(r"batch 1 failed: Runtime\.ImportModuleError: .*\(retry in 0\.5 s\)$", warnings[0], re.S)
    assert re.search(r"failed 2 times in a row with: Runtime\.ImportModuleError: .*\(retry in 1 s\)$", warnings[1],
                     re.S)
    assert re.search(r"failed 4 times in a row with: Runtime\.ImportModuleError: .*\(retry in 4 s\)$", warnings[2],
                     re.S)


def assert_in_the_log_group(door, runtime: str) -> None:
    logs = door.client("logs")
    messages = [event["message"] for event in logs.filter_log_events(logGroupName="/aws/lambda/ship")["events"]]
    assert sum(RUNTIME_LINE[runtime] in message for message in messages) >= ATTEMPTS, messages


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_an_import_failure_in_process(runtime, caplog, capfd) -> None:
    with caplog.at_level(logging.WARNING, logger="eddy.triggers"), emulate(**QUIET) as emu:
        door = InProcessDoor(emu)
        due = fail_four_times(door, runtime)
        assert_in_the_log_group(door, runtime)
    assert_backs_off(due)
    assert_warnings_summarized([record.getMessage() for record in caplog.records
                                if record.name == "eddy.triggers" and record.levelno == logging.WARNING])
    printed = capfd.readouterr()
    assert RUNTIME_LINE[runtime] not in printed.out + printed.err


class Console:
    """What the server printed since a test began (iterated afresh each time: its reader thread goes on adding)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines, self.start = lines, len(lines)

    def __iter__(self) -> Iterator[str]:
        return iter(self.lines[self.start:])


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, list[str]]]:
    """One `eddy serve` for the module's tests (a start is about a second of CPU), its console read by a thread."""
    state = tmp_path_factory.mktemp("import-failures") / "state"
    with eddy_server("--housekeeping-interval", "0", "--state-dir", str(state)) as (url, process):
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(line.rstrip("\n") for line in process.stdout),
                                  daemon=True)
        reader.start()
        yield url, lines


@pytest.fixture
def serve(server) -> tuple[ServerDoor, Console]:
    """The module's server, reset as the `door` fixture resets its own (moto's reset: Eddy's state too), and its
    console from here on."""
    url, lines = server
    http_json(url + "/moto-api/reset", {})
    return ServerDoor(url), Console(lines)


def log_records(lines: list[str]) -> list[str]:
    """The server's log records: a line that starts with a time begins one, others continue it (Node.js's
    "Require stack" is a message of several lines)."""
    records: list[str] = []
    for line in lines:
        if re.match(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} ", line) or not records:
            records.append(line)
        else:
            records[-1] += "\n" + line
    return records


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_an_import_failure_on_eddy_serve(runtime, serve) -> None:
    door, console = serve
    due = fail_four_times(door, runtime)
    assert_in_the_log_group(door, runtime)
    assert_backs_off(due)
    warnings = [record.split(" eddy.triggers WARNING ", 1)[1] for record in log_records(list(console))
                if " eddy.triggers WARNING " in record and "mapping ship <- orders" in record]
    assert_warnings_summarized(warnings)
    assert not [line for line in list(console) if RUNTIME_LINE[runtime] in line]
