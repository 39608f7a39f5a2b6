"""The servers under test: a free loopback port, a scrubbed environment, start, wait for health, stop."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from peer.common import REPO_ROOT, SCRUBBED_ENV, HarnessError, log


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k not in SCRUBBED_ENV}
    env.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_CONFIG_FILE=os.devnull,  # keep ~/.aws out of it
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        PYTHONUNBUFFERED="1",
    )
    no_proxy = [p for p in env.get("NO_PROXY", env.get("no_proxy", "")).split(",") if p]
    for host in ("127.0.0.1", "localhost"):
        if host not in no_proxy:
            no_proxy.append(host)
    env["NO_PROXY"] = env["no_proxy"] = ",".join(no_proxy)
    return env


def _kill_group(proc: subprocess.Popen, timeout: float) -> None:
    """SIGTERM the process group we created for `proc`, SIGKILL it after `timeout` seconds."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


class Server:
    def __init__(self, label: str, argv: list[str], health_path: str, log_path: Path, env: dict[str, str]):
        self.label, self.argv, self.health_path, self.log_path, self.env = label, argv, health_path, log_path, env
        self.proc: subprocess.Popen | None = None
        self._log = None

    def start(self, port: int, timeout: float) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self._log = open(self.log_path, "w", encoding="utf-8")
        log(f"peer: starting {self.label}: {shlex.join(self.argv)}")
        try:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=REPO_ROOT,
                env=self.env,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            raise HarnessError(f"could not start {self.label}: {exc}") from exc
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise HarnessError(
                    f"{self.label} exited with status {self.proc.returncode} before becoming healthy\n{self.log_tail()}"
                )
            ok, last = self._probe(port)
            if ok:
                return
            time.sleep(0.2)
        raise HarnessError(
            f"{self.label} not healthy after {timeout:.0f}s ({self.health_path}: {last})\n{self.log_tail()}"
        )

    def _probe(self, port: int) -> tuple[bool, str]:
        if self.health_path == "tcp":
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True, "connected"
            except OSError as exc:
                return False, str(exc)
        try:
            with urllib.request.urlopen(self.url + self.health_path, timeout=2) as resp:
                return resp.status == 200, f"HTTP {resp.status}"
        except urllib.error.HTTPError as exc:
            return False, f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            return False, str(getattr(exc, "reason", exc))

    def stop(self, timeout: float) -> None:
        if self.proc is not None:
            _kill_group(self.proc, timeout)
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 25) -> str:
        if self._log is not None:
            self._log.flush()
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(f"    | {line}" for line in text[-lines:])
