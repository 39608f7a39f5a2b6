"""`eddy serve` on an empty state opens its port before its engine is loaded (issue 39's cold start): ListTables is
answered at once, every other request waits for the engine and is then answered by it; a state to recover opens the
port only once it is recovered.

Deterministic, not timed: the server process is started with a sitecustomize that holds the import of
eddy.emulator.engine until the test writes to a FIFO (opening a FIFO for writing returns once the reader has opened
it, so the test also knows when the server is inside that import: on an empty state its port is open by then). A
server that opens its port only once it is ready is waited for by its banner ("Eddy is serving ... on URL")."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading

import boto3
import pytest
from botocore.config import Config

HOLD = textwrap.dedent("""
    import importlib.util, os, sys

    # the engine's module executed once the test has written to the gate: held in its loader, where only that
    # module's lock is held (a finder runs under the interpreter's import lock, which would hold every import)
    class _HeldEngine:

        def find_spec(self, name, path=None, target=None):
            if name != "eddy.emulator.engine":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            spec.loader = _HeldLoader(spec.loader)
            return spec

    class _HeldLoader:
        def __init__(self, loader):
            self.loader = loader

        def create_module(self, spec):
            return self.loader.create_module(spec)

        def exec_module(self, module):
            with open(os.environ["EDDY_TEST_ENGINE_GATE"]) as gate:
                gate.read()  # until the test has written and closed its end
            self.loader.exec_module(module)

    if os.environ.get("EDDY_TEST_ENGINE_GATE"):
        sys.meta_path.insert(0, _HeldEngine())
""")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _client(port: int, region: str = "us-east-1"):
    return boto3.client(
        "dynamodb",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name=region,
        config=Config(retries={"total_max_attempts": 1}, read_timeout=300),
    )


@pytest.fixture
def held_server(tmp_path):
    """start(state_dir) -> (port, release): `eddy serve` whose engine import waits for release()."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(HOLD)
    started: list[subprocess.Popen] = []

    def start(state_dir) -> tuple[int, object]:
        gate = tmp_path / f"gate{len(started)}"
        os.mkfifo(gate)
        port = _free_port()
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path / "site"), os.environ.get("PYTHONPATH")])),
            EDDY_TEST_ENGINE_GATE=str(gate),
        )
        process = subprocess.Popen(
            [sys.executable, "-m", "eddy", "serve", "--port", str(port), "--state-dir", str(state_dir)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        started.append(process)
        writer: dict = {}

        def inside() -> None:
            """Returns once the server is inside the engine's import (it opened the FIFO to read)."""
            writer["file"] = open(gate, "w")

        def release() -> None:
            if "file" not in writer:
                inside()
            writer["file"].write("go")
            writer["file"].close()

        def serving() -> None:
            """Returns once the server printed its banner: its port is open and its engine answers."""
            _banner_of(process)

        release.inside = inside
        release.serving = serving
        release.process = process
        return port, release

    yield start
    for process in started:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _banner_of(process: subprocess.Popen, deadline: float = 300) -> str:
    """The first line of `process`'s banner, read from its stdout (a bound on a busy machine's start, not a pause)."""
    found: list[str] = []

    def read() -> None:
        for line in process.stdout:
            if line.startswith("Eddy is serving"):
                found.append(line)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(deadline)
    assert found, f"eddy serve printed no banner (exit status {process.poll()})"
    return found[0]


def _whole(answer: dict) -> tuple:
    """An answer with what each request draws for itself (its request id, the dates) set aside."""
    metadata = answer["ResponseMetadata"]
    headers = {name: value for name, value in metadata["HTTPHeaders"].items() if name not in ("x-amzn-requestid", "date")}
    body = {name: value for name, value in answer.items() if name != "ResponseMetadata"}
    return metadata["HTTPStatusCode"], list(metadata["HTTPHeaders"]), headers, body


def test_list_tables_is_answered_before_the_engine_and_other_requests_wait_for_it(held_server, tmp_path):
    port, release = held_server(tmp_path / "state")  # a state directory that does not exist yet: empty
    release.inside()  # the server is inside the engine's import, which it starts once its port is open
    early = _client(port).list_tables()  # the engine is held: the early door answered
    created: dict = {}
    creating = threading.Thread(
        target=lambda: created.update(
            _client(port, "eu-west-1").create_table(
                TableName="orders",
                KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
        )
    )
    creating.start()  # waits for the engine
    release()
    creating.join(300)
    assert created["TableDescription"]["TableName"] == "orders"
    by_engine = _client(port).list_tables()  # after an answer of the engine's: the engine's door answers
    assert _whole(early) == _whole(by_engine)
    assert early["TableNames"] == [] and list(early["ResponseMetadata"]["HTTPHeaders"]) == [
        "content-type", "server", "date", "x-amzn-requestid", "x-amz-crc32", "content-length"
    ]  # moto's headers in moto's order, its own date among them (the server adds none)
    assert _client(port, "eu-west-1").list_tables()["TableNames"] == ["orders"]
    # one Date each (botocore joins repeated headers into one value: two would read "..., ... GMT, ... GMT")
    assert [answer["ResponseMetadata"]["HTTPHeaders"]["date"].count("GMT") for answer in (early, by_engine)] == [1, 1]


def test_a_state_to_recover_opens_the_port_once_it_is_recovered(held_server, tmp_path):
    state = tmp_path / "state"
    port, release = held_server(state)
    release()
    release.serving()
    _client(port).create_table(
        TableName="kept",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    release.process.terminate()  # stopped in order: the directory holds the table and is let go
    assert release.process.wait(timeout=120) == 0
    port, release = held_server(state)
    release.inside()  # the second server is inside the engine's import now
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=30).close()
    release()
    release.serving()
    assert _client(port).list_tables()["TableNames"] == ["kept"]
