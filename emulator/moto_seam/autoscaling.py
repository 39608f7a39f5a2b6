"""moto's Application Auto Scaling, read: whether a DynamoDB table's (or index's) write capacity is auto scaled.

A replica of a PROVISIONED table can be added only when its write capacity is auto scaled: a scalable target on
`dynamodb:table:WriteCapacityUnits` (`dynamodb:index:WriteCapacityUnits` for an index) AND a scaling policy on it
(AWS, recorded: a bare target is refused like none).
"""

from __future__ import annotations

from moto.applicationautoscaling.models import applicationautoscaling_backends


def writes_autoscaled(account_id: str, region: str, table_name: str, index_name: str | None = None) -> bool:
    try:
        backend = applicationautoscaling_backends[account_id][region]
    except KeyError:
        return False
    resource_id = f"table/{table_name}" + (f"/index/{index_name}" if index_name else "")
    dimension = "dynamodb:index:WriteCapacityUnits" if index_name else "dynamodb:table:WriteCapacityUnits"
    if resource_id not in backend.targets.get(dimension, {}):
        return False
    return any(policy.resource_id == resource_id and policy.scalable_dimension == dimension
               for policy in backend.policies.values())
