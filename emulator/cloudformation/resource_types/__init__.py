"""The resource types a stack creates through Eddy's own APIs (each module one service's types); `served` maps a
type name to what creates, updates and deletes it."""

from __future__ import annotations

from eddy.emulator.cloudformation.resource_types.base import ResourceType
from eddy.emulator.cloudformation.resource_types import (dynamodb, events_streams, iam, lambda_functions, logs_ssm,
                                                          messaging, s3)

served: dict[str, ResourceType] = {
    kind.type_name: kind
    for module in (dynamodb, events_streams, iam, lambda_functions, logs_ssm, messaging, s3)
    for kind in module.TYPES
}
