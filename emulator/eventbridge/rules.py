"""EventBridge rules delivering events to Lambda functions, SQS queues, SNS topics and log groups, as EventBridge does.

moto keeps the buses, rules and targets and answers PutEvents (moto_seam/eventbridge/rules.py hands each rule's events here).
A rule's EventPattern is matched by the event-pattern engine (emulator/event_patterns/, EventBridge's dialect: PutRule
refused every pattern it does not take, api/eventbridge/events_api.py), for every target, moto's too: an event the
pattern does not match goes nowhere. The event a target receives is
EventBridge's (Amazon EventBridge User Guide, "Amazon EventBridge events": version, id, detail-type, source,
account, time, region, resources, detail), or the target's Input, InputPath or InputTransformer. Delivery is
asynchronous, as on AWS: PutEvents answers first; a Lambda target's event goes into the function's asynchronous
invocation queue (functions/async_invocation/queue.py: Lambda's retries, event invoke config and destinations apply), an
SQS target gets the event as a message body (SqsParameters.MessageGroupId for a FIFO queue), an SNS target as the
published message (moto's failed on one), a CloudWatch Logs target as a log event in a new stream (moto's wrote its
own shape of the event, Input and InputPath ignored), a Step Functions target as an execution's input (moto failed
PutEvents on one); a target that cannot take it sends it to the target's
dead-letter queue (eventbridge/dead_letters.py). Kinesis and Firehose streams and other event buses get what
eventbridge/stream_targets.py sends. An API Gateway target (a REST API's stage, `arn:aws:execute-api:...`) is taken
and not delivered: Eddy does not run a REST API's integrations, so the event goes to the target's dead-letter queue
(CONNECTION_FAILURE) and wait_idle's Failures, where moto failed the whole PutEvents (NotImplementedError). Other
targets (archives, API destinations) are moto's.
"""

from __future__ import annotations

import json
import logging
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

from botocore.exceptions import ClientError

from eddy.emulator.eventbridge.dead_letters import (
    CONNECTION_FAILURE,
    NO_RESOURCE,
    SDK_CLIENT_ERROR,
    TargetNotDelivered,
    Undelivered,
)
from eddy.emulator.eventbridge.deliveries import Delivery
from eddy.emulator.eventbridge.stream_targets import is_stream_target, send_to_stream
from eddy.emulator.eventbridge.target_input import target_input
from eddy.emulator.moto_seam.services import moments

if TYPE_CHECKING:
    from eddy.emulator.event_patterns import EventPattern
    from eddy.emulator.functions.async_invocation.queue import AsyncInvocations
    from eddy.emulator.functions.registry import FunctionRegistry

log = logging.getLogger("eddy.events")

EDDY_TARGETS = ("lambda", "sqs", "sns", "logs", "states", "execute-api")
#: why an API Gateway target's events are not delivered (the dead-letter message's ERROR_MESSAGE)
NO_REST_APIS = "Eddy does not run API Gateway REST APIs' integrations: the event was not sent to {arn}"


def is_eddys(arn: str) -> bool:
    """A target Eddy takes: a function, queue, topic or log group, a Step Functions state machine, a Kinesis or
    Firehose stream, an event bus, an API Gateway REST API's stage (not delivered: NO_REST_APIS)."""
    service = arn.split(":")[2:3]
    return bool(service) and service[0] in EDDY_TARGETS or is_stream_target(arn)


def aws_event(event: dict[str, Any]) -> dict[str, Any]:
    """moto's event message in EventBridge's fields and order, its time as EventBridge writes it (a replayed event's
    replay-name kept: an archive's own rule matches only events without one)."""
    return {
        "version": "0",
        "id": event["id"],
        "detail-type": event["detail-type"],
        "source": event["source"],
        "account": event["account"],
        "time": _iso_time(event.get("time")),
        "region": event["region"],
        # a replayed event names its replay, here (LocalStack's AWS-validated test_archive_and_replay snapshots)
        **({"replay-name": event["replay-name"]} if "replay-name" in event else {}),
        "resources": event.get("resources", []),
        "detail": event["detail"],
    }


