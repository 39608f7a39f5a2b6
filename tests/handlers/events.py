"""Real stream records, read from Eddy with boto3, turned into the events Lambda delivers to a handler.

boto3 parses a record's ApproximateCreationDateTime into a datetime and spells userIdentity
{"PrincipalId", "Type"}; Lambda delivers epoch seconds and {"principalId", "type"}, and adds eventSourceARN.
"""

from __future__ import annotations

import copy
from typing import Any

from ..emulator.helpers import read_stream


def lambda_record(record: dict, stream_arn: str) -> dict:
    record = copy.deepcopy(record)
    change = record["dynamodb"]
    change["ApproximateCreationDateTime"] = int(change["ApproximateCreationDateTime"].timestamp())
    record["eventSourceARN"] = stream_arn
    if "userIdentity" in record:
        identity = record["userIdentity"]
        record["userIdentity"] = {"type": identity["Type"], "principalId": identity["PrincipalId"]}
    return record


def lambda_event(records: list[dict], stream_arn: str) -> dict:
    return {"Records": [lambda_record(record, stream_arn) for record in records]}


def stream_records(streams: Any, stream_arn: str) -> list[dict]:
    """Every record of a stream, as Lambda delivers them (parents' shards before children's)."""
    return lambda_event(read_stream(streams, stream_arn), stream_arn)["Records"]


def batches(records: list[dict], size: int) -> list[dict]:
    """The records cut into Lambda events of at most `size` records."""
    return [{"Records": records[start:start + size]} for start in range(0, len(records), size)]
