"""Where an asynchronous event's outcome goes: its invocation record to the OnSuccess or OnFailure destination of
the function's event invoke config (an SQS queue, an SNS topic, a Lambda function or an EventBridge bus), or its
payload to the function's dead-letter queue or topic (queue.py decides which and builds the bodies).
Reached through boto3, as a client would (moto serves them); a destination that refuses is the user's to fix:
logged, never retried."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function

log = logging.getLogger("eddy.functions")


def send(
    aws_client: Callable[..., Any],
    arn: str,
    body: str,
    attributes: dict[str, Any] | None,
    function: Function,
    outcome: str,
) -> None:
    """`body` to the queue, topic, function or bus `arn` (`attributes`: a dead letter's message attributes;
    `outcome`: "Success" or "Failure", in an EventBridge record's detail type); `aws_client(service, region,
    account_id)` gives Eddy's boto3 client for the ARN's account."""
    try:
        _, _, service, region, account_id, resource = arn.split(":", 5)
        if service == "sqs":
            sqs = aws_client("sqs", region, account_id)  # the ARN's account (moto ignores QueueOwnerAWSAccountId)
            url = sqs.get_queue_url(QueueName=resource)["QueueUrl"]
            sqs.send_message(
                QueueUrl=url, MessageBody=body, **({"MessageAttributes": attributes} if attributes else {})
            )
        elif service == "sns":
            aws_client("sns", region, account_id).publish(
                TopicArn=arn, Message=body, MessageAttributes=attributes or {}
            )
        elif service == "lambda":
            aws_client("lambda", region, account_id).invoke(
                FunctionName=arn, InvocationType="Event", Payload=body.encode()
            )
        elif service == "events":
            aws_client("events", region, account_id).put_events(
                Entries=[
                    {
                        "Source": "lambda",
                        "DetailType": f"Lambda Function Invocation Result - {outcome}",
                        "Detail": body,
                        "EventBusName": arn,
                        "Resources": [arn, function.version_arn],
                    }
                ]
            )
        else:
            raise ValueError(f"not a destination: {arn}")
    except Exception as error:  # the destination is the user's: report it, keep going
        log.warning(
            "could not deliver %s's invocation record to %s: %s: %s", function.name, arn, type(error).__name__, error
        )
