"""CreateTable's definition held to DynamoDB's rules that moto lets through, in dynalite's order (its tests were written
against DynamoDB: test/createTable.js) and words:
- billing: PAY_PER_REQUEST takes no ProvisionedThroughput, for the table or any of its global secondary indexes
  ("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when
  BillingMode is PAY_PER_REQUEST"; "... ProvisionedThroughput should not be specified for index: <name> when
  BillingMode is PAY_PER_REQUEST");
- then, the key schema read (api/dynamodb/tables.py), indexes: a local secondary index only on a table with a sort
  key ("... Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"), with
  the table's hash key ("... Index KeySchema does not have the same leading hash key as table KeySchema for index:
  <name>. index hash key: <h>, table hash key: <t>"; the AWS-run conformance suite nubo-db/dynamodb-conformance,
  tests/tier1/createTable/lsi.test.ts, refuses it), and no two indexes, local or global, with one name ("...
  Duplicate index name: <name>").
UpdateTable of a provisioned table to the throughput it has is refused (dynalite's actions/updateTable.js words; the
conformance suite's tier1/updateTable/basic.test.ts refuses it), and it is held to the billing rule too: PAY_PER_REQUEST with ProvisionedThroughput is refused (the conformance
suite's tier1/updateTable/basic.test.ts; the words are CreateTable's, AWS's for UpdateTable not recorded).
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.errors import ValidationException

INVALID = "One or more parameter values were invalid: "


def check_billing(params: dict[str, Any]) -> None:
    if params.get("BillingMode") != "PAY_PER_REQUEST":
        return
    if params.get("ProvisionedThroughput") is not None:
        raise ValidationException(
            INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
            "BillingMode is PAY_PER_REQUEST"
        )


def check_indexes(params: dict[str, Any]) -> None:
    local, global_ = params.get("LocalSecondaryIndexes"), params.get("GlobalSecondaryIndexes")
    names: set[Any] = set()
    if local:
        if len(params.get("KeySchema") or ()) != 2:
            raise ValidationException(
                INVALID + "Table KeySchema does not have a range key, which is required when "
                "specifying a LocalSecondaryIndex"
            )
        table_hash = params["KeySchema"][0].get("AttributeName")
        for index in local:
            keys = index.get("KeySchema") or [{}]
            if keys[0].get("AttributeName") != table_hash:
                raise ValidationException(
                    INVALID + "Index KeySchema does not have the same leading hash key as table KeySchema for index: "
                    f"{index.get('IndexName')}. index hash key: {keys[0].get('AttributeName')}, table hash key: "
                    f"{table_hash}"
                )
            _once(index.get("IndexName"), names)
    for index in global_ or ():
        if params.get("BillingMode") == "PAY_PER_REQUEST" and index.get("ProvisionedThroughput") is not None:
            raise ValidationException(
                INVALID + f"ProvisionedThroughput should not be specified for index: "
                f"{index.get('IndexName')} when BillingMode is PAY_PER_REQUEST"
            )
        _once(index.get("IndexName"), names)


def _once(name: Any, names: set[Any]) -> None:
    if name in names:
        raise ValidationException(INVALID + f"Duplicate index name: {name}")
    names.add(name)


def check_throughput_change(current: dict[str, Any], params: dict[str, Any]) -> None:
    """UpdateTable's ProvisionedThroughput against the table's `current` description: the same throughput again on a
    provisioned table changes nothing, which DynamoDB refuses."""
    wanted = params.get("ProvisionedThroughput")
    if (
        not isinstance(wanted, dict)
        or params.get("BillingMode") == "PAY_PER_REQUEST"
        or (current.get("BillingModeSummary") or {}).get("BillingMode") == "PAY_PER_REQUEST"
    ):
        return
    have = current.get("ProvisionedThroughput") or {}
    reads, writes = have.get("ReadCapacityUnits"), have.get("WriteCapacityUnits")
    if (wanted.get("ReadCapacityUnits"), wanted.get("WriteCapacityUnits")) == (reads, writes):
        raise ValidationException(
            "The provisioned throughput for the table will not change. The requested value equals the current value. "
            f"Current ReadCapacityUnits provisioned for the table: {reads}. Requested ReadCapacityUnits: {reads}. "
            f"Current WriteCapacityUnits provisioned for the table: {writes}. Requested WriteCapacityUnits: {writes}. "
            "Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
        )
