"""DynamoDB operations on features Eddy does not have, answered as AWS answers when there are none of them.

Part of the DynamoDB API (X-Amz-Target DynamoDB_20120810.<Operation>), called by api/dynamodb/door.py's handle after
validation and before moto, which lacks these operations or fails on some valid requests to them:
- global tables of the legacy version 2017.11.29: AWS no longer creates them (CreateGlobalTable and
  UpdateGlobalTable are refused, global_tables_api.py), so none exist: ListGlobalTables is empty and the others
  answer GlobalTableNotFoundException (version 2019.11.21 global tables are tables with replicas: global_tables_api);
- contributor insights: DISABLED on every table and index, so ListContributorInsights is empty;
- bulk operations and imports: none listed; an unknown bulk operation, export or import is not found;
- Time to Live and exports: moto's answers, with AWS's error for a missing table, TTL's rules against the table's
  current TTL (rules/time_to_live.py), and the requests moto fails on
  (ListExports without TableArn, ExportTableToPointInTime without S3Prefix) completed before moto sees them.
NOT_EMULATED lists the operations Eddy does not emulate at all: HTTP 501, AWS's NotImplemented error
(docs/reference/aws-differences.md, "Known differences from AWS", shows one, run by tests/test_docs.py).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from eddy.emulator.api.dynamodb.rules import time_to_live
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam.tables import time_to_live_changes
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import (
    ExportNotFoundException,
    GlobalTableNotFoundException,
    ImportNotFoundException,
    NotEmulated,
    ResourceNotFoundException,
)
from eddy.emulator.aws_requests import Request, Response, json_response

Params = dict[str, Any]

#: operations Eddy answers with HTTP 501 NotImplemented (tests/emulator/api/test_fuzz.py allows 501 for these only)
NOT_EMULATED = (
    "SearchVectors",
    "StartBulkPutItems",
    "UpdateContributorInsights",
    "UpdateTableReplicaAutoScaling",
)


def _moto(request: Request, operation: str, params: Params) -> Response:
    """Another DynamoDB request for the same caller, run by moto."""
    inner = request.for_target("DynamoDB_20120810." + operation, params)
    return moto_bridge.DynamoDBCall(inner, inner.body).run()


def _table_not_found(name: str) -> ResourceNotFoundException:
    return ResourceNotFoundException(f"Requested resource not found: Table: {name} not found")


def described_table(request: Request, name: str) -> dict[str, Any]:
    """The table (named, or by its ARN) as DescribeTable describes it; AWS's error for a table that does not exist."""
    response = _moto(request, "DescribeTable", {"TableName": name})
    if response.status != 200:
        raise _table_not_found(name)
    return json.loads(response.body)["Table"]


# -- global tables -----------------------------------------------------------------------------------


def list_global_tables(emulator: Emulator, request: Request, params: Params) -> Response:
    return json_response({"GlobalTables": []})


def describe_global_table(emulator: Emulator, request: Request, params: Params) -> Response:
    name = params["GlobalTableName"]
    raise GlobalTableNotFoundException(f"Global table not found: Global table with name: '{name}' does not exist.")


def global_table_settings(emulator: Emulator, request: Request, params: Params) -> Response:
    """DescribeGlobalTableSettings and UpdateGlobalTableSettings."""
    raise GlobalTableNotFoundException(f"Global table with name: '{params['GlobalTableName']}' does not exist.")


# -- contributor insights ----------------------------------------------------------------------------


def describe_contributor_insights(emulator: Emulator, request: Request, params: Params) -> Response:
    name, index = params["TableName"], params.get("IndexName")
    with emulator.lock:
        table = described_table(request, name)
    answer = {"TableName": table["TableName"], "ContributorInsightsStatus": "DISABLED"}
    if index is not None:
        if index not in {gsi["IndexName"] for gsi in table.get("GlobalSecondaryIndexes", [])}:
            raise ResourceNotFoundException(f"Index: {index} not found for table: {name}")
        answer["IndexName"] = index
    return json_response(answer)


def list_contributor_insights(emulator: Emulator, request: Request, params: Params) -> Response:
    """Only tables and indexes whose insights are not DISABLED are listed: none."""
    if params.get("TableName") is not None:
        with emulator.lock:
            described_table(request, params["TableName"])
    return json_response({"ContributorInsightsSummaries": []})


# -- bulk operations, imports, exports -----------------------------------------------------------------


def list_bulk_operations(emulator: Emulator, request: Request, params: Params) -> Response:
    return json_response({"BulkOperationsSummaryList": []})


