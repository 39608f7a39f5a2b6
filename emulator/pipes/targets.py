"""Where a pipe's batch goes: its optional Lambda enrichment, then its target (Lambda, SQS, SNS or an event bus).

As the EventBridge User Guide says ("Amazon EventBridge Pipes batching and concurrency", "EventBridge Pipes target
specifics"): a Lambda enrichment or target receives the batch as one JSON array, even a batch of one; an enrichment's
answer is the batch sent on (an array, or one value; nothing: nothing is sent); SQS, SNS and event-bus targets
receive each record as one entry of their batch API (SendMessageBatch, PublishBatch, PutEvents), the record's JSON as
the message. A target that fails part of a batch (a failed entry, or a Lambda target's batchItemFailures naming the
records' eventID or messageId) fails only those records, which the source retries; an event bus receives each record
as the detail of an event whose source is "Pipe <name>" and detail-type "Event from <the record's eventSource>"
unless EventBridgeEventBusParameters say otherwise.

Everything but Lambda is reached through boto3 clients of Eddy (the kernel's aws_client), as any other client would;
a Lambda enrichment or target is invoked through the invoker, or queued as an asynchronous invocation.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Callable

from eddy.emulator.errors import FunctionError
from eddy.emulator.functions.invocation_results import InvocationResult
from eddy.emulator.pipes.pipe import Pipe, service_of

if TYPE_CHECKING:
    from eddy.emulator.functions.async_invocation.queue import AsyncInvocations
    from eddy.emulator.functions.invocation import Invoker
    from eddy.emulator.functions.registry import FunctionRegistry

log = logging.getLogger("eddy.pipes")


def _record_id(record: Any) -> Any:
    return record.get("eventID", record.get("messageId")) if isinstance(record, dict) else None


class PipeTargets:
    """Where every pipe's batches go: built with the functions, their invoker and asynchronous invocations, and
    Eddy's boto3 clients (`aws_client(service, region)`)."""

    def __init__(
        self,
        functions: FunctionRegistry,
        invoker: Invoker,
        async_invocations: AsyncInvocations,
        aws_client: Callable[[str, str], Any],
    ) -> None:
        self._functions = functions
        self._invoker = invoker
        self._async_invocations = async_invocations
        self._aws_client = aws_client

    def deliver(self, pipe: Pipe, records: list[Any], identifiers: list[str]) -> InvocationResult:
        """Run `records` (the source's Lambda-form records) through the pipe; the answer is an InvocationResult
        whose payload names the failed records by `identifiers` (ReportBatchItemFailures' form), or an error: all
        failed."""
        source = pipe.arn
        batch: list[Any] = records
        enriched = pipe.enrichment is not None
        if enriched:
            result = self.invoke_function(pipe.enrichment, records, source)
            if not result.ok:
                return result
            payload = result.payload
            batch = payload if isinstance(payload, list) else [] if payload is None else [payload]
            if not batch:
                return InvocationResult(result.request_id, duration=result.duration)
        service, target = service_of(pipe.target), pipe.target
        parameters = pipe.target_parameters
        if service == "lambda":
            invocation = (parameters.get("LambdaFunctionParameters") or {}).get("InvocationType", "REQUEST_RESPONSE")
            if invocation == "FIRE_AND_FORGET":  # into the function's asynchronous invocation queue: Lambda's retries
                function = self._functions.runnable(target)  # unqualified, $LATEST, a version or an alias
                if function is None:
                    return InvocationResult(
                        "", error=FunctionError("ResourceNotFoundException", f"Function not found: {target}")
                    )
                return InvocationResult(self._async_invocations.submit(function, batch, source, invoked_arn=target))
            result = self.invoke_function(target, batch, source)
            if not result.ok or enriched:
                return result
            by_id = {str(_record_id(record)): identifier for record, identifier in zip(records, identifiers)}
            return InvocationResult(
                result.request_id, _failures_by_identifier(result.payload, by_id), duration=result.duration
            )
        failed = self._send(pipe, batch)
        if enriched and failed:  # enriched records are not the source's: the whole batch is retried
            return InvocationResult(
                "", error=FunctionError("TargetFailure", f"{len(failed)} entries failed at {target}")
            )
        return InvocationResult("", {"batchItemFailures": [{"itemIdentifier": identifiers[i]} for i in sorted(failed)]})

    def invoke_function(self, function_arn: str, payload: Any, source: str) -> InvocationResult:
        """Invoke a function synchronously (RequestResponse) and wait for its answer."""
        function = self._functions.runnable(function_arn)  # unqualified, a version or an alias (by its weights)
        if function is None:
            return InvocationResult(
                "", error=FunctionError("ResourceNotFoundException", f"Function not found: {function_arn}")
            )
        return self._invoker.invoke(function, payload, source=source, invoked_arn=function_arn)

    def _send(self, pipe: Pipe, batch: list[Any]) -> set[int]:
        """Send each record as one entry of the target's batch API; the positions of the entries that failed."""
        service, target = service_of(pipe.target), pipe.target
        _, _, _, region, account_id, resource = target.split(":", 5)
        client = self._aws_client(service, region)
        if service == "sqs":
            url = client.get_queue_url(QueueName=resource, QueueOwnerAWSAccountId=account_id)["QueueUrl"]
            answer = client.send_message_batch(QueueUrl=url, Entries=_queue_entries(pipe, batch))
        elif service == "sns":
            entries = [{"Id": str(position), "Message": json.dumps(record)} for position, record in enumerate(batch)]
            answer = client.publish_batch(TopicArn=target, PublishBatchRequestEntries=entries)
        else:
            answer = client.put_events(Entries=_bus_entries(pipe, batch))
            return {position for position, result in enumerate(answer.get("Entries", [])) if result.get("ErrorCode")}
        for failure in answer.get("Failed", []):
            log.warning(
                "pipe %s: entry %s failed at %s: %s", pipe.name, failure.get("Id"), target, failure.get("Message")
            )
        return {int(failure["Id"]) for failure in answer.get("Failed", [])}


