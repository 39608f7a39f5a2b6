"""`eddy serve`: binds loopback, answers health, stops cleanly on SIGTERM and SIGINT."""

from __future__ import annotations

import signal
import socket

import pytest

from ..conftest import eddy_server, http_json


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_cleanly_on_a_signal(signum):
    with eddy_server("--housekeeping-interval", "0", "--in-memory") as (url, process):
        assert url.startswith("http://127.0.0.1:")
        assert http_json(url + "/_eddy/health") == {"Status": "ready"}
        process.send_signal(signum)
        assert process.wait(timeout=20) == 0
        output = process.stdout.read()
        assert "Eddy is stopping" in output
        assert f"  dashboard:         {url}/_eddy/ui\n" in output


def test_a_busy_port_is_a_clear_error():
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "eddy", "serve", "--port", str(port), "--in-memory"],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
