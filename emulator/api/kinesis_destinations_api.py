"""DynamoDB's Kinesis streaming destination operations (Enable/Disable/Describe/UpdateKinesisStreamingDestination).

Part of the DynamoDB API (X-Amz-Target DynamoDB_20120810.<Operation>), answered by Eddy: moto has no such
operations. Each handler parses, calls emulator.kinesis (emulator/kinesis/destinations.py) and shapes the answer.
"""

from __future__ import annotations

from typing import Any, Callable

from emulator.moto_seam import bridge as moto_bridge
from emulator.api.streams_api import Params, _string, parse_body
from emulator.engine import Emulator
from emulator.errors import ResourceNotFoundException, SerializationException
from emulator.kinesis.destinations import Destination, KinesisDestinations
from emulator.messages import Request, Response, json_response


def _table(emulator: Emulator, request: Request, params: Params) -> tuple[str, str, str]:
    name = _string(params, "TableName", required=True, min_length=1, max_length=1024)
    account_id, region = moto_bridge.caller(request)
    if moto_bridge.find_table(account_id, region, name) is None:
        raise ResourceNotFoundException(f"Requested resource not found: Table: {name} not found")
    return account_id, region, name


def _configuration(params: Params, name: str) -> str | None:
    configuration = params.get(name) or {}
    if not isinstance(configuration, dict):
        raise SerializationException(f"Unexpected value type for {name}: expected an object")
    return configuration.get("ApproximateCreationDateTimePrecision")


def _answer(emulator: Emulator, table: tuple[str, str, str], destination: Destination,
            configuration: str | None) -> Response:
    body: dict[str, Any] = {"TableName": table[2], "StreamArn": destination.stream_arn,
                            "DestinationStatus": destination.status}
    if configuration:
        body[configuration] = {"ApproximateCreationDateTimePrecision": destination.precision}
    emulator.kinesis.settle(destination)
    return json_response(body)


def _configured(configuration: str, change: Callable[..., Destination]) -> Callable[[Emulator, Request, Params], Response]:
    """Enable and Update: a table, a stream ARN and a configuration holding the precision."""

    def handler(emulator: Emulator, request: Request, params: Params) -> Response:
        with emulator.lock:
            table = _table(emulator, request, params)
            precision = _configuration(params, configuration)
            stream_arn = _string(params, "StreamArn", required=True, min_length=37)
            return _answer(emulator, table, change(emulator.kinesis, table, stream_arn, precision), configuration)

    return handler


def disable(emulator: Emulator, request: Request, params: Params) -> Response:
    with emulator.lock:
        table = _table(emulator, request, params)
        destination = emulator.kinesis.disable(table, _string(params, "StreamArn", required=True, min_length=37))
        configuration = "EnableKinesisStreamingConfiguration" if "EnableKinesisStreamingConfiguration" in params else None
        return _answer(emulator, table, destination, configuration)


def describe(emulator: Emulator, request: Request, params: Params) -> Response:
    with emulator.lock:
        table = _table(emulator, request, params)
        return json_response({"TableName": table[2], "KinesisDataStreamDestinations": emulator.kinesis.describe(table)})


OPERATIONS: dict[str, Callable[[Emulator, Request, Params], Response]] = {
    "EnableKinesisStreamingDestination": _configured("EnableKinesisStreamingConfiguration", KinesisDestinations.enable),
    "DisableKinesisStreamingDestination": disable,
    "UpdateKinesisStreamingDestination": _configured("UpdateKinesisStreamingConfiguration", KinesisDestinations.update),
    "DescribeKinesisStreamingDestination": describe,
}


def handle(emulator: Emulator, operation: str, request: Request) -> Response:
    return OPERATIONS[operation](emulator, request, parse_body(request.body))