def _failures_by_identifier(payload: Any, by_id: dict[str, str]) -> Any:
    """A Lambda target's batchItemFailures (naming eventIDs or messageIds) restated in the source's identifiers; an
    identifier not in the batch is kept as it is, so the batch fails whole (batch_policy's rule for a bad answer)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("batchItemFailures"), list):
        return payload
    failures = []
    for failure in payload["batchItemFailures"]:
        identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
        failures.append({"itemIdentifier": by_id.get(str(identifier), identifier)})
    return dict(payload, batchItemFailures=failures)


def _queue_entries(pipe: Pipe, batch: list[Any]) -> list[dict[str, Any]]:
    """SendMessageBatch's entries: each record's JSON, with the target's MessageGroupId and MessageDeduplicationId."""
    parameters = pipe.target_parameters.get("SqsQueueParameters") or {}
    entries = []
    for position, record in enumerate(batch):
        entry = {"Id": str(position), "MessageBody": json.dumps(record)}
        entry.update(
            {name: parameters[name] for name in ("MessageGroupId", "MessageDeduplicationId") if name in parameters}
        )
        entries.append(entry)
    return entries


def _bus_entries(pipe: Pipe, batch: list[Any]) -> list[dict[str, Any]]:
    """PutEvents' entries: each record as an event's detail (EventBridgeEventBusParameters, else the pipe's source
    and the record's eventSource)."""
    parameters = pipe.target_parameters.get("EventBridgeEventBusParameters") or {}
    entries = []
    for record in batch:
        event_source = record.get("eventSource", "") if isinstance(record, dict) else ""
        entry = {
            "Source": parameters.get("Source", f"Pipe {pipe.name}"),
            "DetailType": parameters.get("DetailType", f"Event from {event_source}"),
            "Detail": json.dumps(record),
            "EventBusName": pipe.target,
        }
        if parameters.get("Resources"):
            entry["Resources"] = parameters["Resources"]
        entries.append(entry)
    return entries
