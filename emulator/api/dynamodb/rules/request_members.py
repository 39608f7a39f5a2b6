"""Members of a request that DynamoDB words its own way, checked before any table is read (moto checks them after it
has found the table, one at a time, or in other words).

- Put/Update/DeleteItem's ReturnConsumedCapacity, ReturnValues and ReturnItemCollectionMetrics: every value none of
  the enum's is reported in one message, "2 validation errors detected: Value 'INVALID' at 'returnConsumedCapacity'
  failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value ...", the members
  in DynamoDB's order and each enum's values in AWS's order (dynalite's validations/putItem.js, deleteItem.js,
  updateItem.js and test/putItem.js "should return ValidationException for incorrect attributes", written against
  DynamoDB; the AWS-run conformance suite nubo-db/dynamodb-conformance, tests/tier3/validation-ordering: all of them
  reported together, for a table that does not exist).
- TagResource's, UntagResource's and ListTagsOfResource's ResourceArn not of a table's form: "Invalid TableArn:
  Invalid ResourceArn provided as input not-a-valid-arn" (the AWS-run conformance suite nubo-db/dynamodb-conformance,
  tests/tier2/tags/basic.test.ts, refuses 'not-a-valid-arn' with a ValidationException; the words are dynalite's
  validations/tagResource.js for a malformed table ARN, AWS's own for a string that is no ARN not recorded; moto
  answered 200 and did nothing);
- and before botocore's model is read (`check_before_model`), three answers AWS words otherwise than the model's
  constraints: CreateTable without TableName, "The parameter 'TableName' is required but was not present in the
  request"; an empty TableName where the model takes a table's name or ARN (min 1), "1 validation error detected: Value
  '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1" (not the 3 of a
  table's name); a Query's Limit under 1, "1 validation error detected: Value at 'Limit' failed to satisfy constraint:
  Member must have value greater than or equal to 1" (no value, capital L; Scan's is the model's "Value '0' at
  'limit'") (the conformance suite's tier3/error-messages/createTable, putItem, query.test.ts and
  validation-ordering/query.test.ts);
- Scan's Segment not less than its TotalSegments: "The Segment parameter is zero-based and must be less than
  parameter TotalSegments: Segment: 5 is not less than TotalSegments: 5" (the conformance suite's
  tier3/error-messages/scan.test.ts; dynalite's test/scan.js).
"""

from __future__ import annotations

import re
from typing import Any

from eddy.emulator.errors import ValidationException

CAPACITY = ("ReturnConsumedCapacity", ("INDEXES", "TOTAL", "NONE"))
VALUES = ("ReturnValues", ("ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"))
METRICS = ("ReturnItemCollectionMetrics", ("SIZE", "NONE"))
#: each operation's enum members, in the order DynamoDB reports them
TAGGING = frozenset({"TagResource", "UntagResource", "ListTagsOfResource"})
_TABLE_ARN = re.compile(r"arn:aws[a-z-]*:dynamodb:[^:]+:[0-9]+:table/[^/]{3,}")
ENUMS = {
    "PutItem": (CAPACITY, VALUES, METRICS),
    "DeleteItem": (CAPACITY, VALUES, METRICS),
    "UpdateItem": (CAPACITY, METRICS, VALUES),
}


def check(operation: str, params: dict[str, Any]) -> None:
    enums = ENUMS.get(operation)  # most operations have none: no list is made for them
    problems = enums and [
        f"Value '{params[member]}' at '{member[:1].lower() + member[1:]}' failed to satisfy constraint: Member "
        f"must satisfy enum value set: [{', '.join(allowed)}]"
        for member, allowed in enums
        if params.get(member) not in (None, *allowed)
    ]
    if problems:
        count = len(problems)
        raise ValidationException(f"{count} validation error{'s' if count > 1 else ''} detected: {'; '.join(problems)}")
    if (
        operation in TAGGING
        and isinstance(params.get("ResourceArn"), str)
        and not _TABLE_ARN.fullmatch(params["ResourceArn"])
    ):
        raise ValidationException(f"Invalid TableArn: Invalid ResourceArn provided as input {params['ResourceArn']}")
    if (
        operation == "Scan"
        and isinstance(params.get("Segment"), int)
        and isinstance(params.get("TotalSegments"), int)
        and params["Segment"] >= params["TotalSegments"]
    ):
        raise ValidationException(
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
            f"Segment: {params['Segment']} is not less than TotalSegments: "
            f"{params['TotalSegments']}"
        )


def check_before_model(operation: str, params: dict[str, Any]) -> None:
    """The answers AWS gives before, and otherwise than, the model's constraints (see the module's docstring)."""
    name = params.get("TableName")
    if operation == "CreateTable" and name is None:
        raise ValidationException("The parameter 'TableName' is required but was not present in the request")
    if name == "" and operation != "CreateTable":
        raise ValidationException(
            "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: "
            "Member must have length greater than or equal to 1"
        )
    limit = params.get("Limit")
    if operation == "Query" and type(limit) is int and limit < 1:
        raise ValidationException(
            "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member "
            "must have value greater than or equal to 1"
        )