def bulk_operation(emulator: Emulator, request: Request, params: Params) -> Response:
    """DescribeBulkOperation and CancelBulkOperation: there are none (StartBulkPutItems is not emulated)."""
    raise ResourceNotFoundException(
        f"Requested resource not found: BulkOperationArn: {params['BulkOperationArn']} not found"
    )


def list_imports(emulator: Emulator, request: Request, params: Params) -> Response:
    return json_response({"ImportSummaryList": []})


def _found_or(operation: str, member: str, error: Callable[[str], Exception]) -> Callable[..., Response]:
    """DescribeExport and DescribeImport: moto's answer, AWS's error where moto has no such ARN (a KeyError)."""

    def handler(emulator: Emulator, request: Request, params: Params) -> Response:
        with emulator.lock:
            try:
                return _moto(request, operation, params)
            except KeyError:
                raise error(f"{member.removesuffix('Arn')} not found: {params[member]}") from None

    return handler


def list_exports(emulator: Emulator, request: Request, params: Params) -> Response | None:
    """Without TableArn, every export of the caller's tables (moto lists one table's only)."""
    if params.get("TableArn") is not None:
        return None  # moto's
    account_id, region = moto_bridge.caller(request)
    summaries: list[Any] = []
    with emulator.lock:
        for table in moto_bridge.table_summaries():
            if (table["AccountId"], table["Region"]) == (account_id, region):
                response = _moto(request, "ListExports", {"TableArn": table["TableArn"]})
                summaries += json.loads(response.body).get("ExportSummaries", [])
    return json_response({"ExportSummaries": summaries})  # in one page, as moto lists them


def export_table(emulator: Emulator, request: Request, params: Params) -> Response | None:
    """ExportTableToPointInTime: S3Prefix is optional in AWS (the export goes to the bucket's top); moto needs it."""
    if "S3Prefix" in params:
        return None  # moto's
    with emulator.lock:
        return _moto(request, "ExportTableToPointInTime", {**params, "S3Prefix": ""})


# -- Time to Live --------------------------------------------------------------------------------------


def describe_time_to_live(emulator: Emulator, request: Request, params: Params) -> Response:
    """AWS's error for a missing table (moto's is {"__type": "ResourceNotFound"}); no attribute named while TTL is off."""
    with emulator.lock:
        described_table(request, params["TableName"])
        described = json.loads(_moto(request, "DescribeTimeToLive", params).body)["TimeToLiveDescription"]
    return json_response({"TimeToLiveDescription": time_to_live.described(described)})


def update_time_to_live(emulator: Emulator, request: Request, params: Params) -> Response | None:
    """AWS's error for a missing table, for a change the table's current TTL does not allow, and for one within an hour
    of the last; then moto's (the engine keeps when it succeeded with the table's definition: streams/durable.py)."""
    with emulator.lock:
        name = described_table(request, params["TableName"])["TableName"]
        current = json.loads(_moto(request, "DescribeTimeToLive", {"TableName": params["TableName"]}).body)
        time_to_live.check_update(current["TimeToLiveDescription"], params["TimeToLiveSpecification"])
        time_to_live.check_interval(
            time_to_live_changes.changed_at(*moto_bridge.caller(request), name), emulator.clock.now()
        )
    return None  # moto's


OPERATIONS: dict[str, Callable[[Emulator, Request, Params], Response | None]] = {
    "ListGlobalTables": list_global_tables,
    "DescribeGlobalTable": describe_global_table,
    "DescribeGlobalTableSettings": global_table_settings,
    "UpdateGlobalTableSettings": global_table_settings,
    "DescribeContributorInsights": describe_contributor_insights,
    "ListContributorInsights": list_contributor_insights,
    "ListBulkOperations": list_bulk_operations,
    "DescribeBulkOperation": bulk_operation,
    "CancelBulkOperation": bulk_operation,
    "ListImports": list_imports,
    "DescribeImport": _found_or("DescribeImport", "ImportArn", ImportNotFoundException),
    "DescribeExport": _found_or("DescribeExport", "ExportArn", ExportNotFoundException),
    "ListExports": list_exports,
    "ExportTableToPointInTime": export_table,
    "DescribeTimeToLive": describe_time_to_live,
    "UpdateTimeToLive": update_time_to_live,
}


def answer(emulator: Emulator, operation: str, request: Request, params: Params) -> Response | None:
    """Eddy's answer to a validated request for one of these operations; None: moto answers it."""
    if operation in NOT_EMULATED:
        raise NotEmulated("DynamoDB", operation)
    handler = OPERATIONS.get(operation)
    return handler(emulator, request, params) if handler is not None else None
