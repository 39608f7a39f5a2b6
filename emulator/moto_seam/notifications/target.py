"""What the seam needs of Eddy (emulator/notifications/notifications.py is it), and the one active while an
emulator is open."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # types only: a plain DynamoDB test loads no part of SNS's delivery (test_deferred_components.py)
    from eddy.emulator.notifications.delivery_status import Delivery, Outcome


class Target(Protocol):
    """The sequencer, Eddy's functions (the time is the request's moment's; an invocation's request id, None for no
    such function), SNS's delivery-status logs, and where each trigger's deliveries are counted (`trigger`: ("sns", subscription ARN) or ("s3", bucket, configuration id))."""

    def sequencer(self) -> str: ...

    def function_exists(self, arn: str) -> bool: ...

    def invoke_function(self, arn: str, event: dict[str, Any], source: str) -> str | None: ...

    def delivery_status(self, delivery: Delivery, outcome: Outcome) -> None: ...

    def post_to_endpoint(
        self,
        url: str,
        headers: dict[str, str],
        body: bytes,
        trigger: tuple[str, ...] | None,
        policies: tuple[str | None, str | None] | None = None,
        dead_letter_arn: str | None = None,
        delivery: Delivery | None = None,
    ) -> None: ...

    def delivered(self, trigger: tuple[str, ...]) -> None: ...

    def failed(self, trigger: tuple[str, ...], error: str) -> None: ...

    def filtered_out(self, trigger: tuple[str, ...]) -> None: ...


class Active:
    """The target of the emulator open (None: moto's own behaviour)."""

    def __init__(self) -> None:
        self.target: Target | None = None


#: the one registry of this package
active = Active()
