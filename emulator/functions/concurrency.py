"""Which invocations of a function run, and in which kind of execution environment: reserved concurrency and
provisioned concurrency as invocations meet them.

    admission = Concurrency(clock.now)
    ticket = admission.admit(function, invoked_arn)     # None: throttled (TooManyRequestsException)
    ...run it in a `ticket.kind` environment ("provisioned-concurrency" or "on-demand")...
    admission.release(ticket)

- A version or alias with provisioned concurrency (PutProvisionedConcurrencyConfig, kept on $LATEST by qualifier)
  has that many environments once its configuration is READY (PROVISIONING_SECONDS after it was put, on the
  emulator's clock). An invocation of it runs in one of them while one is free, and in an on-demand environment
  when all are busy (AWS-recorded: LocalStack's test_lambda.py TestLambdaConcurrency::test_provisioned_concurrency,
  _on_alias and test_lambda_provisioned_concurrency_scheduling: the function sees AWS_LAMBDA_INITIALIZATION_TYPE
  provisioned-concurrency, then on-demand while the provisioned one is busy).
- Reserved concurrency (PutFunctionConcurrency) caps all of a function's environments together, the provisioned
  ones included: on-demand invocations get what the provisioned ones leave of it, so a reservation all provisioned
  throttles every on-demand invocation ($LATEST's too: AWS-recorded test_lambda_concurrency_block).
Pure bookkeeping under its own lock: nothing here runs code.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

from eddy.emulator.functions.versions import LATEST

#: how long after a provisioned concurrency configuration is put, on the emulator's clock, it is READY
PROVISIONING_SECONDS = 10.0
PROVISIONED, ON_DEMAND = "provisioned-concurrency", "on-demand"


def allocated(config: dict[str, Any], now: float) -> int:
    """The environments a configuration ({"requested", "since"}) has allocated at `now`: all once READY, else none."""
    return config["requested"] if now >= config["since"] + PROVISIONING_SECONDS else 0


@dataclass(frozen=True)
class Ticket:
    """An admitted invocation: its function's ARN, its kind of environment, and the qualifier whose provisioned
    environment it holds (None on demand)."""

    arn: str
    kind: str
    slot: str | None = None


class Concurrency:
    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._lock = threading.Lock()
        #: each function's invocations running now, by its ARN, on demand and in provisioned environments
        self._on_demand: dict[str, int] = {}
        self._provisioned: dict[tuple[str, str], int] = {}

    def admit(self, function: Any, invoked_arn: str | None) -> Ticket | None:
        """Admit one invocation of `function` (a version: $LATEST or a published one) named by `invoked_arn`, or None
        when its reserved concurrency has no room left for it."""
        root, now = function.root, self._now()
        slot = _qualifier(function, invoked_arn)
        ready = allocated(root.provisioned_concurrency[slot], now) if slot in root.provisioned_concurrency else 0
        with self._lock:
            if ready and self._provisioned.get((function.arn, slot), 0) < ready:
                self._provisioned[(function.arn, slot)] = self._provisioned.get((function.arn, slot), 0) + 1
                return Ticket(function.arn, PROVISIONED, slot)
            reserved = root.reserved_concurrency
            if reserved is not None:
                provisioned = sum(allocated(config, now) for config in root.provisioned_concurrency.values())
                if self._on_demand.get(function.arn, 0) >= reserved - provisioned:
                    return None
            self._on_demand[function.arn] = self._on_demand.get(function.arn, 0) + 1
            return Ticket(function.arn, ON_DEMAND)

    def release(self, ticket: Ticket) -> None:
        with self._lock:
            if ticket.slot is not None:
                self._provisioned[(ticket.arn, ticket.slot)] -= 1
            else:
                self._on_demand[ticket.arn] -= 1


def _qualifier(function: Any, invoked_arn: str | None) -> str | None:
    """The qualifier whose provisioned concurrency serves an invocation: the alias or version its ARN named, else the
    version it runs (None for $LATEST, which has none)."""
    named = (invoked_arn or "").partition(":function:")[2].partition(":")[2]
    if named and named != LATEST:
        return named
    return None if function.version == LATEST else function.version
