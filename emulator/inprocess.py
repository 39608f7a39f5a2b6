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
from contextlib import ContextDecorator
from typing import Any

from moto import mock_aws

from . import moto_bridge, router
from .clock import Clock
from .engine import Emulator

_active: "emulate | None" = None


class emulate(ContextDecorator):
    def __init__(self, *, state_dir: str | os.PathLike[str] | None = None, clock: Clock | None = None,
                 **settings: Any) -> None:
        self._options = dict(state_dir=state_dir, clock=clock, **settings)
        self.emulator: Emulator | None = None
        self._mock: Any = None

    def __enter__(self) -> Emulator:
        global _active
        if _active is not None:
            raise RuntimeError("an emulate() block is already active in this process; nest none inside another")
        emulator = Emulator(**self._options)
        self._mock = mock_aws()
        self._mock.start()
        moto_bridge.activate(emulator.capture, functools.partial(router.route, emulator), router.claims)
        emulator.start_housekeeping()
        self.emulator, _active = emulator, self
        return emulator

    def __exit__(self, *exc_info: Any) -> None:
        global _active
        moto_bridge.deactivate()
        self._mock.stop()
        self.emulator.close()
        self.emulator, _active = None, None
