"""What a stack's intrinsic functions read (parameters, pseudo parameters, conditions, mappings, its resources'
physical ids and attributes, other stacks' exports), and what it gives others: its Outputs and Exports."""

from __future__ import annotations

from typing import Any, Callable

from eddy.emulator.cloudformation import intrinsics
from eddy.emulator.cloudformation.errors import ResourceFailed, ValidationError, template_error
from eddy.emulator.cloudformation.stacks import Stack


class Exports:
    """Every stack's exports, by account, region and name: (the exporting stack's id, the value)."""

    def __init__(self) -> None:
        self.exported: dict[tuple[str, str, str], tuple[str, str]] = {}
        self.importers: dict[tuple[str, str, str], set[str]] = {}

    def listed(self, account: str, region: str) -> list[dict[str, str]]:
        return [
            {"ExportingStackId": stack_id, "Name": name, "Value": value}
            for (owner, where, name), (stack_id, value) in sorted(self.exported.items())
            if (owner, where) == (account, region)
        ]

    def clear(self) -> None:
        self.exported.clear()
        self.importers.clear()


class StackValues:
    def __init__(
        self,
        stack: Stack,
        template: dict[str, Any],
        parameters: dict[str, Any],
        exports: Exports,
        azs: Callable[[str], list[str]],
        stack_names: Callable[[str], str],
    ) -> None:
        self.stack, self.exports, self.stack_names = stack, exports, stack_names
        pseudo = {
            "AWS::AccountId": stack.account,
            "AWS::Region": stack.region,
            "AWS::StackName": stack.name,
            "AWS::StackId": stack.stack_id,
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
            "AWS::NotificationARNs": list(stack.notification_arns),
        }
        self.parameter_names = dict(parameters)
        self.values = intrinsics.Values(
            parameters={**parameters, **pseudo},
            mappings=template.get("Mappings") or {},
            ref=self._ref,
            get_att=self._get_att,
            import_value=self._import,
            azs=azs,
            region=stack.region,
        )
        intrinsics.evaluate_conditions(template.get("Conditions") or {}, self.values)

    def holds(self, condition: Any) -> bool:
        return True if condition is None else intrinsics.condition(condition, self.values)

    def _resource(self, name: str) -> Any:
        resource = self.stack.resources.get(name)
        if resource is None or resource.physical_id is None:
            raise template_error(f"Unresolved resource dependencies [{name}] in the Resources block of the template")
        return resource

    def _ref(self, name: str) -> Any:
        return self._resource(name).physical_id

    def _get_att(self, name: str, attribute: str) -> Any:
        resource = self._resource(name)
        if attribute not in resource.attributes:
            raise template_error(
                f"Template error: resource {name} does not support attribute type {attribute} in Fn::GetAtt"
            )
        return resource.attributes[attribute]

    def _import(self, name: str) -> Any:
        key = (self.stack.account, self.stack.region, name)
        if key not in self.exports.exported:
            raise ResourceFailed(f"No export named {name} found.")
        self.exports.importers.setdefault(key, set()).add(self.stack.stack_id)
        self.stack.imports.add(name)
        return self.exports.exported[key][1]

    def outputs(self, declared: dict[str, Any]) -> list[dict[str, Any]]:
        """The Outputs whose condition holds, resolved; their exports registered (a name another stack exports
        already is refused)."""
        answer, exported = [], []
        for key, output in declared.items():
            if not self.holds(output.get("Condition")):
                continue
            entry: dict[str, Any] = {
                "OutputKey": key,
                "OutputValue": _text(intrinsics.resolve(output.get("Value"), self.values)),
            }
            if "Description" in output:
                entry["Description"] = output["Description"]
            if "Export" in output:
                name = str(intrinsics.resolve(output["Export"].get("Name"), self.values))
                owner = self.exports.exported.get((self.stack.account, self.stack.region, name))
                if owner is not None and owner[0] != self.stack.stack_id:
                    raise ValidationError(
                        f"Export with name {name} is already exported by stack {self.stack_names(owner[0])}"
                    )
                entry["ExportName"] = name
                exported.append((name, entry["OutputValue"]))
            answer.append(entry)
        self.release_exports(keep={name for name, _ in exported})
        for name, value in exported:
            self.exports.exported[(self.stack.account, self.stack.region, name)] = (self.stack.stack_id, value)
        return answer

    def exports_in_use(self) -> str | None:
        """Why this stack cannot be deleted: one of its exports is imported by another stack."""
        for (account, region, name), (stack_id, _) in self.exports.exported.items():
            users = self.exports.importers.get((account, region, name), set()) - {self.stack.stack_id}
            if stack_id == self.stack.stack_id and users:
                return f"Export {name} cannot be deleted as it is in use by {self.stack_names(sorted(users)[0])}"
        return None

    def release_exports(self, keep: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        for key, (stack_id, _) in list(self.exports.exported.items()):
            if stack_id == self.stack.stack_id and key[2] not in keep:
                del self.exports.exported[key]

    def release_imports(self) -> None:
        for name in self.stack.imports:
            self.exports.importers.get((self.stack.account, self.stack.region, name), set()).discard(
                self.stack.stack_id
            )
        self.stack.imports.clear()


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
