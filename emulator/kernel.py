"""The kernel: what every component of the Emulator shares, and nothing else.

A component is built (by the composition root, engine.py) with the kernel and the other collaborators it uses,
passed in its constructor; it never reaches back through the Emulator for them. What the kernel holds:

- `settings`: the emulator's tunables (settings.py);
- `clock`: the emulator's time (clock.py), virtual in tests;
- `lock` and `activity`: the one lock every change of state is made under, and the condition (on that lock)
  notified whenever records are published, shards change, the clock moves or a trigger makes progress: pollers
  and wait_idle wait on it instead of sleeping;
- `aws_client(service, region, account_id=None)`: the boto3 clients Eddy itself uses (on-failure destinations, dead-letter queues,
  Pipes' targets): in-process through the mock, on a server back to the server (`aws_endpoint_url`).

    >>> kernel = Kernel(Settings(), Clock())
    >>> with kernel.activity:
    ...     kernel.activity.notify_all()
"""

from __future__ import annotations

import threading
from typing import Any

from eddy.emulator.clock import Clock
from eddy.emulator.aws_environment import fresh_session
from eddy.emulator.settings import Settings


class Kernel:
    def __init__(self, settings: Settings, clock: Clock) -> None:
        self.settings = settings
        self.clock = clock
        self.lock = threading.RLock()
        self.activity = threading.Condition(self.lock)
        #: where the boto3 clients Eddy makes send their calls; None: in-process, through the mock
        self.aws_endpoint_url: str | None = None
        self._aws_clients: dict[tuple[str, str, str | None, bool], Any] = {}

    def aws_client(self, service: str, region: str, account_id: str | None = None, *, as_aws: bool = False) -> Any:
        """A boto3 client Eddy itself uses (in-process through the mock; on a server, back to the server), speaking for
        `account_id` where given (moto's x-moto-account-id header: a queue or topic of that account), else for moto's
        default account. `as_aws`: a call AWS makes inside, which its public API's checks do not bind (botocore's
        parameter validation off: Lambda's role session named after a one-character function)."""
        key = (service, region, account_id, as_aws)
        with self.lock:
            client = self._aws_clients.get(key)
            if client is None:
                client = self._aws_clients[key] = fresh_session().client(
                    service,
                    region_name=region,
                    endpoint_url=self.aws_endpoint_url,
                    aws_access_key_id="eddy",
                    aws_secret_access_key="eddy",
                    config=_unvalidated() if as_aws else None,
                )
                if account_id is not None:
                    client.meta.events.register("before-sign", _speaking_for(account_id))
            return client


def _unvalidated() -> Any:
    from botocore.config import Config

    return Config(parameter_validation=False)


def _speaking_for(account_id: str) -> Any:
    def add_header(request: Any, **_: Any) -> None:
        request.headers["x-moto-account-id"] = account_id

    return add_header
