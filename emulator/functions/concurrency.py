"""Which invocations of a function run, and in which kind of execution environment: reserved concurrency and
provisioned concurrency as invocations meet them.

    admission = Concurrency(clock.now)
    ticket = admission.admit(function)                  # None: throttled (TooManyRequestsException)
    ...run it in a `ticket.kind` environment ("provisioned-concurrency" or "on-demand")...
    admission.release(ticket)

- A version or alias with provisioned concurrency (PutProvisionedConcurrencyConfig, kept on $LATEST by qualifier)
  has that many environments of the version once its configuration is READY (PROVISIONING_SECONDS after it was put,
  on the emulator's clock), none if it FAILED (its environment's Init failed when it was put: invocation.py's
  Invoker.provision). An invocation of the version (by its number or an alias) runs in one of them while one
  is free, and in an on-demand environment
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


#: why a configuration FAILED: its environment's Init failed (AWS-recorded: LocalStack's test_lambda.snapshot.json,
#: TestLambdaConcurrency::test_provisioned_concurrency_init_failure, "get_provisioned_postwait")
INIT_FAILURE = "FUNCTION_ERROR_INIT_FAILURE"


def allocated(config: dict[str, Any], now: float) -> int:
    """The environments a configuration ({"requested", "since"}, and "failed" once its Init failed) has allocated at
    `now`: all once READY, else none (a FAILED one none: its version's invocations run on demand)."""
    return config["requested"] if status(config, now)[0] == "READY" else 0


def status(config: dict[str, Any], now: float) -> tuple[str, str | None]:
    """A configuration's Status and StatusReason at `now`: IN_PROGRESS until PROVISIONING_SECONDS after it was put,
    then READY, or FAILED with the reason its environment's Init gave."""
    if now < config["since"] + PROVISIONING_SECONDS:
        return "IN_PROGRESS", None
    if config.get("failed"):
        return "FAILED", config["failed"]
    return "READY", None


@dataclass(frozen=True)
class Ticket:
    """An admitted invocation: its function's ARN, its kind of environment, and the version whose provisioned
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

    def admit(self, function: Any) -> Ticket | None:
        """Admit one invocation of `function` (a version: $LATEST or a published one; an alias's invocation runs the
        version its weights picked), or None when its reserved concurrency has no room left for it."""
        root, now = function.root, self._now()
        slot = None if function.version == LATEST else function.version
        ready = sum(allocated(config, now) for config in _serving(root, slot)) if slot else 0
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



def _serving(root: Any, version: str) -> list[dict[str, Any]]:
    """The provisioned concurrency configurations whose environments run `version`: its own, and those of the aliases
    that point to it (AWS-recorded: test_provisioned_concurrency_on_alias, the alias's environments serving the
    version invoked by its number too)."""
    return [
        config
        for qualifier, config in root.provisioned_concurrency.items()
        if qualifier == version or (qualifier in root.aliases and root.aliases[qualifier].function_version == version)
    ]
