"""`eddy serve`: binds loopback, answers health, stops cleanly on SIGTERM (status 0) and Ctrl-C (130), which at any
moment, starting included, is one line and no traceback."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.conftest import eddy_server, http_json


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_cleanly_on_a_signal(signum):
    with eddy_server("--housekeeping-interval", "0", "--in-memory") as (url, process):
        assert url.startswith("http://127.0.0.1:")
        assert http_json(url + "/_eddy/health") == {"Status": "ready"}
        process.send_signal(signum)
        assert process.wait(timeout=20) == (130 if signum == signal.SIGINT else 0)
        output = process.stdout.read()
        assert "Eddy is stopping" in output
        assert f"  dashboard:         {url}/_eddy/ui\n" in output


def test_a_busy_port_is_said_before_a_new_state_directory_is_made(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "eddy", "serve", "--port", str(port), "--state-dir",
                                 str(tmp_path / "new")], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (1, "")
    [line] = result.stderr.splitlines()  # the port's error alone: nothing recovered, nothing made
    assert line.startswith(f"eddy serve: cannot listen on 127.0.0.1:{port}")
    assert not (tmp_path / "new").exists()


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


#: `eddy` as its console script runs it (eddy/__main__.py imports nothing), saying first that it is up: from a
#: few bytecodes later, Ctrl-C lands somewhere in Eddy's own start-up, from its first import on
LAUNCH = "import sys; from eddy.__main__ import run; sys.argv[0] = 'eddy'; print('up', flush=True); sys.exit(run())"
#: when Ctrl-C comes, as a fraction of the time this machine took to start serving (measured first): a sweep over
#: the start-up's parts (imports, the emulator, the server, the banner), whatever the machine's speed
MOMENTS = (0.05, 0.2, 0.35, 0.5, 0.6, 0.7, 0.8, 0.9, 0.97)


def _serve() -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", LAUNCH, "serve", "--port", "0", "--in-memory",
                                "--housekeeping-interval", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert process.stdout.readline() == "up\n"
    return process


def _interrupt(process: subprocess.Popen) -> tuple[str, str]:
    try:
        process.send_signal(signal.SIGINT)
        return process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow
def test_ctrl_c_at_any_moment_is_one_line_and_status_130():
    process = _serve()
    started = time.monotonic()
    while " on http://" not in process.stdout.readline():
        assert process.poll() is None
    serving_after = time.monotonic() - started
    out, err = _interrupt(process)  # while it serves: it stops in order
    assert (process.returncode, err, out.endswith("Eddy is stopping\n")) == (130, "", True), (out, err)
    for moment in MOMENTS:
        process = _serve()
        time.sleep(moment * serving_after)  # when Ctrl-C comes (a point of the sweep), not a wait for anything
        out, err = _interrupt(process)
        assert process.returncode == 130, (moment, out, err)
        assert "Traceback" not in out + err
        if err:  # before it served: one line, whichever part of eddy was starting
            assert err in ("eddy: interrupted\n", "eddy serve: interrupted\n"), (moment, err)
        else:  # it was serving already: it stopped in order
            assert out.endswith("Eddy is stopping\n"), (moment, out)


#: `eddy` as its console script runs it, but a Ctrl-C comes in the middle of its imports where Python cannot raise it to
#: anyone: in a finalizer (as importlib's module-lock callback, which the garbage collector runs during an import, was
#: seen to), which prints "Exception ignored in ..." and goes on; before eddy/interrupts.py the server then started and
#: waited for a Ctrl-C that had already come (the sweep above, once in a loaded suite)
DROPPED_DURING_IMPORTS = """
import os, signal, sys, time
from eddy import interrupts
from eddy.__main__ import run
class Finalized:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)  # the signal's handler runs in here, and its KeyboardInterrupt is dropped here
interrupts.keep()  # as run() does first
Finalized()  # collected at once: Ctrl-C during Eddy's start, dropped
sys.argv[0] = "eddy"
sys.exit(run())
"""


def test_a_ctrl_c_python_dropped_while_starting_still_stops_the_server():
    process = subprocess.run([sys.executable, "-c", DROPPED_DURING_IMPORTS, "serve", "--port", "0", "--in-memory",
                              "--housekeeping-interval", "0"], capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert (process.returncode, process.stderr) == (130, ""), process.stderr
    assert " on http://" in process.stdout and process.stdout.endswith("Eddy is stopping\n"), process.stdout


@pytest.mark.skipif(shutil.which("aws") is None, reason="the AWS CLI is not installed")
def test_the_banners_aws_cli_hint_works_without_aws_configuration(unconfigured):
    with eddy_server("--housekeeping-interval", "0", "--in-memory") as (url, process):
        lines = []
        while not lines or not lines[-1].startswith("  dashboard:"):
            lines.append(process.stdout.readline())
        [hint] = [line for line in lines if line.startswith("  AWS CLI:")]
        command = hint.split(":", 1)[1].strip()
        answer = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120)
    assert (answer.returncode, json.loads(answer.stdout)) == (0, {"Streams": []}), answer.stderr


def test_the_banners_boto3_hint_works_without_aws_configuration(unconfigured):
    """The banner's boto3 line, run as it is printed on a machine without AWS configuration (seen failing with
    NoCredentialsError when it named no credentials, trying Eddy as a new user)."""
    with eddy_server("--housekeeping-interval", "0", "--in-memory") as (url, process):
        lines = []
        while not lines or not lines[-1].startswith("  dashboard:"):
            lines.append(process.stdout.readline())
        [hint] = [line for line in lines if line.startswith("  boto3:")]
        expression = hint.split(":", 1)[1].strip()
        answer = subprocess.run([sys.executable, "-c", f"import boto3, json; print(json.dumps({expression}"
                                 ".list_tables()['TableNames']))"], capture_output=True, text=True, timeout=120)
    assert (answer.returncode, json.loads(answer.stdout or "null")) == (0, []), answer.stderr


def test_every_setting_has_a_serve_flag():
    # `eddy serve` takes every field of Settings: each flag, given a value other than the default, reaches the
    # settings the server's emulator is made with (and none is left at its default unnamed)
    from dataclasses import fields

    from eddy import Settings
    from eddy.emulator.cli.commands import _arguments
    from eddy.emulator.cli.serve_flags import serve_settings

    args = _arguments(["serve", "--retention-hours", "2", "--rollover-hours", "3", "--split-records-per-second", "0",
                       "--housekeeping-interval", "0", "--iterator-ttl-seconds", "60",
                       "--get-records-per-second-per-shard", "5", "--segment-max-bytes", "4096",
                       "--columnar-copy-min-bytes", "0", "--replication-delay-seconds", "2",
                       "--replica-transition-seconds", "1", "--function-update-seconds", "60",
                       "--sns-retry-jitter", "0.25", "--no-function-logs"])
    assert serve_settings(args) == {
        "retention_seconds": 7200, "shard_rollover_seconds": 10800, "split_records_per_second": None,
        "housekeeping_interval": None, "iterator_ttl_seconds": 60, "get_records_per_second_per_shard": 5,
        "segment_max_bytes": 4096, "columnar_copy_min_bytes": None, "replication_delay_seconds": 2,
        "replica_transition_seconds": 1, "function_update_seconds": 60, "sns_retry_jitter": 0.25,
        "function_logs": False}
    assert set(serve_settings(args)) == {field.name for field in fields(Settings)}
    defaults = serve_settings(_arguments(["serve"]))  # nothing named: Settings' own defaults
    assert {name: getattr(Settings(), name) for name in defaults} == defaults


@pytest.mark.parametrize("flag, value", [("--iterator-ttl-seconds", "-5"), ("--segment-max-bytes", "-1"),
                                         ("--replication-delay-seconds", "-2"), ("--columnar-copy-min-bytes", "-1"),
                                         ("--get-records-per-second-per-shard", "-3"),
                                         ("--replica-transition-seconds", "-0.5"),
                                         ("--function-update-seconds", "-1")])
def test_a_negative_setting_is_refused_before_anything_starts(flag, value):
    """A setting's flag takes 0 or more (before, -5 was taken: every shard iterator expired as it was issued)."""
    result = subprocess.run([sys.executable, "-m", "eddy", "serve", "--in-memory", flag, value],
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout, result.stderr.splitlines()[-1]) == (
        2, "", f"eddy serve: error: argument {flag}: {value} is less than 0")


@pytest.mark.parametrize("command", ["serve", "doctor"])
@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_outside_0_to_65535_is_refused_in_one_line(command, port):
    """Before, eddy serve --port 99999 reached the bind and ended in OverflowError's traceback."""
    result = subprocess.run([sys.executable, "-m", "eddy", command, "--port", port],
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout, result.stderr.splitlines()[-1]) == (
        2, "", f"eddy {command}: error: argument --port: {port} is not a port: 0 to 65535")


def test_a_jitter_share_outside_0_to_1_is_refused_before_anything_starts():
    result = subprocess.run([sys.executable, "-m", "eddy", "serve", "--in-memory", "--sns-retry-jitter", "1.5"],
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (
        "eddy serve: error: argument --sns-retry-jitter: 1.5 is not a share between 0 and 1")
