"""The in-process front door: `emulate()` makes every boto3 client in this process talk to Eddy.

    from emulator import emulate

    with emulate() as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        ...                                   # DynamoDB and Streams go to Eddy, S3/SQS/SNS/... to moto
        emu.clock.advance(4 * 3600)           # shards roll over

    @emulate()
    def test_something(): ...

It starts moto's mock (so every service moto mocks works) and puts Eddy's router in front of it.
"""

from __future__ import annotations

import functools
import os
import threading
from contextlib import ContextDecorator
from typing import Any

from moto import mock_aws

from emulator.moto_seam import bridge as moto_bridge
from emulator.api import router
from emulator.clock import Clock
from emulator.engine import Emulator

_active: "emulate | None" = None


class emulate(ContextDecorator):
    def __init__(self, *, state_dir: str | os.PathLike[str] | None = None, clock: Clock | None = None,
                 **settings: Any) -> None:
        """`state_dir`: durable state, kept there and recovered by the next emulate(state_dir=...) (default: temporary);
        this process owns it until the block ends (StateDirectoryInUseError if another process or block owns it)."""
        self._options = dict(state_dir=state_dir, clock=clock, **settings)
        self.emulator: Emulator | None = None
        self._mock: Any = None
        self._server: Any = None
        self._server_lock = threading.Lock()

    def __enter__(self) -> Emulator:
        global _active
        if _active is not None:
            raise RuntimeError("an emulate() block is already active in this process; nest none inside another")
        self._mock = mock_aws()
        self._mock.start()
        try:
            emulator = Emulator(**self._options)
        except BaseException:
            self._mock.stop()
            raise
        try:
            emulator.recover()  # with a state_dir: what it holds, restored into moto's fresh backends
        except BaseException:
            emulator.close(keep_state=True)
            self._mock.stop()
            raise
        moto_bridge.activate(emulator.capture, functools.partial(router.route, emulator), router.claims,
                             kinesis_observer=emulator.kinesis_observer, journal=emulator.services)
        emulator.invoker.before_worker_start = self._start_loopback_server
        emulator.start()
        self.emulator, _active = emulator, self
        return emulator

    def _start_loopback_server(self) -> None:
        """Uploaded function code runs in a subprocess: its boto3 calls reach this emulator over loopback."""
        with self._server_lock:
            if self._server is None:
                from emulator.api.server import Server

                self._server = Server(self.emulator, "127.0.0.1", 0, standalone=False).start()
                self.emulator.invoker.worker_environment["AWS_ENDPOINT_URL"] = self._server.loopback_url

    def __exit__(self, *exc_info: Any) -> None:
        global _active
        if self._server is not None:
            self._server.stop()
            self._server = None
        self.emulator.close()
        moto_bridge.deactivate()
        self._mock.stop()
        self.emulator, _active = None, None
