"""CreateTable's definition held to DynamoDB's rules that moto lets through, in dynalite's order (its tests were written
against DynamoDB: test/createTable.js) and words:
- billing: PAY_PER_REQUEST takes no ProvisionedThroughput, for the table or any of its global secondary indexes
  ("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when
  BillingMode is PAY_PER_REQUEST"; "... ProvisionedThroughput should not be specified for index: <name> when
  BillingMode is PAY_PER_REQUEST");
- then, the key schema read (dynamodb_api's own rules), indexes: a local secondary index only on a table with a sort
  key ("... Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"), and
  no two indexes, local or global, with one name ("... Duplicate index name: <name>").
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.errors import ValidationException

INVALID = "One or more parameter values were invalid: "


def check_billing(params: dict[str, Any]) -> None:
    if params.get("BillingMode") != "PAY_PER_REQUEST":
        return
    if params.get("ProvisionedThroughput") is not None:
        raise ValidationException(INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
                                            "BillingMode is PAY_PER_REQUEST")


def check_indexes(params: dict[str, Any]) -> None:
    local, global_ = params.get("LocalSecondaryIndexes"), params.get("GlobalSecondaryIndexes")
    names: set[Any] = set()
    if local:
        if len(params.get("KeySchema") or ()) != 2:
            raise ValidationException(INVALID + "Table KeySchema does not have a range key, which is required when "
                                                "specifying a LocalSecondaryIndex")
        for index in local:
            _once(index.get("IndexName"), names)
    for index in global_ or ():
        if params.get("BillingMode") == "PAY_PER_REQUEST" and index.get("ProvisionedThroughput") is not None:
            raise ValidationException(INVALID + f"ProvisionedThroughput should not be specified for index: "
                                                f"{index.get('IndexName')} when BillingMode is PAY_PER_REQUEST")
        _once(index.get("IndexName"), names)


def _once(name: Any, names: set[Any]) -> None:
    if name in names:
        raise ValidationException(INVALID + f"Duplicate index name: {name}")
    names.add(name)
