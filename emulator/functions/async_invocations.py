"""Asynchronous invocation, as Lambda does it (InvocationType Event, and S3 and SNS pushes).

Lambda Developer Guide, "Asynchronous invocation" and "Error handling and automatic retries": the event waits in
the function's queue; a function error is retried twice by default, the first retry 1 minute after the first
attempt and the second 2 minutes after the second (on the emulator's clock here, from each attempt's start); PutFunctionEventInvokeConfig's
MaximumRetryAttempts (0..2) and MaximumEventAgeInSeconds (60..21600, 6 hours by default) bound that. When an event
is done its invocation record goes to the OnSuccess or OnFailure destination (SQS, SNS, Lambda, EventBridge):

    {"version": "1.0", "timestamp", "requestContext": {"requestId", "functionArn" (":$LATEST"), "condition"
     ("Success", "RetriesExhausted", "EventAgeExceeded"), "approximateInvokeCount"}, "requestPayload",
     "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError" (on failure)},
     "responsePayload"}

and a failed event also goes to the function's DeadLetterConfig target (SQS or SNS) as its own payload, with the
message attributes RequestID, ErrorCode and ErrorMessage (AWS-recorded: localstack's
test_sqs_queue_as_lambda_dead_letter_queue snapshot).
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from emulator.functions.registry import Function

log = logging.getLogger("eddy.functions")

RETRY_DELAYS = (60.0, 120.0)
DEFAULT_RETRIES = 2
DEFAULT_MAXIMUM_AGE = 21600


def _timestamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class AsyncInvocations:
    """The functions' event queues: each event is tried, retried on the clock, and reported where configured."""

    def __init__(self, invoke: Callable[..., Any], activity: threading.Condition, now: Callable[[], float],
                 client: Callable[[str, str], Any]) -> None:
        self._invoke, self._activity, self._now, self._client = invoke, activity, now, client
        self._stopping = threading.Event()
        #: events not yet done (being tried, or waiting for a retry)
        self.pending = 0

    def submit(self, function: "Function", event: Any, source: str) -> str:
        """Queue an event for `function` (InvocationType Event); returns its request id at once."""
        request_id = str(uuid.uuid4())
        with self._activity:
            self.pending += 1
        threading.Thread(target=self._run, args=(function, event, source, request_id, self._now()),
                         name=f"eddy-async-{function.name}", daemon=True).start()
        return request_id

    def _run(self, function: "Function", event: Any, source: str, request_id: str, queued_at: float) -> None:
        try:
            self._attempts(function, event, source, request_id, queued_at)
        except Exception:  # an event must never vanish silently
            log.exception("asynchronous invocation of %s failed", function.name)
        finally:
            with self._activity:
                self.pending -= 1
                self._activity.notify_all()

    def _attempts(self, function: "Function", event: Any, source: str, request_id: str, queued_at: float) -> None:
        config = function.event_invoke_config or {}
        retries = config.get("MaximumRetryAttempts", DEFAULT_RETRIES)
        maximum_age = config.get("MaximumEventAgeInSeconds", DEFAULT_MAXIMUM_AGE)
        attempts = 0
        while True:
            started = self._now()
            result = self._invoke(function, event, source=source)
            attempts += 1
            if result.ok:
                return self._done(function, event, request_id, "Success", attempts, result)
            if attempts > retries:
                return self._done(function, event, request_id, "RetriesExhausted", attempts, result)
            # counted from the attempt's start: the function's own duration aside, Lambda's delay; and a clock
            # advanced while the function ran counts (a test that saw the attempt begin may move time on)
            due = started + RETRY_DELAYS[min(attempts - 1, len(RETRY_DELAYS) - 1)]
            expired = due - queued_at > maximum_age  # Lambda discards it when it reaches the maximum age
            if not self._wait_until(queued_at + maximum_age if expired else due):
                return None
            if expired:
                return self._done(function, event, request_id, "EventAgeExceeded", attempts, result)

    def _wait_until(self, moment: float) -> bool:
        """Wait for the emulator's clock to reach `moment`; False if the emulator closes first."""
        with self._activity:
            while self._now() < moment and not self._stopping.is_set():
                self._activity.wait(min(1.0, moment - self._now()))
        return not self._stopping.is_set()

    def _done(self, function: "Function", event: Any, request_id: str, condition: str, attempts: int,
              result: Any) -> None:
        destinations = ((function.event_invoke_config or {}).get("DestinationConfig") or {})
        target = (destinations.get("OnSuccess" if result.ok else "OnFailure") or {}).get("Destination")
        if target:
            response_context: dict[str, Any] = {"statusCode": 200, "executedVersion": "$LATEST"}
            if not result.ok:
                response_context["functionError"] = "Unhandled"
            record = {"version": "1.0", "timestamp": _timestamp(self._now()),
                      "requestContext": {"requestId": request_id, "functionArn": f"{function.arn}:$LATEST",
                                         "condition": condition, "approximateInvokeCount": attempts},
                      "requestPayload": event, "responseContext": response_context,
                      "responsePayload": result.payload if result.ok else result.error_payload()}
            self._send(target, json.dumps(record), None, function, "Success" if result.ok else "Failure")
        if not result.ok and function.dead_letter_target:
            attributes = {"RequestID": {"DataType": "String", "StringValue": request_id},
                          "ErrorCode": {"DataType": "Number", "StringValue": "200"},
                          "ErrorMessage": {"DataType": "String", "StringValue": result.error.message}}
            self._send(function.dead_letter_target, json.dumps(event), attributes, function, "Failure")

    def _send(self, arn: str, body: str, attributes: dict[str, Any] | None, function: "Function", outcome: str) -> None:
        """To an SQS queue, SNS topic, Lambda function or EventBridge bus, through boto3 as a client would."""
        try:
            _, _, service, region, account_id, resource = arn.split(":", 5)
            if service == "sqs":
                sqs = self._client("sqs", region)
                url = sqs.get_queue_url(QueueName=resource, QueueOwnerAWSAccountId=account_id)["QueueUrl"]
                sqs.send_message(QueueUrl=url, MessageBody=body, **({"MessageAttributes": attributes} if attributes else {}))
            elif service == "sns":
                sns_attributes = {name: {"DataType": value["DataType"], "StringValue": value["StringValue"]}
                                  for name, value in (attributes or {}).items()}
                self._client("sns", region).publish(TopicArn=arn, Message=body, MessageAttributes=sns_attributes)
            elif service == "lambda":
                self._client("lambda", region).invoke(FunctionName=arn, InvocationType="Event", Payload=body.encode())
            elif service == "events":
                self._client("events", region).put_events(Entries=[{
                    "Source": "lambda", "DetailType": f"Lambda Function Invocation Result - {outcome}",
                    "Detail": body, "EventBusName": arn, "Resources": [function.arn]}])
            else:
                raise ValueError(f"not a destination: {arn}")
        except Exception as error:  # the destination is the user's: report it, keep going
            log.warning("could not deliver %s's invocation record to %s: %s: %s", function.name, arn,
                        type(error).__name__, error)

    def close(self) -> None:
        self._stopping.set()
        with self._activity:
            self._activity.notify_all()
