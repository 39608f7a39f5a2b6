"""The order of a stack's resources: each after what it needs (DependsOn, Ref, Fn::GetAtt, Fn::Sub), deletion
the other way round; unknown names and cycles refused as CloudFormation refuses them."""

from __future__ import annotations

from typing import Any

from eddy.emulator.cloudformation.errors import ValidationError, template_error
from eddy.emulator.cloudformation.intrinsics import references

PSEUDO_PARAMETERS = (
    "AWS::AccountId",
    "AWS::Region",
    "AWS::StackName",
    "AWS::StackId",
    "AWS::Partition",
    "AWS::URLSuffix",
    "AWS::NotificationARNs",
    "AWS::NoValue",
)


def dependencies(resources: dict[str, Any], parameters: dict[str, Any]) -> dict[str, set[str]]:
    """Each resource's resources it needs; a name that is none of a resource, a parameter or a pseudo parameter
    is the template's error."""
    needs: dict[str, set[str]] = {}
    unresolved: set[str] = set()
    for logical_id, resource in resources.items():
        depends_on = resource.get("DependsOn", [])
        depends_on = [depends_on] if isinstance(depends_on, str) else list(depends_on)
        for name in depends_on:
            if name not in resources:
                raise template_error(
                    f"Unresolved resource dependencies [{name}] in the Resources block of the template"
                )
        named = references({key: value for key, value in resource.items() if key != "DependsOn"})
        for name in named:
            if name not in resources and name not in parameters and name not in PSEUDO_PARAMETERS:
                unresolved.add(name)
        needs[logical_id] = {name for name in named | set(depends_on) if name in resources}
    if unresolved:
        raise template_error(
            f"Unresolved resource dependencies [{', '.join(sorted(unresolved))}] in the Resources block of the template"
        )
    return needs


def creation_order(needs: dict[str, set[str]]) -> list[str]:
    """The resources in an order where each comes after everything it needs (template order among equals)."""
    order: list[str] = []
    placed: set[str] = set()
    remaining = list(needs)
    while remaining:
        ready = [name for name in remaining if needs[name] <= placed]
        if not ready:
            raise ValidationError(f"Circular dependency between resources: [{', '.join(sorted(remaining))}]")
        for name in ready:
            order.append(name)
            placed.add(name)
        remaining = [name for name in remaining if name not in placed]
    return order
