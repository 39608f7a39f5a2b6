"""The `eddy` fixture's value: the in-process Emulator, with the calls `eddy_server` offers as well.

    def test_it(eddy):
        dynamodb = eddy.client("dynamodb")            # boto3.client in the session's region
        eddy.clock.advance(3600)                      # now(), advance(seconds), offset
        eddy.wait_idle(); eddy.assert_delivered()     # NotDeliveredError when a record was not delivered
        eddy.control("shards/split", {...})           # a control as over HTTP: the same answer, the same errors
        eddy.reset()                                  # everything gone: Eddy's state and every moto resource
        eddy.register_function("audit", audit)        # and everything else the Emulator offers

The same test body runs against `eddy_server` (server.py), whose calls have the same names and answers.
"""

from __future__ import annotations

import json
from typing import Any

import boto3

from eddy.emulator.api import router
from eddy.emulator.api.inprocess import emulate
from eddy.emulator.engine import Emulator
from eddy.emulator.aws_requests import Request
from eddy.emulator.pytest_plugin.controls import RESET_PATH, answer, control_path

#: what /moto-api/reset answers on a server (moto's answer), given by the in-process reset too
RESET_ANSWER = {"status": "ok"}


class InProcessEddy:
    """An emulate() block's Emulator, plus client(), control() and a reset() that empties moto's services too."""

    def __init__(self, block: emulate) -> None:
        if block.emulator is None:
            raise RuntimeError("InProcessEddy takes an active emulate() block")
        self._block = block
        #: the Emulator itself (every attribute not named here is the Emulator's)
        self.emulator: Emulator = block.emulator

    def __getattr__(self, name: str) -> Any:
        return getattr(self.emulator, name)

    def __repr__(self) -> str:
        return f"<eddy in-process {self.emulator!r}>"

    def client(self, service: str, **kwargs: Any) -> Any:
        """A boto3 client for `service` (the process's region unless region_name is given): it reaches this Eddy."""
        return boto3.client(service, **kwargs)

    def control(self, path: str, payload: dict | None = None) -> dict[str, Any]:
        """One of Eddy's controls, as `eddy_server.control` calls it over HTTP (GET without a payload, POST with
        one): the same answer, and the same exceptions with the same messages (controls.answer)."""
        path = control_path(path)
        if path.split("?", 1)[0].rstrip("/") == RESET_PATH:
            self.reset()
            return dict(RESET_ANSWER)
        method = "GET" if payload is None else "POST"
        body = b"" if payload is None else json.dumps(payload).encode()
        response = router.route(
            self.emulator, Request(method, "http://127.0.0.1" + path, {"Content-Type": "application/json"}, body)
        )
        if response is None:  # the router hands only moto's requests on, and no control is moto's but its reset
            return answer(
                404,
                json.dumps({"__type": "ResourceNotFoundException", "message": f"No Eddy control at {path}"}).encode(),
            )
        return answer(response.status, response.body)

    def reset(self) -> None:
        """Forget everything, as `eddy_server.reset()` does: tables, streams, functions, mappings and every moto
        service's resources."""
        self._block.reset()
