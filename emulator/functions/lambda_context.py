"""The context object a Python handler receives, as Lambda's Python runtime makes it (awslambdaric's LambdaContext):
a registered callable gets one; a worker subprocess is sent its fields() (worker.py makes its own of them).

    context = LambdaContext(function, request_id, deadline, log_stream_name, client_context=sent)
    context.get_remaining_time_in_millis()
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function


class CognitoIdentity:
    """context.identity, as Lambda's Python runtime gives it to a function not invoked through the Mobile SDK."""

    cognito_identity_id = None
    cognito_identity_pool_id = None


class _Slots:
    __slots__: tuple[str, ...] = ()

    def __init__(self, values: dict[str, Any]) -> None:
        for name in self.__slots__:
            setattr(self, name, values.get(name))


class ClientContext(_Slots):
    __slots__ = ("custom", "env", "client")


class Client(_Slots):
    __slots__ = ("installation_id", "app_title", "app_version_name", "app_version_code", "app_package_name")


def client_context_of(sent: dict[str, Any] | None) -> ClientContext | None:
    """context.client_context as Lambda's Python runtime makes it (awslambdaric's LambdaContext: a ClientContext of
    custom, env and client, its client a Client), or None without one."""
    if sent is None:
        return None
    context = ClientContext(sent)
    if context.client is not None:
        context.client = Client(context.client)
    return context


class LambdaContext:
    """The context object a Python handler receives, as Lambda's Python runtime makes it: memory_limit_in_mb is a
    string, client_context None without a ClientContext (AWS-recorded: LocalStack's validated snapshots,
    test_lambda.snapshot.json test_invocation_with_qualifier, "memory_limit_in_mb": "128", "client_context": null)."""

    def __init__(
        self,
        function: Function,
        request_id: str,
        deadline: float,
        log_stream_name: str,
        monotonic: Callable[[], float] = time.monotonic,
        client_context: dict[str, Any] | None = None,
        invoked_arn: str | None = None,
    ) -> None:
        self.function_name = function.name
        self.function_version = function.version
        #: the ARN the invocation named (an alias's, a version's), else the function's
        self.invoked_function_arn = invoked_arn or function.arn
        self.memory_limit_in_mb = str(function.memory_size)
        #: the invocation's ClientContext as sent (a worker makes the runtime's objects of it; so does client_context)
        self._client_context = client_context
        self.aws_request_id = request_id
        self.log_group_name = function.logging_config["LogGroup"]
        self.log_stream_name = log_stream_name
        self._deadline = deadline
        self._monotonic = monotonic

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - self._monotonic()) * 1000))

    @property
    def identity(self) -> CognitoIdentity:
        return CognitoIdentity()

    @property
    def client_context(self) -> Any:
        return client_context_of(self._client_context)

    def fields(self) -> dict[str, Any]:
        fields = {name: value for name, value in vars(self).items() if not name.startswith("_")}
        return dict(fields, client_context=self._client_context)
