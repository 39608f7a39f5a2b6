"""The converter: a whole template into the plain stack document `parse_stack` validates."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from ..stack import Stack, StackError, parse_stack
from .intrinsics import Intrinsics
from .resources import Resources
from .vocabulary import (
    _KINDS,
    _NO_VALUE,
    _PSEUDO,
    _SAM_FUNCTION,
    _SAM_TRANSFORM,
    _UNSUPPORTED,
    _describe,
    _expect,
    _merged,
    _Origins,
    _problem,
    _Problems,
)

# -- the converter ------------------------------------------------------------------------------------------


class _Template(Intrinsics, Resources):
    def __init__(self, document: dict, source: str, pseudo: dict[str, str]) -> None:
        self.source = source
        self.pseudo = {**_PSEUDO, "AWS::StackName": Path(source).stem, **pseudo}
        self.parameters = self._section(document, "Parameters")
        self.conditions = self._section(document, "Conditions")
        self.maps = self._section(document, "Mappings")
        if document.get("Resources") is None:
            raise StackError(f"{source}: Resources: a template declares its resources under Resources")
        self.resources = self._section(document, "Resources")
        self.function_globals = self._section(self._section(document, "Globals"), "Function", "Globals.Function")
        transforms = document.get("Transform") or []
        self.transforms = [transform.get("Name", transform) if isinstance(transform, dict) else transform
                           for transform in (transforms if isinstance(transforms, list) else [transforms])]
        self.stack: dict[str, Any] = {"tables": {}, "functions": {}, "mappings": [], "queues": [], "topics": [], "buckets": []}
        self.unsupported: list[str] = []
        self.problems: list[tuple[str, str]] = []
        self.skipped_functions: set[str] = set()
        self.names: dict[str, str] = {}
        self.naming: set[str] = set()
        self.truths: dict[str, bool] = {}
        self.weighing: set[str] = set()

    def _section(self, document: dict, name: str, path: str = "") -> dict:
        section = document.get(name)
        if section is None:
            return {}
        if not isinstance(section, dict):
            raise StackError(f"{self.source}: {path or name}: expected a mapping, got {_describe(section)}")
        return section

    # -- the whole template

    def convert(self) -> dict[str, Any]:
        for transform in self.transforms:
            if transform != _SAM_TRANSFORM:
                self.unsupported.append(f"Transform {transform}: not applied by Eddy")
        later: list[Callable[[], None]] = []  # mappings, once every function, table and destination is known
        for logical_id in self.resources:
            self._attempt(partial(self._resource, logical_id, later))
        for step in later:
            self._attempt(step)
        if self.problems:
            raise StackError("\n".join(f"{self.source}: {path}: {message}" for path, message in self.problems))
        return self.stack

    def _attempt(self, step: Callable[[], None]) -> None:
        try:
            step()
        except _Problems as problems:
            self.problems.extend(problems.places)

    def _resource(self, logical_id: str, later: list[Callable[[], None]]) -> None:
        kind, resource_type = self._kind(logical_id)
        if not self._created(logical_id):
            return
        if kind is None:
            self.unsupported.append(f"{logical_id} ({resource_type}): {_UNSUPPORTED}")
            return
        at = f"Resources.{logical_id}.Properties"
        props = self._properties(logical_id)
        if kind == "table":
            self._table(logical_id, props, at)
        elif kind == "function":
            self._function(logical_id, resource_type, props, at, later)
        elif kind == "mapping":
            later.append(partial(self._event_source_mapping, logical_id, props, at))
        else:
            name = self.name_of(logical_id, at)
            self._add(self.stack[kind + "s"], name, kind, at)
            self.stack[kind + "s"].append(name)

    def _kind(self, logical_id: str) -> tuple[str | None, str]:
        resource = self.resources[logical_id]
        path = f"Resources.{logical_id}"
        _expect(resource, dict, path, "a mapping with a Type")
        resource_type = _expect(resource.get("Type"), str, f"{path}.Type", "a resource type such as AWS::DynamoDB::Table")
        return _KINDS.get(resource_type), resource_type

    def _created(self, logical_id: str) -> bool:
        condition = self.resources[logical_id].get("Condition")
        return condition is None or self._truth_of(condition, f"Resources.{logical_id}.Condition")

    def _properties(self, logical_id: str) -> dict:
        resource = self.resources[logical_id]
        props = _expect(resource.get("Properties") or {}, dict, f"Resources.{logical_id}.Properties", "a mapping")
        return _merged(self.function_globals, props) if resource["Type"] == _SAM_FUNCTION else props

    def _add(self, existing: Any, name: str, kind: str, path: str) -> None:
        if name in existing:
            raise _problem(path, f"a second {kind} named {name!r}")

    def get(self, props: dict, key: str, at: str) -> Any:
        """A property, evaluated; None when it is absent (or AWS::NoValue)."""
        if key not in props:
            return None
        value = self.resolve(props[key], f"{at}.{key}")
        return None if value is _NO_VALUE else value

    def _copy(self, props: dict, fields: dict[str, str], entry: dict, origins: _Origins, at: str) -> None:
        for prop, field in fields.items():
            value = self.get(props, prop, at)
            if value is not None:
                entry[field] = value
                origins[(field,)] = f"{at}.{prop}"

    def _validated(self, model: type[BaseModel], entry: dict, origins: _Origins) -> None:
        """The entry as the stack model takes it, or its problems at their places in the template."""
        try:
            model.model_validate(entry)
        except ValidationError as error:
            places = []
            for problem in error.errors():
                loc = tuple(problem["loc"])
                cut = max(length for length in range(len(loc) + 1) if loc[:length] in origins)
                path = ".".join([origins[loc[:cut]], *(str(part) for part in loc[cut:])])
                places.append((path, problem["msg"].removeprefix("Value error, ")))
            raise _Problems(*places) from None



def stack_from_template(document: Any, source: str = "template", base_dir: Path = Path("."),
                        pseudo: dict[str, str] | None = None) -> Stack:
    """The stack a SAM / CloudFormation template declares, as far as Eddy supports it (see `stack.unsupported`).

    `pseudo` overrides the pseudo parameters: {"AWS::Region": ..., "AWS::AccountId": ..., "AWS::Partition": ...,
    "AWS::StackName": ...}; a given region becomes the stack's region.
    """
    if not isinstance(document, dict):
        raise StackError(f"{source}: a template is a mapping with Resources")
    pseudo = dict(pseudo or {})
    unknown = set(pseudo) - {*_PSEUDO, "AWS::StackName"}
    if unknown:
        raise ValueError(f"not pseudo parameters Eddy sets: {', '.join(sorted(unknown))}")
    template = _Template(document, source, pseudo)
    plain = template.convert()
    if "AWS::Region" in pseudo:
        plain["region"] = pseudo["AWS::Region"]
    stack = parse_stack(plain, source, base_dir)
    stack.unsupported = template.unsupported
    return stack
