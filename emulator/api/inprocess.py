"""The in-process front door: `emulate()` makes every boto3 client in this process talk to Eddy.

    from eddy import emulate

    with emulate() as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        ...                                   # DynamoDB and Streams go to Eddy, S3/SQS/SNS/... to moto
        emu.clock.advance(4 * 3600)           # shards roll over

    @emulate()
    def test_something(): ...

It starts moto's mock (so every service moto mocks works) and puts Eddy's router in front of it.

As on AWS, the process has a region and credentials inside the block: where none are configured, emulate()
sets AWS_DEFAULT_REGION (us-east-1) and fake keys, and restores the environment after (aws_environment.py).
A client made before the block, once this module was imported (a handler module's client made at import
time, as Lambda code does), reaches Eddy too: moto's hook and this module's are botocore's built-in
handlers from then on, and a client that found no credentials when it was made signs with fake ones while a
block is active (otherwise it would fail with NoCredentialsError where credentials are not configured, and
pass where they are).
"""

from __future__ import annotations

import functools
import os
import threading
from contextlib import ContextDecorator
from typing import Any

from moto import mock_aws

from eddy.emulator import moto_seam
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.api import router
from eddy.emulator import aws_environment
from eddy.emulator.aws_environment import local_aws_environment
from eddy.emulator.clock import Clock
from eddy.emulator.engine import Emulator

_active: "emulate | None" = None
aws_environment.register_when_botocore_loads()


class emulate(ContextDecorator):
    def __init__(
        self, *, state_dir: str | os.PathLike[str] | None = None, clock: Clock | None = None, **settings: Any
    ) -> None:
        """`state_dir`: durable state, kept there and recovered by the next emulate(state_dir=...) (default: temporary);
        this process owns it until the block ends (StateDirectoryInUseError if another process or block owns it)."""
        self._options = dict(state_dir=state_dir, clock=clock, **settings)
        self.emulator: Emulator | None = None
        self._mock: Any = None
        self._server: Any = None
        self._server_lock = threading.Lock()
        self._environment: Any = None

    def __enter__(self) -> Emulator:
        global _active
        if _active is not None:
            raise RuntimeError("an emulate() block is already active in this process; nest none inside another")
        self._environment = local_aws_environment()
        self._environment.__enter__()
        moto_seam.apply()  # before moto starts: its start is the seam's (speedups/mock_start.py); off in _stop_mock
        self._mock = mock_aws()
        self._mock.start()
        aws_environment.renew_default_session()  # as fresh as moto's, without reading botocore's models again
        try:
            emulator = Emulator(**self._options)
        except BaseException:
            self._stop_mock()
            raise
        try:
            emulator.recover()  # with a state_dir: what it holds, restored into moto's fresh backends
        except BaseException:
            emulator.close(keep_state=True)
            self._stop_mock()
            raise
        moto_bridge.connect(
            functools.partial(router.route, emulator),
            router.claims,
            kinesis_observer=emulator.kinesis_observer,
            journal=emulator.services,
        )
        self.emulator = emulator  # before start(): recovered mappings' pollers may start a worker at once
        emulator.before_worker_start = self._start_loopback_server
        emulator.start()
        _active = self
        aws_environment.signing_for_eddy = True
        return emulator

    def _start_loopback_server(self) -> None:
        """Uploaded function code runs in a subprocess: its boto3 calls reach this emulator over loopback."""
        with self._server_lock:
            if self._server is None:
                from eddy.emulator.api.server import Server

                self._server = Server(self.emulator, "127.0.0.1", 0, standalone=False).start()
                self.emulator.worker_environment["AWS_ENDPOINT_URL"] = self._server.loopback_url

    def reset(self) -> None:
        """Forget everything, as POST /moto-api/reset does on a server: Eddy's tables' streams, functions and
        mappings (Emulator.reset), and every moto service's resources."""
        if self.emulator is None:
            raise RuntimeError("reset() is for an active emulate() block")
        self.emulator.reset()
        self._mock.reset()

    def __exit__(self, *exc_info: Any) -> None:
        global _active
        if self._server is not None:
            # the batches in flight finish first: their functions' calls reach this emulator through that server
            self.emulator.triggers.close()
            self._server.stop()
            self._server = None
        self.emulator.close()
        moto_bridge.disconnect()
        self._stop_mock()
        self.emulator, _active = None, None
        aws_environment.signing_for_eddy = False

    def _stop_mock(self) -> None:
        self._mock.stop()
        moto_seam.remove()
        self._environment.__exit__(None, None, None)
