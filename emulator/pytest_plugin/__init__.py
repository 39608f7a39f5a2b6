"""Eddy's pytest plugin: installed with the package (entry point `pytest11: eddy`), nothing to configure.

Fixtures (one API: both offer .client(service), .wait_idle(), .assert_delivered(), .clock.now() / .advance(s),
.control(path, payload) and .reset(), with the same answers and exceptions):
    eddy          an in-process emulator for one test (emulate()): fresh state, the emulator's clock, every boto3
                  client of the process routed to it, and the Emulator's other methods (in_process.py)
    eddy_server   a real `eddy serve` on a free loopback port for the session, also .url and .env (for
                  subprocesses and other SDKs) (server.py)

    @pytest.mark.eddy(retention_seconds=3600, split_records_per_second=5, housekeeping_interval=None)
    def test_handler(eddy):
        apply_stack("stack.yaml")                       # infra.apply_stack: a stack file, in-process
        ...
        eddy.wait_idle()

A failed test's report gets a section "what Eddy saw": each event source mapping's figures, failed batches and
last error, and the tail of each stream the test wrote to (report.py). When no region is configured, the
session gets AWS_DEFAULT_REGION=us-east-1, so that a module's `boto3.client("dynamodb")` made at import (as
Lambda code does) works; emulate() gives fake credentials to clients that have none.

Loading the plugin changes nothing else: it imports neither Eddy's engine nor moto (a fixture does, when a test
asks for it), so a project's own `mock_aws` tests run against moto as moto ships it.
"""

from __future__ import annotations

import dataclasses
import os
import urllib.parse
from typing import TYPE_CHECKING, Any, Iterator

import pytest

from eddy.emulator.aws_environment import DEFAULT_REGION, configured_region, register_when_botocore_loads
from eddy.emulator.settings import Settings

if TYPE_CHECKING:
    from eddy.emulator.pytest_plugin.server import EddyServer

#: a client a test module makes at import (botocore loaded by then or later) reaches the `eddy` fixture's emulator
register_when_botocore_loads()

#: the settings @pytest.mark.eddy(...) takes: Settings' fields, plus a state directory and a Clock
MARK_OPTIONS = frozenset({field.name for field in dataclasses.fields(Settings)} | {"state_dir", "clock"})
_REGION_SET = pytest.StashKey[bool]()
_STREAMS_BEFORE = pytest.StashKey[dict]()
REPORT_TITLE = "what Eddy saw"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "eddy(**settings): settings of this test's `eddy` emulator (retention_seconds, "
        "shard_rollover_seconds, split_records_per_second, housekeeping_interval, ...; see emulator.Settings)",
    )
    config.stash[_REGION_SET] = configured_region() is None
    if config.stash[_REGION_SET]:
        os.environ["AWS_DEFAULT_REGION"] = DEFAULT_REGION


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_REGION_SET, False):
        os.environ.pop("AWS_DEFAULT_REGION", None)


def marked_settings(node: pytest.Item) -> dict[str, Any]:
    """The settings of the test's @pytest.mark.eddy marks (the closest mark wins for a setting given twice)."""
    settings: dict[str, Any] = {}
    for mark in reversed(list(node.iter_markers("eddy"))):
        if mark.args:
            pytest.fail(
                "@pytest.mark.eddy takes settings by name, e.g. @pytest.mark.eddy(retention_seconds=3600)",
                pytrace=False,
            )
        unknown = sorted(set(mark.kwargs) - MARK_OPTIONS)
        if unknown:
            pytest.fail(
                f"@pytest.mark.eddy: no setting named {', '.join(unknown)} "
                f"(settings: {', '.join(sorted(MARK_OPTIONS))})",
                pytrace=False,
            )
        settings.update(mark.kwargs)
    return settings


@pytest.fixture
def eddy(request: pytest.FixtureRequest) -> Iterator[Any]:
    """An in-process Eddy for this test: every boto3 client of the process talks to it (emulate()). Its value is the
    Emulator with the calls `eddy_server` offers too (in_process.InProcessEddy)."""
    from eddy import emulate  # its first import reads the patterns it compiles from the per-user cache
    from eddy.emulator.pytest_plugin.in_process import InProcessEddy

    block = emulate(**marked_settings(request.node))
    with block:
        yield InProcessEddy(block)


@pytest.fixture(scope="session")
def eddy_server() -> Iterator[EddyServer]:
    """A real `eddy serve` (in memory) on a free loopback port, shared by the session's tests."""
    from eddy.emulator.pytest_plugin.server import EddyServer

    with EddyServer.start("--in-memory") as server:
        yield server


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    server = _server_of(item)
    if server is not None:  # the session's server holds earlier tests' records: which streams were written to
        from eddy.emulator.pytest_plugin.report import streams_written  # is what grew during this test

        try:
            item.stash[_STREAMS_BEFORE] = streams_written(server.control("/_eddy/dashboard"))
        except OSError:
            pass
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        text = _what_eddy_saw(item)
        if text:
            report.sections.append((REPORT_TITLE, text))


def _server_of(item: pytest.Item) -> "EddyServer | None":
    """The test's `eddy_server`, if it uses one (the server's module is imported only then)."""
    server = getattr(item, "funcargs", {}).get("eddy_server")
    if server is None:
        return None
    from eddy.emulator.pytest_plugin.server import EddyServer

    return server if isinstance(server, EddyServer) else None


def _what_eddy_saw(item: pytest.Item) -> str:
    funcargs = getattr(item, "funcargs", {})
    emulator, server = getattr(funcargs.get("eddy"), "emulator", None), _server_of(item)
    if emulator is None and server is None:
        return ""
    from eddy.emulator.dashboard.view import dashboard, stream_tail
    from eddy.emulator.pytest_plugin.report import TAIL_LINES, streams_written, what_eddy_saw

    parts = []
    if emulator is not None:
        try:
            model = dashboard(emulator)
            parts.append(
                what_eddy_saw(
                    model,
                    lambda arn: [line["Line"] for line in stream_tail(emulator, arn, TAIL_LINES)["Lines"]],
                    streams_written(model),
                )
            )
        except Exception as error:  # a report must not hide the test's own failure
            parts.append(f"(the emulator could not be read: {type(error).__name__}: {error})")
    if server is not None:
        try:
            model = server.control("/_eddy/dashboard")
            parts.append(
                what_eddy_saw(
                    model,
                    lambda arn: [
                        line["Line"]
                        for line in server.control(
                            f"/_eddy/dashboard/tail?StreamArn={urllib.parse.quote(arn, safe='')}&Limit={TAIL_LINES}"
                        )["Lines"]
                    ],
                    streams_written(model, item.stash.get(_STREAMS_BEFORE, {})),
                )
            )
        except Exception as error:
            parts.append(f"(eddy serve at {server.url} could not be read: {type(error).__name__}: {error})")
    return "\n".join(part for part in parts if part)
