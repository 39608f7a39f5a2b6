"""DynamoDB's own rules for a request, beyond botocore's model, checked at the door before any table is read.

    check("BatchWriteItem", params)      # raises ValidationException in AWS's words, or returns: the request is valid

validation.py checks a request against botocore's model (types, required members, lengths where moto does not);
these modules hold the rules the service adds, one family each, in the order DynamoDB applies them:
- request_members.py: the members DynamoDB words its own way (Put/Update/DeleteItem's enums reported together,
  Scan's Segment against TotalSegments);
- request_collections.py: the sizes of a batch's and a transaction's collections (none empty, at most 25 writes in a
  batch, 100 actions in a transaction);
- numbers.py: a number as DynamoDB stores it (attribute_values.py rewrites the request's numbers so);
- item_keys.py: the rules that read a table's key attributes (a batch's items once each, AttributeUpdates off the
  key), once the table is found;
- projection_expressions.py: a ProjectionExpression's syntax ('Syntax error; token: "!", near: "!!"') and reserved
  words, in GetItem, Query, Scan, BatchGetItem and each Get of TransactGetItems;
- expression_parameters.py: expression and legacy (non-expression) parameters not mixed; ExpressionAttributeNames and
  ExpressionAttributeValues only with an expression, and each used by one;
- table_definitions.py: CreateTable's billing mode and throughput together, local secondary indexes only on a table
  with a sort key, one name per index;
- key_conditions.py: a Query's KeyConditionExpression as AWS reads it (names and values defined, key operators only,
  scalar values), checked by validation.py;
- time_to_live.py: UpdateTimeToLive against the table's current TTL (not enabled twice, not disabled when disabled,
  not on another attribute) and DescribeTimeToLive once TTL is off.
The rules that need a table (its key attributes, its TTL) take what they need from the caller, which reads moto.
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.api.dynamodb.rules import (
    expression_parameters,
    projection_expressions,
    request_collections,
    request_members,
    table_definitions,
)


def check(operation: str, params: dict[str, Any]) -> None:
    """Raise AWS's ValidationException for the first of DynamoDB's request rules `params` breaks (a request the
    model's checks have passed)."""
    request_members.check(operation, params)
    request_collections.check(operation, params)
    projection_expressions.check(operation, params)
    expression_parameters.check(operation, params)
    if operation in ("CreateTable", "UpdateTable"):
        table_definitions.check_billing(params)
