"""What a test or a user drives on an Emulator besides AWS's own APIs (docs/reference/controls.md): Python callables
registered as Lambda functions, the waits for triggers' delivery and their figures, the boto3 clients Eddy itself uses,
shards split, merged and rolled over, and items whose TTL has passed deleted now. The server door answers the same
controls over HTTP (api/control_api.py).

    arn = emu.register_function("on-order", lambda event, context: None)
    emu.assert_delivered(timeout=5)
    children = emu.split_shard(stream_arn, shard_id)

Part of the composition root: engine.py's Emulator is a Controls, and its __init__ builds what these use.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.moto_seam.tables import ttl as moto_ttl
from eddy.emulator.settings import WAIT_TIMEOUT
from eddy.emulator.streams import ttl

if TYPE_CHECKING:
    from eddy.emulator.clock import Clock
    from eddy.emulator.functions.registry import FunctionRegistry
    from eddy.emulator.global_tables.replication import Replication
    from eddy.emulator.kernel import Kernel
    from eddy.emulator.objects.lifecycle import Lifecycle
    from eddy.emulator.streams.capture import Capture
    from eddy.emulator.streams.stream import Stream
    from eddy.emulator.streams.stream_registry import StreamRegistry
    from eddy.emulator.triggers.mapping_registry import Triggers

DEFAULT_ACCOUNT_ID = "123456789012"
DEFAULT_REGION = "us-east-1"


class Controls:
    """What the Emulator has that these use (its __init__ sets them; `triggers` is made by its first use)."""

    kernel: Kernel
    lock: threading.RLock
    activity: threading.Condition
    clock: Clock
    streams: StreamRegistry
    functions: FunctionRegistry
    capture: Capture
    _replication: Replication | None
    _lifecycle: Lifecycle | None
    triggers: Triggers

    # -- functions, triggers and Eddy's own clients --------------------------------------------------------

    def register_function(
        self,
        name: str,
        handler: Callable[[Any, Any], Any],
        *,
        timeout: int = 3,
        environment: dict[str, str] | None = None,
        memory_size: int = 128,
        region: str = DEFAULT_REGION,
        account_id: str = DEFAULT_ACCOUNT_ID,
    ) -> str:
        """Make a Python callable a Lambda function (for the Lambda API and event source mappings); returns its ARN.

        arn = emu.register_function("on-order", lambda event, context: None, timeout=3)
        """
        with self.lock:
            function = self.functions.register(
                name,
                handler,
                account_id=account_id,
                region=region,
                now=self.clock.now(),
                timeout=timeout,
                environment=environment,
                memory_size=memory_size,
            )
        return function.arn

    def function(
        self, name: str | None = None, **options: Any
    ) -> Callable[[Callable[[Any, Any], Any]], Callable[[Any, Any], Any]]:
        """Decorator form of register_function; returns the handler unchanged.

        @emu.function("on-order", timeout=5)
        def handler(event, context): ...
        """

        def register(handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
            self.register_function(name or handler.__name__.replace("_", "-"), handler, **options)
            return handler

        return register

    def wait_idle(self, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """Block until every enabled event source mapping has processed every record it can reach, and no
        asynchronous invocation is queued, running or due.

        Returns {"Idle", "Delivered", "Pending", "Failures"}: "Pending" names the mappings not caught up after
        `timeout` seconds (last error, records being retried) and every asynchronous invocation not done (one waiting
        for a retry later on the clock is named, with NextAttemptAt, but not waited for); "Failures" what failed since
        the last wait (failed batches, discarded records with their keys, asynchronous invocations given up on, last
        error). Idle is not delivered: tests use assert_delivered.
        """
        return self.triggers.wait_idle(timeout)

    def assert_delivered(self, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """Wait as wait_idle does, then raise NotDeliveredError (an AssertionError) naming the mapping, its error
        and the keys of the records that were discarded since the last wait or are still pending.

            emu.assert_delivered(timeout=5)
        """
        return self.triggers.assert_delivered(timeout)

    def mapping_figures(self, uuid: str | None = None) -> dict[str, Any]:
        """Per mapping: invocations, errors, retries, records delivered, filtered and sent to the failure destination,
        iterator age and last error."""
        return self.triggers.figures_of(uuid)

    def aws_client(self, service: str, region: str) -> Any:
        """A boto3 client Eddy itself uses (in-process through the mock; on a server, back to the server)."""
        return self.kernel.aws_client(service, region)

    @property
    def aws_endpoint_url(self) -> str | None:
        """Where the boto3 clients Eddy makes send their calls (the server door sets its own loopback URL)."""
        return self.kernel.aws_endpoint_url

    @aws_endpoint_url.setter
    def aws_endpoint_url(self, url: str | None) -> None:
        self.kernel.aws_endpoint_url = url

    # -- streams' shards and items' TTL ----------------------------------------------------------------

    def _stream(self, stream_arn: str) -> Stream:
        self.streams.maintain(self.clock.now())
        return self.streams.get(stream_arn)

    def split_shard(self, stream_arn: str, shard_id: str) -> list[str]:
        """Close an open shard and open two children that share its key range; returns their ids."""
        with self.activity:
            children = self._stream(stream_arn).split(shard_id, self.clock.now())
            self.activity.notify_all()
            return children

    def merge_shards(self, stream_arn: str, shard_id: str, adjacent_shard_id: str) -> str:
        """Close two open shards with adjacent key ranges and open one child over both; returns its id."""
        with self.activity:
            child = self._stream(stream_arn).merge(shard_id, adjacent_shard_id, self.clock.now())
            self.activity.notify_all()
            return child

    def rollover(self, stream_arn: str) -> list[str]:
        """Close every open shard of a stream, each replaced by one child; returns the children's ids."""
        with self.activity:
            children = self._stream(stream_arn).rollover(self.clock.now())
            self.activity.notify_all()
            return children

    def sweep_lifecycle(self) -> int:
        """Carry out every S3 Lifecycle expiration due on the emulator's clock; returns how many objects (or versions)
        were deleted (objects/lifecycle.py)."""
        if self._lifecycle is None:
            from eddy.emulator.objects.lifecycle import Lifecycle

            self._lifecycle = Lifecycle(self.kernel.aws_client, self.clock.now)
        return self._lifecycle.sweep()

    def sweep_ttl(self) -> int:
        """Delete every item whose TTL has passed on the emulator's clock; returns how many were deleted."""
        with self.lock:
            expired = [
                item
                for table, item in ttl.expired_items(moto_ttl.expiries(), self.clock.now())
                if self._replication is None or self._replication.expires_here(*table)
            ]
            with self.capture.operation(by_ttl=True):  # a refused commit puts the items back for the next sweep
                return sum(item.delete() for item in expired)
