"""Push notifications to functions, Eddy's side: what moto_seam/notifications/ asks of
the emulator.

The emulator's clock for S3's eventTime, one S3 sequencer for every key, and Eddy's functions as destinations: S3
and SNS invoke a function asynchronously (InvocationType Event), so the object's or message's request never waits
for it or fails because of it. Each subscription's and configuration's deliveries are counted in `figures`
(delivery_figures.py), for the dashboard.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.moto_seam import notifications as seam
from eddy.emulator.notifications import delivery_policies
from eddy.emulator.moto_seam.cloudwatch_logs import put_events
from eddy.emulator.notifications.delivery_figures import DeliveryFigures, Trigger
from eddy.emulator.notifications.delivery_status import Delivery, DeliveryStatusLogs, Outcome
from eddy.emulator.notifications.http_endpoints import HttpEndpoints
from eddy.emulator.notifications.s3_events import Sequencer, SequencerChannel
from eddy.emulator.storage.channels import NOT_KEPT, DurableLog

if TYPE_CHECKING:
    from eddy.emulator.functions.async_invocation.queue import AsyncInvocations
    from eddy.emulator.functions.registry import FunctionRegistry

log = logging.getLogger("eddy.notifications")


class Notifications:
    """Built with the clock's `now`, the condition notified when it moves (`activity`), the functions and their
    asynchronous invocations (started and stopped with the notifications), Eddy's boto3 clients (`aws_client`:
    an HTTP subscription's dead-letter queue), the durable log the HTTP notifications not yet delivered are written
    to, the share of each HTTP retry's delay SNS's jitter may take off (Settings.sns_retry_jitter), and where SNS's
    delivery-status log events go (`log_sink`: the functions' channel's write_logs, which logs them first)."""

    def __init__(
        self,
        now: Callable[[], float],
        activity: threading.Condition,
        functions: FunctionRegistry,
        async_invocations: AsyncInvocations,
        aws_client: Callable[..., Any],
        persistence: DurableLog = NOT_KEPT,
        jitter: float = 0.0,
        log_sink: Callable[[str, str, str, str, list[tuple[int, str]]], None] = put_events,
    ) -> None:
        self._functions = functions
        self._aws_client = aws_client
        self._sequencer = Sequencer()
        #: the sequencer's durable channel (registered with storage by the composition root)
        self.channel = SequencerChannel(self)
        #: every function's asynchronous invocations (Invoke with InvocationType Event, and these pushes)
        self.async_invocations = async_invocations
        #: each SNS subscription's and S3 notification configuration's deliveries
        self.figures = DeliveryFigures(now)
        #: SNS's delivery-status logs, put in CloudWatch Logs through `log_sink`
        self.delivery_status_logs = DeliveryStatusLogs(now, log_sink)
        #: SNS's POSTs to HTTP and HTTPS subscribers (confirmations and notifications), off the request's thread; the
        #: notifications not yet delivered kept in its durable channel (`http_endpoints.channel`), retries jittered
        self.http_endpoints = HttpEndpoints(
            now, activity, self._posted, self._to_dead_letter_queue, persistence=persistence, jitter=jitter,
            status_log=self.delivery_status,
        )

    def activate(self) -> None:
        """moto's pushes become Eddy's: from recovery on (a replayed request sends to queues and topics what it sent
        before, in S3's record), so before the log is replayed."""
        seam.activate(self)

    def start(self) -> None:
        seam.activate(self)
        self.async_invocations.start()
        self.http_endpoints.start()

    def stop(self) -> None:
        seam.deactivate()
        self.async_invocations.close()
        self.http_endpoints.close()

    def sequencer(self) -> str:
        return self._sequencer.next()

    @property
    def last_sequencer(self) -> int:
        return self._sequencer.last

    def restore_sequencer(self, last: int) -> None:
        self._sequencer.restore(last)

    def _function(self, arn: str) -> Any:
        """The function (version) an ARN names: unqualified, $LATEST, a version or an alias (SAM's AutoPublishAlias
        subscribes and notifies the alias)."""
        return self._functions.runnable(arn)

    def function_exists(self, arn: str) -> bool:
        return self._function(arn) is not None

    def invoke_function(self, arn: str, event: dict[str, Any], source: str) -> str | None:
        """Invoke asynchronously; `source` ("s3", "sns") is kept with the invocation for the dashboard. The
        invocation's request id; None: there is no such function (the event is dropped)."""
        function = self._function(arn)
        if function is None:
            log.warning("%s notification to %s dropped: the function does not exist", source.upper(), arn)
            return None
        return self.async_invocations.submit(function, event, source, invoked_arn=arn)

    def delivery_status(self, delivery: Delivery, outcome: Outcome) -> None:
        """An SNS delivery's outcome, logged to CloudWatch Logs as its topic asks (delivery_status.py)."""
        self.delivery_status_logs.write(delivery, outcome)

    def post_to_endpoint(
        self,
        url: str,
        headers: dict[str, str],
        body: bytes,
        trigger: Trigger | None,
        policies: tuple[str | None, str | None] | None = None,
        dead_letter_arn: str | None = None,
        delivery: Delivery | None = None,
    ) -> None:
        """POST to an HTTP subscriber after the request has answered; a notification's delivery counted for
        `trigger`, retried as its (subscription's, topic's) delivery `policies` say, then moved to the queue
        `dead_letter_arn` (its RedrivePolicy's) if every retry failed; its outcome logged as its topic asks
        (`delivery`)."""
        if policies is None:
            self.http_endpoints.post(url, headers, body, trigger)
            return
        self.http_endpoints.post(
            url, headers, body, trigger, delivery_policies.effective(*policies), dead_letter_arn, delivery
        )

    def _to_dead_letter_queue(self, queue_arn: str, body: bytes) -> str:
        """A notification no retry delivered, moved to its subscription's dead-letter queue as it would have been
        POSTed (the notification document, or the message itself with RawMessageDelivery)."""
        _, _, _, region, account, name = queue_arn.split(":", 5)
        sqs = self._aws_client("sqs", region, account)  # the queue's account and region, whoever subscribed
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody=body.decode("utf-8"))
        return queue_arn

    def _posted(self, trigger: Trigger, error: str | None) -> None:
        if error:
            self.failed(trigger, error)
        else:
            self.delivered(trigger)

    def delivered(self, trigger: Trigger) -> None:
        self.figures.delivered(trigger)

    def failed(self, trigger: Trigger, error: str) -> None:
        log.warning("%s delivery of %s failed: %s", trigger[0].upper(), "/".join(trigger[1:]), error)
        self.figures.failed(trigger, error)

    def filtered_out(self, trigger: Trigger) -> None:
        self.figures.filtered_out(trigger)
