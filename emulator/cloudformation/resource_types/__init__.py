"""The resource types a stack creates through Eddy's own APIs (each module one service's types); `served` maps a
type name to what creates, updates and deletes it, `kind_of` also knows custom resources (Custom::<name>)."""

from __future__ import annotations

import importlib

from eddy.emulator.cloudformation.resource_types.base import ResourceType
from eddy.emulator.cloudformation.resource_types.custom import CustomResource, is_custom

#: the modules of this package that serve types, one service's each (its TYPES)
SERVICES = (
    "dynamodb",
    "ecr_cdk",
    "events_streams",
    "iam",
    "lambda_functions",
    "lambda_versions",
    "logs_ssm",
    "messaging",
    "nested_stacks",
    "s3",
)

served: dict[str, ResourceType] = {
    kind.type_name: kind for name in SERVICES for kind in importlib.import_module(f"{__name__}.{name}").TYPES
}


def kind_of(type_name: str) -> ResourceType | None:
    """What creates, updates and deletes a resource of `type_name`; None for a type Eddy does not serve."""
    if is_custom(type_name):
        return CustomResource(type_name)
    return served.get(type_name)