def _iso_time(moment: Any) -> Any:
    """moto's instant (seconds) as EventBridge writes times: ISO 8601 to the second, in UTC."""
    if isinstance(moment, (int, float)):
        return datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return moment


class RuleDelivery:
    """A rule's matched events handed to `submit(rule_arn, target, body, event)` (eventbridge/deliveries.py) for
    each of its Lambda, SQS, SNS and CloudWatch Logs targets."""

    def __init__(self, submit: Callable[[str, dict[str, Any], Any, dict[str, Any]], None]) -> None:
        self._submit = submit
        self._patterns: dict[str, EventPattern | None] = {}  # each pattern compiled once (event_patterns/)

    def deliver(self, rule: dict[str, Any], event: dict[str, Any]) -> list[dict[str, Any]]:
        """Deliver a rule's matched event to the targets Eddy delivers (is_eddys); answer those left to moto (none
        where the event does not match)."""
        if not self._matches(rule, event):
            return []
        ours = [t for t in rule["targets"] if is_eddys(t["Arn"])]
        left = [t for t in rule["targets"] if t not in ours]
        # a PutEvents replayed at recovery: its deliveries are in the log already (written down before it answered,
        # eventbridge/deliveries.py; those done, done), so nothing is delivered twice
        if not ours or moments.replaying():
            return left
        delivered = aws_event(event)
        ingested = _iso_time(event.get("ingestion-time", event.get("time")))
        for target in ours:
            body = target_input(target, delivered, rule["arn"], ingested)
            if body is None:  # EventBridge drops it (the target's invocation fails, no retry, no dead-letter queue)
                log.warning(
                    "rule %s, target %s: the InputTemplate does not make JSON for event %s; not delivered",
                    rule["arn"],
                    target["Id"],
                    delivered["id"],
                )
                continue
            self._submit(rule["arn"], target, body, delivered)
        return left

    def _matches(self, rule: dict[str, Any], event: dict[str, Any]) -> bool:
        raw = rule["event_pattern"]
        if raw is None:  # a scheduled rule: events put on the bus are not its
            return False
        if raw not in self._patterns:
            from eddy.emulator.event_patterns import EVENTBRIDGE, EventPattern, InvalidEventPattern  # the first rule's

            try:
                self._patterns[raw] = EventPattern.compile(raw, EVENTBRIDGE)
            except InvalidEventPattern:  # not taken by PutRule: only a rule stored before Eddy checked patterns
                log.warning("rule %s: its event pattern is not valid on EventBridge; it matches nothing", rule["arn"])
                self._patterns[raw] = None
        pattern = self._patterns[raw]
        return pattern is not None and pattern.matches(aws_event(event))


