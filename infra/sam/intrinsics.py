"""Names, ARNs and CloudFormation's intrinsic functions and conditions, evaluated as the template is read."""

from __future__ import annotations

import base64
import re
from functools import partial
from typing import Any, Callable

from .vocabulary import (
    _NAMED,
    _NO_VALUE,
    _SUB_VARIABLE,
    _comparable,
    _describe,
    _expect,
    _problem,
    _Problems,
    _StreamOf,
)


class Intrinsics:
    """The half of the converter that evaluates values; _Template supplies the sections it reads."""

    # -- names, ARNs and intrinsic functions

    def name_of(self, logical_id: str, path: str) -> str:
        """The physical name of a table, function, queue, topic or bucket of the template."""
        if logical_id in self.names:
            return self.names[logical_id]
        kind, resource_type = self._kind(logical_id)
        if kind not in _NAMED:
            raise _problem(path, f"{logical_id} ({resource_type}) is not a resource Eddy creates, so it has no value here")
        if not self._created(logical_id):
            raise _problem(path, f"{logical_id} is not created: its Condition is false")
        if logical_id in self.naming:
            raise _problem(path, f"the name of {logical_id} depends on itself")
        self.naming.add(logical_id)
        try:
            at = f"Resources.{logical_id}.Properties"
            prop = _NAMED[kind].name_property
            given = self.get(self._properties(logical_id), prop, at)
            name = logical_id if given is None else self._text(given, f"{at}.{prop}")
        finally:
            self.naming.discard(logical_id)
        self.names[logical_id] = name
        return name

    def arn(self, kind: str, name: str) -> str:
        return _NAMED[kind].arn.format(partition=self.pseudo["AWS::Partition"], region=self.pseudo["AWS::Region"],
                                  account=self.pseudo["AWS::AccountId"], name=name)

    def resolve(self, value: Any, path: str) -> Any:
        """The value with every intrinsic function evaluated."""
        if isinstance(value, dict):
            if len(value) == 1:
                key, argument = next(iter(value.items()))
                if key == "Ref" or key.startswith("Fn::"):
                    return self._intrinsic(key, argument, f"{path}.{key}")
            resolved = {key: self.resolve(item, f"{path}.{key}") for key, item in value.items()}
            return {key: item for key, item in resolved.items() if item is not _NO_VALUE}
        if isinstance(value, list):
            items = [self.resolve(item, f"{path}.{position}") for position, item in enumerate(value)]
            return [item for item in items if item is not _NO_VALUE]
        return value

    def _intrinsic(self, key: str, argument: Any, path: str) -> Any:
        evaluate = {
            "Ref": self._ref, "Fn::GetAtt": self._get_att, "Fn::Sub": self._sub, "Fn::Join": self._join,
            "Fn::Select": self._select, "Fn::Split": self._split, "Fn::If": self._if, "Fn::Equals": self._equals,
            "Fn::Not": self._not, "Fn::And": partial(self._all_or_any, all), "Fn::Or": partial(self._all_or_any, any),
            "Fn::FindInMap": self._find_in_map, "Fn::Base64": self._base64, "Fn::GetAZs": self._get_azs,
            "Fn::ImportValue": self._import_value,
        }.get(key)
        if evaluate is None:
            raise _problem(path, f"{key} is not an intrinsic function Eddy evaluates")
        return evaluate(argument, path)

    def _text(self, value: Any, path: str) -> str:
        if isinstance(value, _StreamOf):
            raise _problem(path, f"the stream ARN of {value.logical_id} is known only once the table exists: "
                                 "it can name a mapping's source (Stream, EventSourceArn), nothing else")
        if isinstance(value, (str, int, float)):
            return _comparable(value)
        raise _problem(path, f"expected text, got {_describe(value)}")

    def _ref(self, argument: Any, path: str) -> Any:
        name = _expect(argument, str, path, "the name of a parameter or resource")
        if name == "AWS::NoValue":
            return _NO_VALUE
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.parameters:
            declared = self.parameters[name]
            if not isinstance(declared, dict) or "Default" not in declared:
                raise _problem(path, f"parameter {name!r} has no Default (Eddy takes no parameter values: give it one)")
            default, kind = declared["Default"], str(declared.get("Type", ""))
            if kind == "CommaDelimitedList" or kind.startswith("List<"):
                return [part.strip() for part in str(default).split(",")]
            return default
        if name in self.resources:
            if self._kind(name)[0] == "topic":  # as CloudFormation: !Ref of a topic is its ARN
                return self._get_att([name, "TopicArn"], path)
            return self.name_of(name, path)
        raise _problem(path, f"no parameter or resource named {name!r}")

    def _get_att(self, argument: Any, path: str) -> Any:
        argument = self.resolve(argument, path)
        if not (isinstance(argument, list) and len(argument) == 2 and all(isinstance(part, str) for part in argument)):
            raise _problem(path, "Fn::GetAtt takes a resource and an attribute: [Resource, Attribute] or Resource.Attribute")
        logical_id, attribute = argument
        if logical_id not in self.resources:
            raise _problem(path, f"no resource named {logical_id!r}")
        kind, resource_type = self._kind(logical_id)
        if kind not in _NAMED:
            raise _problem(path, f"{logical_id} ({resource_type}) is not a resource Eddy creates, so it has no {attribute}")
        attributes = _NAMED[kind].attributes
        if attribute not in attributes:
            raise _problem(path, f"Eddy knows these attributes of {logical_id} ({resource_type}): {', '.join(attributes)}, "
                                 f"not {attribute!r}")
        gives = attributes[attribute]
        name = self.name_of(logical_id, path)
        if gives == "stream":
            return _StreamOf(name, logical_id)
        return name if gives == "name" else self.arn(kind, name)

    def _sub(self, argument: Any, path: str) -> str:
        if isinstance(argument, list) and len(argument) == 2 and isinstance(argument[1], dict):
            text, variables = argument
        else:
            text, variables = argument, {}
        _expect(text, str, path, "text, or [text, {variables}]")

        def value_of(match: re.Match) -> str:
            name = match.group(1).strip()
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return self._text(self.resolve(variables[name], f"{path}.1.{name}"), f"{path}.1.{name}")
            if "." in name:
                return self._text(self._get_att(name.split(".", 1), path), path)
            return self._text(self._ref(name, path), path)

        return _SUB_VARIABLE.sub(value_of, text)

    def _pair(self, argument: Any, path: str, usage: str) -> list:
        argument = self.resolve(argument, path)
        if not (isinstance(argument, list) and len(argument) == 2):
            raise _problem(path, f"expected {usage}")
        return argument

    def _join(self, argument: Any, path: str) -> str:
        delimiter, items = self._pair(argument, path, "[delimiter, [values]]")
        _expect(delimiter, str, f"{path}.0", "the delimiter")
        _expect(items, list, f"{path}.1", "a list of values")
        return delimiter.join(self._text(item, f"{path}.1.{position}") for position, item in enumerate(items))

    def _select(self, argument: Any, path: str) -> Any:
        index, items = self._pair(argument, path, "[index, [values]]")
        _expect(items, list, f"{path}.1", "a list of values")
        if not str(index).isdigit() or int(index) >= len(items):
            raise _problem(f"{path}.0", f"no item {index!r} in a list of {len(items)}")
        return items[int(index)]

    def _split(self, argument: Any, path: str) -> list[str]:
        delimiter, text = self._pair(argument, path, "[delimiter, text]")
        _expect(delimiter, str, f"{path}.0", "the delimiter")
        return self._text(text, f"{path}.1").split(delimiter)

    def _if(self, argument: Any, path: str) -> Any:
        if not (isinstance(argument, list) and len(argument) == 3):
            raise _problem(path, "expected [condition name, value if true, value if false]")
        branch = 1 if self._truth_of(argument[0], f"{path}.0") else 2
        return self.resolve(argument[branch], f"{path}.{branch}")

    def _equals(self, argument: Any, path: str) -> bool:
        first, second = self._pair(argument, path, "[value, value]")
        return _comparable(first) == _comparable(second)

    def _not(self, argument: Any, path: str) -> bool:
        _expect(argument, list, path, "[condition]")
        if len(argument) != 1:
            raise _problem(path, "expected [condition]")
        return not self._truth(argument[0], f"{path}.0")

    def _all_or_any(self, combine: Callable, argument: Any, path: str) -> bool:
        _expect(argument, list, path, "a list of conditions")
        return combine([self._truth(condition, f"{path}.{position}") for position, condition in enumerate(argument)])

    def _find_in_map(self, argument: Any, path: str) -> Any:
        argument = self.resolve(argument, path)
        if not (isinstance(argument, list) and len(argument) == 3):
            raise _problem(path, "expected [map, top-level key, second-level key]")
        value: Any = self.maps
        for depth, key in enumerate(argument):
            key = self._text(key, f"{path}.{depth}")
            if not isinstance(value, dict) or key not in value:
                raise _problem(f"{path}.{depth}", f"no {key!r} in Mappings.{'.'.join(map(str, argument[:depth]))}".rstrip("."))
            value = value[key]
        return value

    def _base64(self, argument: Any, path: str) -> str:
        return base64.b64encode(self._text(self.resolve(argument, path), path).encode()).decode()

    def _get_azs(self, argument: Any, path: str) -> list[str]:
        region = self.resolve(argument, path) or self.pseudo["AWS::Region"]
        return [f"{self._text(region, path)}{zone}" for zone in "abc"]

    def _import_value(self, argument: Any, path: str) -> Any:
        raise _problem(path, "values exported by other stacks are not available: Eddy reads this template alone")

    def _truth(self, expression: Any, path: str) -> bool:
        if isinstance(expression, dict) and list(expression) == ["Condition"]:
            return self._truth_of(expression["Condition"], f"{path}.Condition")
        value = self.resolve(expression, path)
        if not isinstance(value, bool):
            raise _problem(path, "a condition is Fn::Equals, Fn::Not, Fn::And, Fn::Or or {Condition: name}, "
                                 f"not {_describe(value)}")
        return value

    def _truth_of(self, name: Any, path: str) -> bool:
        """The value of the condition `name` of Conditions."""
        if not isinstance(name, str) or name not in self.conditions:
            raise _problem(path, f"no condition {name!r} in Conditions")
        if name not in self.truths:
            if name in self.weighing:
                raise _problem(path, f"condition {name!r} depends on itself")
            self.weighing.add(name)
            try:
                self.truths[name] = self._truth(self.conditions[name], f"Conditions.{name}")
            except _Problems as problems:
                raise _Problems(*((path, f"condition {name!r} cannot be evaluated: {where}: {message}")
                                  for where, message in problems.places)) from None
            finally:
                self.weighing.discard(name)
        return self.truths[name]
