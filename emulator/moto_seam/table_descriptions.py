"""moto's TableDescription answered as DynamoDB answers it (CreateTable, UpdateTable, DeleteTable, DescribeTable).

moto describes a table the same way whatever the operation. AWS's answers, as recorded against AWS in 2025
(LocalStack's AWS-validated snapshots tests/aws/services/dynamodb/test_dynamodb.snapshot.json: test_table_crud,
test_table_warm_throughput, test_gsi_with_billing_mode; and the DynamoDB API reference, TableDescription), differ:

- `TableId`, a UUID for the table's life, is in every description. Eddy's is derived from the table's ARN and its
  creation time, which a restart restores, so it is the same before and after a restart and differs for a table
  deleted and created again under the same name.
- `GlobalSecondaryIndexes` and `LocalSecondaryIndexes` appear only when the table has such indexes; an index says
  its IndexArn, IndexSizeBytes and ItemCount, and a GSI's ProvisionedThroughput its NumberOfDecreasesToday.
- The status is the operation's: CreateTable answers CREATING (its GSIs CREATING), UpdateTable UPDATING,
  DeleteTable DELETING; the next DescribeTable says ACTIVE, so waiters (table_exists) go on at once.
- CreateTable answers no `WarmThroughput` unless the request asked for one (then its values, Status UPDATING);
  DescribeTable and UpdateTable show it as moto keeps it (Status ACTIVE).
- `BillingModeSummary` is absent on a table that was never on demand. On an on-demand table CreateTable answers
  `{"BillingMode": "PAY_PER_REQUEST"}` and later answers add `LastUpdateToPayPerRequestDateTime`: the creation
  time, or the moment an UpdateTable switched it to on demand; a table that left on demand keeps the summary with
  its new mode. (Kept on moto's table: a restart, which replays the UpdateTable into moto, forgets a switch.)
- DeleteTable's description leaves out AttributeDefinitions, KeySchema, CreationDateTime and WarmThroughput.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

from moto.core.utils import unix_time
from moto.dynamodb.models.table import Table

OPERATIONS = frozenset({"CreateTable", "UpdateTable", "DeleteTable", "DescribeTable"})
STATUS = {"CreateTable": "CREATING", "UpdateTable": "UPDATING", "DeleteTable": "DELETING"}
NOT_IN_DELETE_TABLE = ("AttributeDefinitions", "KeySchema", "CreationDateTime", "WarmThroughput")
PAY_PER_REQUEST = "PAY_PER_REQUEST"
#: the attribute of moto's Table holding when an UpdateTable switched it to on demand (epoch seconds)
_SWITCHED = "eddy_pay_per_request_since"


def table_id(table_arn: str, created_at: float) -> str:
    """The table's TableId: the same for one table's life (restarts included), new for a table created again.
    `created_at` in epoch seconds, read to the millisecond (moto's answers truncate it there; the half-microsecond
    added absorbs a float's error either way)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{table_arn}#{math.floor(created_at * 1000 + 0.0005)}"))


def id_of(table: Table) -> str:
    return table_id(table.table_arn, unix_time(table.created_at))  # as moto writes CreationDateTime


def billing_mode_changed(table: Table | None, billing_mode: str | None, now: float) -> None:
    """After an UpdateTable that found the table in `billing_mode`: remember when it last became on demand (now, or
    its creation when a table created on demand leaves it)."""
    if table is None or getattr(table, _SWITCHED, None) is not None and table.billing_mode != PAY_PER_REQUEST:
        return
    if table.billing_mode == PAY_PER_REQUEST and billing_mode != PAY_PER_REQUEST:
        setattr(table, _SWITCHED, now)
    elif table.billing_mode != PAY_PER_REQUEST and billing_mode == PAY_PER_REQUEST:
        setattr(table, _SWITCHED, unix_time(table.created_at))


def as_aws(operation: str, params: dict[str, Any], body: dict[str, Any], table: Table | None) -> dict[str, Any]:
    """The body of moto's answer to `operation` reshaped as AWS's (`table`: moto's table, None once deleted)."""
    key = "Table" if operation == "DescribeTable" else "TableDescription"
    description = body.get(key)
    if not isinstance(description, dict):
        return body
    description["TableId"] = table_id(description["TableArn"], description["CreationDateTime"])
    if operation in STATUS:
        description["TableStatus"] = STATUS[operation]
    _indexes(operation, params, description)
    _billing_mode_summary(operation, description, table)
    throughput = description.get("ProvisionedThroughput")
    if isinstance(throughput, dict):
        throughput.setdefault("NumberOfDecreasesToday", 0)
    if operation == "CreateTable":
        _requested_warm_throughput(params.get("WarmThroughput"), description)
    if operation == "DeleteTable":
        for member in NOT_IN_DELETE_TABLE:
            description.pop(member, None)
    return body


def _indexes(operation: str, params: dict[str, Any], description: dict[str, Any]) -> None:
    requested = {
        index.get("IndexName"): index for index in params.get("GlobalSecondaryIndexes") or () if isinstance(index, dict)
    }
    for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        indexes = description.get(member)
        if not indexes:
            description.pop(member, None)
            continue
        for index in indexes:
            index.setdefault("IndexArn", f"{description['TableArn']}/index/{index['IndexName']}")
            index.setdefault("IndexSizeBytes", 0)
            index.setdefault("ItemCount", 0)
            if member == "LocalSecondaryIndexes":
                continue
            if isinstance(index.get("ProvisionedThroughput"), dict):
                index["ProvisionedThroughput"].setdefault("NumberOfDecreasesToday", 0)
            if operation == "CreateTable":
                index["IndexStatus"] = "CREATING"
                _requested_warm_throughput(requested.get(index["IndexName"], {}).get("WarmThroughput"), index)


def _requested_warm_throughput(requested: Any, description: dict[str, Any]) -> None:
    """CreateTable's answer: the WarmThroughput the request asked for, on its way (UPDATING), or none."""
    if isinstance(requested, dict) and requested:
        description["WarmThroughput"] = dict(requested, Status="UPDATING")
    else:
        description.pop("WarmThroughput", None)


def _billing_mode_summary(operation: str, description: dict[str, Any], table: Table | None) -> None:
    mode = (description.get("BillingModeSummary") or {}).get("BillingMode")
    switched = getattr(table, _SWITCHED, None)
    if mode != PAY_PER_REQUEST and switched is None:
        description.pop("BillingModeSummary", None)
        return
    summary: dict[str, Any] = {"BillingMode": mode or "PROVISIONED"}
    if operation != "CreateTable":
        summary["LastUpdateToPayPerRequestDateTime"] = (
            description.get("CreationDateTime") if switched is None else switched
        )
    description["BillingModeSummary"] = summary
