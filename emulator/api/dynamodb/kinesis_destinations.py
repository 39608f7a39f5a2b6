"""DynamoDB's Kinesis streaming destination operations (Enable/Disable/Describe/UpdateKinesisStreamingDestination).

Part of the DynamoDB API (X-Amz-Target DynamoDB_20120810.<Operation>), answered by Eddy: moto has no such
operations. Each handler parses, calls emulator.kinesis (emulator/kinesis/destinations.py) and shapes the answer.
"""

from __future__ import annotations

from typing import Any, Callable

from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam.tables import views as moto_tables
from eddy.emulator.api.dynamodb.streams import Params, _string, parse_body
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import ResourceNotFoundException, SerializationException, ValidationException
from eddy.emulator.kinesis.destinations import PRECISIONS, Destination
from eddy.emulator.aws_requests import Request, Response, json_response

ENABLE, UPDATE = "EnableKinesisStreamingConfiguration", "UpdateKinesisStreamingConfiguration"
PRECISION = "ApproximateCreationDateTimePrecision"


def _table(emulator: Emulator, request: Request, params: Params) -> tuple[str, str, str]:
    name = _string(params, "TableName", required=True, min_length=1, max_length=1024)
    account_id, region = moto_bridge.caller(request)
    if moto_tables.view(account_id, region, name) is None:
        raise ResourceNotFoundException(f"Requested resource not found: Table: {name} not found")
    return account_id, region, name


def _configuration(params: Params, name: str) -> dict[str, Any]:
    """The request's configuration (Enable or Update...KinesisStreamingConfiguration), its precision checked with
    AWS's words and path (LocalStack's AWS-recorded test_kinesis_streaming_destination_crud)."""
    configuration = params.get(name)
    if configuration is None:
        return {}
    if not isinstance(configuration, dict):
        raise SerializationException(f"Unexpected value type for {name}: expected an object")
    precision = configuration.get("ApproximateCreationDateTimePrecision")
    if precision is not None and precision not in PRECISIONS:
        raise ValidationException(
            f"1 validation error detected: Value '{precision}' at '{name[0].lower() + name[1:]}."
            "approximateCreationDateTimePrecision' failed to satisfy constraint: Member must satisfy enum value set: "
            f"[{', '.join(PRECISIONS)}]"
        )
    return {key: value for key, value in configuration.items() if value is not None}


def _answer(
    emulator: Emulator,
    table: tuple[str, str, str],
    destination: Destination,
    configuration: tuple[str, dict[str, Any]] | None,
) -> Response:
    body: dict[str, Any] = {
        "TableName": table[2],
        "StreamArn": destination.stream_arn,
        "DestinationStatus": destination.status,
    }
    if configuration is not None:  # the request's configuration, as given (AWS: {} when it gave none)
        body[configuration[0]] = configuration[1]
    emulator.kinesis.settle(destination)
    return json_response(body)


def enable(emulator: Emulator, request: Request, params: Params) -> Response:
    with emulator.lock:
        table = _table(emulator, request, params)
        configuration = _configuration(params, ENABLE)
        stream_arn = _string(params, "StreamArn", required=True, min_length=37)
        destination = emulator.kinesis.enable(table, stream_arn, configuration.get(PRECISION))
        return _answer(emulator, table, destination, (ENABLE, configuration))


def update(emulator: Emulator, request: Request, params: Params) -> Response:
    with emulator.lock:
        table = _table(emulator, request, params)
        configuration = _configuration(params, UPDATE)
        if not configuration:
            raise ValidationException(
                "Streaming destination cannot be updated with given parameters: "
                f"{UPDATE} cannot be null or contain only null values"
            )
        stream_arn = _string(params, "StreamArn", required=True, min_length=37)
        table_id = moto_tables.table_id(table)
        destination = emulator.kinesis.update(table, stream_arn, configuration.get(PRECISION), table_id)
        return _answer(emulator, table, destination, (UPDATE, configuration))


def disable(emulator: Emulator, request: Request, params: Params) -> Response:
    with emulator.lock:
        table = _table(emulator, request, params)
        destination = emulator.kinesis.disable(table, _string(params, "StreamArn", required=True, min_length=37))
        configuration = (ENABLE, _configuration(params, ENABLE)) if ENABLE in params else None
        return _answer(emulator, table, destination, configuration)


def describe(emulator: Emulator, request: Request, params: Params) -> Response:
    with emulator.lock:
        table = _table(emulator, request, params)
        return json_response({"TableName": table[2], "KinesisDataStreamDestinations": emulator.kinesis.describe(table)})


OPERATIONS: dict[str, Callable[[Emulator, Request, Params], Response]] = {
    "EnableKinesisStreamingDestination": enable,
    "DisableKinesisStreamingDestination": disable,
    "UpdateKinesisStreamingDestination": update,
    "DescribeKinesisStreamingDestination": describe,
}


def handle(emulator: Emulator, operation: str, request: Request) -> Response:
    return OPERATIONS[operation](emulator, request, parse_body(request.body))
