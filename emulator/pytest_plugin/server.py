"""A real `eddy serve` in a subprocess on a free loopback port: the `eddy_server` fixture's server.

with EddyServer.start("--in-memory") as server:
    server.url                        # http://127.0.0.1:<port>
    server.client("dynamodb")         # a boto3 client for it (region and fake credentials included)
    subprocess.run([...], env=server.env)   # AWS_ENDPOINT_URL, region and credentials for any SDK or CLI
    server.reset()                    # every table, stream, function, mapping and moto resource gone
    server.wait_idle(); server.assert_delivered()      # as the in-process `eddy` offers them (NotDeliveredError)
    server.clock.advance(3600); server.clock.now()
    server.control("shards/split", {"StreamArn": ..., "ShardId": ...})   # any /_eddy/ control
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from typing import Any

import boto3

from eddy.emulator.processes import children
from eddy.emulator.aws_environment import DEFAULT_REGION, FAKE_CREDENTIALS
from eddy.emulator.pytest_plugin.controls import RESET_PATH, ServerClock, answer, control_path
from eddy.emulator.settings import WAIT_TIMEOUT

#: how long `eddy serve` may take to say it is serving (importing moto on a busy machine takes a few seconds)
START_TIMEOUT = 120.0
#: how much longer than a control's own wait its HTTP answer may take (a busy machine)
ANSWER_MARGIN = 60.0


class EddyServerError(RuntimeError):
    """`eddy serve` did not start: its output says why."""


class EddyServer:
    def __init__(self, process: subprocess.Popen, url: str, region: str = DEFAULT_REGION) -> None:
        self.process, self.url, self.region = process, url, region
        self.port = int(url.rsplit(":", 1)[1])
        #: what a subprocess (another SDK, the AWS CLI, a script) needs to reach this server
        self.env: dict[str, str] = {
            **os.environ,
            "AWS_ENDPOINT_URL": url,
            "AWS_DEFAULT_REGION": region,
            "AWS_REGION": region,
            **FAKE_CREDENTIALS,
        }
        self._output: list[str] = []
        #: the server's emulator's clock: now(), advance(seconds), offset (as the in-process `eddy.clock`)
        self.clock = ServerClock(self.control)

    @classmethod
    def start(cls, *serve_args: str, region: str = DEFAULT_REGION) -> "EddyServer":
        """`eddy serve --port 0 <serve_args>` (add --in-memory or --state-dir DIR); returns once it serves."""
        process = children.start(  # it dies with this process, however this one ends (a CI's SIGKILL)
            [sys.executable, "-m", "eddy", "serve", "--host", "127.0.0.1", "--port", "0", *serve_args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        lines: list[str] = []
        found: list[str] = []

        def read() -> None:  # until the line that names the URL, or the end of the output
            for line in process.stdout:  # type: ignore[union-attr]
                lines.append(line)
                if " on http://" in line:
                    found.append(line.rsplit(" on ", 1)[1].strip())
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(START_TIMEOUT)
        if not found:
            process.kill()
            process.wait()
            raise EddyServerError("eddy serve did not start:\n" + "".join(lines[-40:]))
        server = cls(process, found[0], region)
        server._drain()
        return server

    def _drain(self) -> None:
        """Keep reading the server's output (its pipe must not fill up), the last lines kept for a report."""

        def read() -> None:
            for line in self.process.stdout:  # type: ignore[union-attr]
                self._output.append(line)
                del self._output[:-200]

        threading.Thread(target=read, daemon=True, name="eddy-server-output").start()

    def output(self) -> str:
        """The server's last lines of output (its log)."""
        return "".join(self._output)

    def client(self, service: str, **kwargs: Any) -> Any:
        """A boto3 client for `service` at this server."""
        options = {
            "region_name": self.region,
            "endpoint_url": self.url,
            **{name.lower(): value for name, value in FAKE_CREDENTIALS.items()},
            **kwargs,
        }
        return boto3.client(service, **options)

    def control(self, path: str, payload: dict | None = None) -> dict[str, Any]:
        """One of Eddy's controls: "delivered", "shards/split", "/_eddy/clock", "/moto-api/reset" (GET without a
        payload, POST with one). A failure raises what the in-process call raises, with the server's message:
        NotDeliveredError (409), or the AWSError of the answer's code (controls.answer)."""
        path = control_path(path)
        if path.rstrip("/") == RESET_PATH and payload is None:
            payload = {}  # moto resets on a POST only
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method="GET" if data is None else "POST",
            headers={"Content-Type": "application/json"},
        )
        wait = payload.get("timeout", WAIT_TIMEOUT) if isinstance(payload, dict) else WAIT_TIMEOUT
        wait = wait if isinstance(wait, (int, float)) and 0 <= wait <= 600 else WAIT_TIMEOUT
        try:
            with urllib.request.urlopen(request, timeout=wait + ANSWER_MARGIN) as response:
                return answer(response.status, response.read())
        except urllib.error.HTTPError as error:  # an error's answer: its body says what failed
            try:
                body = error.read()
            finally:
                error.close()
            return answer(error.code, body)

    def wait_idle(self, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """The server's Emulator.wait_idle: {"Idle", "Delivered", "Pending", "Failures"}."""
        return self.control("idle", {"timeout": timeout})

    def assert_delivered(self, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """The server's Emulator.assert_delivered: its answer, or NotDeliveredError with the server's message and
        report."""
        return self.control("delivered", {"timeout": timeout})

    def reset(self) -> None:
        """Forget everything: tables, streams, functions, mappings and every moto service's resources."""
        self.control(RESET_PATH, {})

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> "EddyServer":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()