class TargetDelivery:
    """A delivery sent to its Lambda, SQS, SNS or CloudWatch Logs target (the delivery thread's), built with the
    functions, their asynchronous invocations, Eddy's boto3 clients (`aws_client(service, region)`), where an event a
    target cannot take goes (`undelivered`: its dead-letter queue and wait_idle's Failures, eventbridge/service.py)
    and the clock (a log event's timestamp)."""

    def __init__(
        self,
        functions: FunctionRegistry,
        async_invocations: AsyncInvocations,
        aws_client: Callable[..., Any],
        undelivered: Callable[[Undelivered], None],
        now: Callable[[], float],
    ) -> None:
        self._now = now
        self._functions = functions
        self._async_invocations = async_invocations
        self._aws_client = aws_client
        self._undelivered = undelivered

    def send(self, delivery: Delivery) -> None:
        """Deliver to the target, or to its dead-letter queue."""
        try:
            self._deliver(delivery.rule_arn, delivery.target, delivery.body, delivery.event)
        except TargetNotDelivered as failure:
            self._undelivered(Undelivered(delivery.rule_arn, delivery.target, delivery.event, failure))

    def _deliver(self, rule_arn: str, target: dict[str, Any], body: str, event: dict[str, Any]) -> None:
        arn = target["Arn"]
        _, _, service, region, account_id, resource = arn.split(":", 5)
        if is_stream_target(arn):
            send_to_stream(lambda name: self._aws_client(name, region, account_id), target, body, event)
            return
        if service == "lambda":
            function = self._functions.runnable(arn)  # unqualified, $LATEST, a version or an alias
            if function is None:
                raise TargetNotDelivered(NO_RESOURCE, f"Function not found: {arn}")
            try:
                payload = json.loads(body)
            except ValueError as error:  # a text template's text: Lambda's Invoke refuses it, and EventBridge gives up
                raise TargetNotDelivered(SDK_CLIENT_ERROR, f"Could not parse request body into json: {error}") from None
            self._async_invocations.submit(function, payload, source=rule_arn, invoked_arn=arn)
            return
        if service == "sns":
            self._publish(arn, region, account_id, body)
            return
        if service == "execute-api":
            raise TargetNotDelivered(CONNECTION_FAILURE, NO_REST_APIS.format(arn=arn))
        if service == "states":
            self._start_execution(arn, region, account_id, body, event)
            return
        if service == "logs":
            self._log(resource, region, account_id, body)
            return
        sqs = self._aws_client("sqs", region, account_id)  # the target's account, whoever's rule
        message: dict[str, Any] = {"MessageBody": body}
        group = (target.get("SqsParameters") or {}).get("MessageGroupId")
        if group:
            message["MessageGroupId"] = group
        try:
            url = sqs.get_queue_url(QueueName=resource)["QueueUrl"]
        except ClientError as error:
            raise TargetNotDelivered(NO_RESOURCE, error.response["Error"].get("Message") or str(error)) from None
        try:
            sqs.send_message(QueueUrl=url, **message)
        except ClientError as error:
            raise TargetNotDelivered(SDK_CLIENT_ERROR, error.response["Error"].get("Message") or str(error)) from None

    def _publish(self, topic_arn: str, region: str, account_id: str, body: str) -> None:
        """An SNS target: the text published as the message (LocalStack's AWS-validated test_events_targets
        snapshots: the subscriber's Message is the minified event)."""
        try:
            self._aws_client("sns", region, account_id).publish(TopicArn=topic_arn, Message=body)
        except ClientError as error:
            code = NO_RESOURCE if error.response["Error"].get("Code") == "NotFound" else SDK_CLIENT_ERROR
            raise TargetNotDelivered(code, error.response["Error"].get("Message") or str(error)) from None

    def _start_execution(
        self, machine_arn: str, region: str, account_id: str, body: str, event: dict[str, Any]
    ) -> None:
        """A Step Functions target: an execution of the state machine with the text as its input, named after the
        event's id and a unique suffix (an execution's name is unique per machine; LocalStack's AWS-validated
        test_put_events_with_target_statefunction_machine finds EventBridge's executions by their names starting
        with the event's id)."""
        try:
            self._aws_client("stepfunctions", region, account_id).start_execution(
                stateMachineArn=machine_arn, name=f"{event['id']}_{uuid.uuid4()}", input=body
            )
        except ClientError as error:
            missing = error.response["Error"].get("Code") == "StateMachineDoesNotExist"
            code = NO_RESOURCE if missing else SDK_CLIENT_ERROR
            raise TargetNotDelivered(code, error.response["Error"].get("Message") or str(error)) from None

    def _log(self, resource: str, region: str, account_id: str, body: str) -> None:
        """A CloudWatch Logs target: the text as one log event, in a new log stream of the group (as EventBridge
        writes it: LocalStack's AWS-validated test_put_events_with_target_cloudwatch_logs, the minified event)."""
        group = resource.split(":", 1)[1].removesuffix(":*")
        logs = self._aws_client("logs", region, account_id)
        stream = str(uuid.uuid4())
        try:
            logs.create_log_stream(logGroupName=group, logStreamName=stream)
        except ClientError as error:
            raise TargetNotDelivered(NO_RESOURCE, error.response["Error"].get("Message") or str(error)) from None
        moment = int(self._now() * 1000)
        try:
            logs.put_log_events(
                logGroupName=group, logStreamName=stream, logEvents=[{"timestamp": moment, "message": body}]
            )
        except ClientError as error:
            raise TargetNotDelivered(SDK_CLIENT_ERROR, error.response["Error"].get("Message") or str(error)) from None
