"""A table's definition request (CreateTable, UpdateTable, DeleteTable, TagResource, UpdateTimeToLive, ...) run again
through moto's DynamoDB, as the account and region that made it: recovery's way to rebuild a table's definition
(streams/durable.py logs them; Eddy's own resource policies are put back by resource_policies.py). moto reads the caller's region from the request's SigV4 scope and its account from
`x-moto-account-id`, so the request is made here, in the seam, with both.

    >>> status, body = run_table_request("123456789012", "us-east-1", "DescribeTable", {"TableName": "t"})
"""

from __future__ import annotations

import json
from typing import Any

from eddy.emulator import callers
from eddy.emulator.aws_requests import Request
from eddy.emulator.moto_seam.bridge import DynamoDBCall


def run_table_request(account_id: str, region: str, target: str, body: dict[str, Any]) -> tuple[int, bytes]:
    """moto's answer to the request (its status and body), made as `account_id` in `region`."""
    headers = {
        "X-Amz-Target": f"DynamoDB_20120810.{target}",
        "x-moto-account-id": account_id,
        "Content-Type": "application/x-amz-json-1.0",
        "Authorization": callers.authorization(region, "dynamodb"),
    }
    request = Request("POST", f"https://dynamodb.{region}.amazonaws.com/", headers)
    response = DynamoDBCall(request, json.dumps(body).encode()).run()
    return response.status, response.body
