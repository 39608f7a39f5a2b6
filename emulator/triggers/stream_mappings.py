"""Event source mappings from a DynamoDB stream or a Kinesis data stream: Lambda's rules for creating one, and where
it starts.

What a stream's mapping needs beyond the parameters every mapping has (event_source_mappings.py): its source given as
a stream's ARN (a table's ARN is refused, naming LatestStreamArn), a StartingPosition (TRIM_HORIZON or LATEST, and
AT_TIMESTAMP with its StartingPositionTimestamp for Kinesis), and no second mapping of one stream to one function
(the ResourceConflictException's words as AWS recorded them: LocalStack's AWS-validated snapshots,
test_lambda_integration_dynamodbstreams.snapshot.json). StateTransitionReason is "User action" for these sources
(SQS's is USER_INITIATED).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from eddy.emulator.errors import InvalidParameterValueException, ResourceConflictException
from eddy.emulator.kinesis.sources import KinesisSource
from eddy.emulator.triggers.event_source_mappings import (
    KINESIS_STARTING_POSITIONS,
    STARTING_POSITIONS,
    EventSourceMapping,
    apply_parameters,
    new_uuid,
)

TABLE_ARN = re.compile(r"^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[^/]+$")
#: StateTransitionReason of a mapping a user created or changed, for DynamoDB and Kinesis sources (SQS's is
#: USER_INITIATED)
USER_ACTION = "User action"


def refuse_table_arn(source: str) -> None:
    if TABLE_ARN.match(source):
        raise InvalidParameterValueException(
            f"{source} is a table ARN: an event source mapping reads a stream, give the table's LatestStreamArn"
        )


def create_stream_mapping(
    params: dict[str, Any],
    account_id: str,
    region: str,
    *,
    stream: Any,
    function_name: str,
    function_arn: str,
    mappings: Iterable[EventSourceMapping],
    now: float,
) -> EventSourceMapping:
    """A new mapping from `stream` (a DynamoDB stream or a KinesisSource) to a function (`function_arn`: its
    unqualified ARN, or a version's or alias's), unless one of `mappings` already joins them."""
    kind = "Kinesis" if isinstance(stream, KinesisSource) else "DynamoDB"
    position = params.get("StartingPosition")
    allowed = KINESIS_STARTING_POSITIONS if kind == "Kinesis" else STARTING_POSITIONS
    if position is None:  # Lambda's words (AWS-recorded: LocalStack's test_lambda_api.snapshot.json,
        # TestLambdaEventSourceMappings::test_create_event_source_validation and _kinesis)
        raise InvalidParameterValueException(
            "1 validation error detected: Value null at 'startingPosition' failed to satisfy constraint: "
            "Member must not be null."
        )
    if position not in allowed:  # the model's enum passed: one this kind of stream has not (AT_TIMESTAMP)
        raise InvalidParameterValueException(f"Unsupported starting position for arn type: {stream.arn}")
    timestamp = params.get("StartingPositionTimestamp")
    if position == "AT_TIMESTAMP" and (isinstance(timestamp, bool) or not isinstance(timestamp, (int, float))):
        raise InvalidParameterValueException("StartingPositionTimestamp is required for AT_TIMESTAMP")
    for existing in mappings:
        if existing.event_source_arn == stream.arn and existing.function_arn == function_arn:
            raise ResourceConflictException(
                f'The event source arn (" {stream.arn} ") and function (" {function_name} ") provided mapping '
                f"already exists. Please update or delete the existing mapping with UUID {existing.uuid}"
            )
    mapping = EventSourceMapping(
        uuid=new_uuid(),
        event_source_arn=stream.arn,
        function_arn=function_arn,
        account_id=account_id,
        region=region,
        starting_position=position,
        last_modified=now,
        state_transition_reason=USER_ACTION,
        starting_position_timestamp=timestamp if position == "AT_TIMESTAMP" else None,
    )
    apply_parameters(mapping, params)
    return mapping


def start_position(stream: Any, position: str, timestamp: float | None, last_sequence_number: int) -> int:
    """The sequence number after which a new mapping starts (0: the trim horizon); `last_sequence_number` is the
    emulator's last (a DynamoDB stream's LATEST: every record that exists now is skipped)."""
    if position == "AT_TIMESTAMP":
        return stream.sequence_before(timestamp)
    if position != "LATEST":
        return 0
    return stream.last_sequence_number if isinstance(stream, KinesisSource) else last_sequence_number
