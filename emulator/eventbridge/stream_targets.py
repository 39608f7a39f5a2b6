"""EventBridge targets that are streams or buses: a Kinesis data stream, a Firehose delivery stream, another event bus.

What each receives (Amazon EventBridge User Guide, "Event bus targets"; AWS's recorded deliveries in LocalStack's
AWS-validated tests/aws/services/events/test_events_targets.snapshot.json and test_events.snapshot.json):
  - a Kinesis stream: one record whose data is the target's text (the event, or its Input/InputPath/InputTransformer),
    its partition key the value at KinesisParameters.PartitionKeyPath in the event, else the event's id
    (test_put_events_with_target_kinesis);
  - a Firehose delivery stream: one record whose data is the target's text, as the stream's destination writes it
    (test_put_events_with_target_firehose: each event in the bucket);
  - another event bus: the event put on it as it was, its source, detail-type, detail, resources and time
    (test_put_events_to_default_eventbus_for_custom_eventbus: S3's event on a custom bus with its resources; moto
    dropped the resources and the time), an event a rule on that bus may match.
Each raises TargetNotDelivered as the other targets do (eventbridge/dead_letters.py), given `client(service)`: Eddy's
boto3 client of the target's region and account.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Callable

from botocore.exceptions import ClientError

from eddy.emulator.eventbridge.dead_letters import NO_RESOURCE, SDK_CLIENT_ERROR, TargetNotDelivered
from eddy.emulator.eventbridge.target_input import MISSING, json_path

Client = Callable[[str], Any]
#: the services whose targets this module sends to ("events": an event bus's ARN, not an archive's)
SERVICES = ("kinesis", "firehose", "events")


def is_stream_target(arn: str) -> bool:
    parts = arn.split(":", 5)
    if len(parts) < 6 or parts[2] not in SERVICES:
        return False
    return parts[2] != "events" or parts[5].startswith("event-bus/")


def send_to_stream(client: Client, target: dict[str, Any], body: str, event: dict[str, Any]) -> None:
    """Send a delivery's text (`body`) or event to its stream or bus `target`."""
    _, _, service, _, _, resource = target["Arn"].split(":", 5)
    name = resource.split("/", 1)[1]
    if service == "kinesis":
        key = json_path(event, (target.get("KinesisParameters") or {}).get("PartitionKeyPath") or "$.id")
        key = event["id"] if key is MISSING or key is None or isinstance(key, (dict, list)) else key
        _call(lambda: client("kinesis").put_record(StreamName=name, Data=body.encode(), PartitionKey=str(key)))
    elif service == "firehose":
        _call(lambda: client("firehose").put_record(DeliveryStreamName=name, Record={"Data": body.encode()}))
    else:
        _put_on_bus(client, target["Arn"], event)


def _put_on_bus(client: Client, bus_arn: str, event: dict[str, Any]) -> None:
    entry: dict[str, Any] = {
        "Source": event["source"],
        "DetailType": event["detail-type"],
        "Detail": json.dumps(event["detail"]),
        "Resources": list(event.get("resources") or []),
        "EventBusName": bus_arn,
    }
    if isinstance(event.get("time"), str):
        entry["Time"] = datetime.strptime(event["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    answer = _call(lambda: client("events").put_events(Entries=[entry]))
    [outcome] = answer["Entries"]
    if "ErrorCode" in outcome:
        raise TargetNotDelivered(SDK_CLIENT_ERROR, outcome.get("ErrorMessage") or outcome["ErrorCode"])


def _call(request: Callable[[], Any]) -> Any:
    try:
        return request()
    except ClientError as error:
        code = error.response["Error"].get("Code", "")
        reason = NO_RESOURCE if code == "ResourceNotFoundException" else SDK_CLIENT_ERROR
        raise TargetNotDelivered(reason, error.response["Error"].get("Message") or str(error)) from None
