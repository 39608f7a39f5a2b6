"""What EventBridge does with an event it could not deliver to a rule's target: its dead-letter queue.

Amazon EventBridge User Guide, "Event retry policy and using dead-letter queues": a delivery that fails with a
retriable error (throttling, a target that is briefly unavailable, a timeout) is retried under the target's
RetryPolicy (MaximumRetryAttempts 0..185, MaximumEventAgeInSeconds 60..86400; 185 and 24 hours by default); errors
that retrying cannot cure, "missing permissions to a target, or a target resource that no longer exists", are not
retried: the event goes straight to the target's DeadLetterConfig queue (a standard SQS queue), if it has one, else
it is dropped. EventBridge retries only a target's throttling and server errors (HTTP 429 and 5xx; AWS re:Post,
"Resolve FailedInvocation errors in EventBridge"). Every failure Eddy can meet delivering to a Lambda function or
an SQS queue is of the second kind (a function or queue that does not exist, a message SQS refuses with a 400):
Eddy's SQS never throttles, and its Lambda accepts every asynchronous Invoke of a function that exists. So Eddy
never retries: RetryPolicy is kept and answered (moto's ListTargetsByRule) and applies to nothing. A Lambda
target's throttles and function errors are Lambda's to retry (functions/async_invocation/queue.py: its OnFailure
destination and DeadLetterConfig, not the rule's), never EventBridge's: the event was delivered once Lambda queued it.

The dead-letter message is the event (as the rule matched it, before any Input transformation), with the message
attributes the guide lists: RULE_ARN, TARGET_ARN, ERROR_CODE (from the guide's list: NO_RESOURCE for a target
that does not exist, SDK_CLIENT_ERROR for a request the target's service refused, CONNECTION_FAILURE for an API
Gateway target, which Eddy cannot call: it serves no REST API's stage), ERROR_MESSAGE (the target
service's message), EXHAUSTED_RETRY_CONDITION and RETRY_ATTEMPTS; their values for an error that is not retried
(MaximumRetryAttempts, "0") follow what peers reproduce (no AWS recording found), every attribute a String.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Callable

log = logging.getLogger("eddy.events")

NO_RESOURCE, SDK_CLIENT_ERROR = "NO_RESOURCE", "SDK_CLIENT_ERROR"
#: a target Eddy cannot reach: an API Gateway REST API's stage (execute-api), whose integrations Eddy does not run
CONNECTION_FAILURE = "CONNECTION_FAILURE"


class TargetNotDelivered(Exception):
    """A target that could not take the event: ERROR_CODE and ERROR_MESSAGE as the dead-letter message says them."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


@dataclass
class Undelivered:
    rule_arn: str
    target: dict[str, Any]
    event: dict[str, Any]
    failure: TargetNotDelivered

    def attributes(self) -> dict[str, Any]:
        values = {
            "RULE_ARN": self.rule_arn,
            "TARGET_ARN": self.target["Arn"],
            "ERROR_CODE": self.failure.code,
            "ERROR_MESSAGE": self.failure.message,
            "EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts",
            "RETRY_ATTEMPTS": "0",
        }
        return {name: {"DataType": "String", "StringValue": value} for name, value in values.items()}

    def report(self, dead_letter_queue: str | None) -> dict[str, Any]:
        """wait_idle's Failures entry (once)."""
        rule = self.rule_arn.rsplit("/", 1)[-1]
        return {
            "Mapping": f"rule {rule} target {self.target.get('Id')}",
            "Rule": self.rule_arn,
            "TargetArn": self.target["Arn"],
            "EventId": self.event.get("id"),
            "ErrorCode": self.failure.code,
            "LastError": f"{self.failure.code}: {self.failure.message}",
            "DeadLetterQueue": dead_letter_queue,
            "FailedBatches": 0,
            "RecordsDiscarded": 1,
            "Discarded": [],
        }


def send_to_dead_letter_queue(aws_client: Callable[..., Any], undelivered: Undelivered) -> str | None:
    """The event to the target's DeadLetterConfig queue (None when it has none, or that queue cannot take it),
    through Eddy's own boto3 client (`aws_client(service, region)`)."""
    arn = (undelivered.target.get("DeadLetterConfig") or {}).get("Arn")
    log.warning(
        "EventBridge could not deliver event %s of %s to %s (%s)%s",
        undelivered.event.get("id"),
        undelivered.rule_arn,
        undelivered.target["Arn"],
        undelivered.failure,
        f": sent to its dead-letter queue {arn}" if arn else ": no dead-letter queue, dropped",
    )
    if not arn:
        return None
    try:
        _, _, _, region, account_id, name = arn.split(":", 5)
        sqs = aws_client("sqs", region, account_id)  # the queue's account (moto ignores QueueOwnerAWSAccountId)
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
        sqs.send_message(
            QueueUrl=url, MessageBody=json.dumps(undelivered.event), MessageAttributes=undelivered.attributes()
        )
    except Exception as error:  # CloudWatch's InvocationsFailedToBeSentToDLQ: the event is lost, say so
        log.warning(
            "EventBridge could not send event %s to the dead-letter queue %s: %s: %s",
            undelivered.event.get("id"),
            arn,
            type(error).__name__,
            error,
        )
        return None
    return arn
