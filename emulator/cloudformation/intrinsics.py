"""CloudFormation's intrinsic functions and condition functions, resolved against a stack's values (pure).

Ref, Fn::GetAtt, Fn::Sub, Fn::Join, Fn::Select, Fn::Split, Fn::If, Fn::Equals, Fn::And, Fn::Or, Fn::Not,
Condition, Fn::FindInMap, Fn::GetAZs, Fn::ImportValue, Fn::Base64, Fn::Cidr, Fn::Length, Fn::ToJsonString;
AWS::NoValue removes the property or list item it stands for.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from eddy.emulator.cloudformation.errors import template_error

NO_VALUE = object()
_SUB_VARIABLE = re.compile(r"\$\{([^}]*)\}")
FUNCTIONS = (
    "Ref",
    "Condition",
    "Fn::GetAtt",
    "Fn::Sub",
    "Fn::Join",
    "Fn::Select",
    "Fn::Split",
    "Fn::If",
    "Fn::Equals",
    "Fn::And",
    "Fn::Or",
    "Fn::Not",
    "Fn::FindInMap",
    "Fn::GetAZs",
    "Fn::ImportValue",
    "Fn::Base64",
    "Fn::Cidr",
    "Fn::Length",
    "Fn::ToJsonString",
)


@dataclass
class Values:
    """What a stack's intrinsic functions read: its parameters, pseudo parameters, conditions, mappings, and
    (through callables) its resources' physical ids and attributes, other stacks' exports, a region's AZs."""

    parameters: dict[str, Any]
    conditions: dict[str, bool] = field(default_factory=dict)
    mappings: dict[str, Any] = field(default_factory=dict)
    ref: Callable[[str], Any] = lambda name: _unresolved(name)
    get_att: Callable[[str, str], Any] = lambda name, attribute: _unresolved(name)
    import_value: Callable[[str], Any] = lambda name: _unresolved(name)
    azs: Callable[[str], list[str]] = lambda region: []
    region: str = "us-east-1"


def _unresolved(name: str) -> Any:
    raise template_error(f"Unresolved resource dependencies [{name}] in the Resources block of the template")


def resolve(value: Any, values: Values) -> Any:
    """`value` with every intrinsic function in it evaluated; NO_VALUE where AWS::NoValue removed it all."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((name, argument),) = value.items()
            if name in FUNCTIONS and name != "Condition":
                return _function(name, argument, values)
        resolved = {key: resolve(item, values) for key, item in value.items()}
        return {key: item for key, item in resolved.items() if item is not NO_VALUE}
    if isinstance(value, list):
        return [item for item in (resolve(item, values) for item in value) if item is not NO_VALUE]
    return value


def _function(name: str, argument: Any, values: Values) -> Any:
    if name == "Ref":
        if argument == "AWS::NoValue":
            return NO_VALUE
        if argument in values.parameters:
            return values.parameters[argument]
        return values.ref(argument)
    if name == "Fn::GetAtt":
        parts = argument.split(".", 1) if isinstance(argument, str) else argument
        if not isinstance(parts, list) or len(parts) != 2:
            raise template_error("Template error: every Fn::GetAtt object requires two non-empty parameters")
        return values.get_att(parts[0], str(resolve(parts[1], values)))
    if name == "Fn::If":
        if not isinstance(argument, list) or len(argument) != 3:
            raise template_error("Fn::If requires a list argument with three elements")
        chosen = argument[1] if condition(argument[0], values) else argument[2]
        return resolve(chosen, values)
    if name in ("Fn::Equals", "Fn::And", "Fn::Or", "Fn::Not"):
        return evaluate({name: argument}, values)
    resolved = resolve(argument, values) if name != "Fn::Sub" else argument
    return _VALUE_FUNCTIONS[name](resolved, values)


def _sub(argument: Any, values: Values) -> str:
    if isinstance(argument, list):
        text, variables = argument[0], {key: resolve(item, values) for key, item in argument[1].items()}
    else:
        text, variables = argument, {}
    if not isinstance(text, str):
        raise template_error("Fn::Sub requires a string or a list of a string and a map")

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("!"):
            return "${" + name[1:] + "}"
        if name in variables:
            found = variables[name]
        elif name in values.parameters:
            found = values.parameters[name]
        elif "." in name and not name.startswith("AWS::"):
            resource, attribute = name.split(".", 1)
            found = values.get_att(resource, attribute)
        else:
            found = values.ref(name)
        return ",".join(found) if isinstance(found, list) else str(found)

    return _SUB_VARIABLE.sub(replace, text)


def _join(argument: Any, values: Values) -> str:
    if not (isinstance(argument, list) and len(argument) == 2 and isinstance(argument[1], list)):
        raise template_error(
            "every Fn::Join object requires two parameters, (1) a string delimiter and (2) a "
            "list of strings to be joined or a function that returns a list of strings"
        )
    return str(argument[0]).join(_text(item) for item in argument[1])


def _select(argument: Any, values: Values) -> Any:
    index, items = int(argument[0]), argument[1]
    if not isinstance(items, list) or not 0 <= index < len(items):
        raise template_error("Fn::Select cannot select nonexistent value at index " + str(index))
    return items[index]


def _find_in_map(argument: Any, values: Values) -> Any:
    name, top, second = (str(part) for part in argument[:3])
    try:
        return values.mappings[name][top][second]
    except (KeyError, TypeError):
        if len(argument) > 3 and isinstance(argument[3], dict) and "DefaultValue" in argument[3]:
            return argument[3]["DefaultValue"]
        raise template_error(f"Unable to get mapping for {name}::{top}::{second}") from None


def _cidr(argument: Any, values: Values) -> list[str]:
    block, count, bits = str(argument[0]), int(argument[1]), int(argument[2])
    network = ipaddress.ip_network(block, strict=False)
    subnets = network.subnets(new_prefix=network.max_prefixlen - bits)
    return [str(subnet) for _, subnet in zip(range(count), subnets)]


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_VALUE_FUNCTIONS: dict[str, Callable[[Any, Values], Any]] = {
    "Fn::Sub": _sub,
    "Fn::Join": _join,
    "Fn::Select": _select,
    "Fn::Split": lambda argument, values: str(argument[1]).split(str(argument[0])),
    "Fn::FindInMap": _find_in_map,
    "Fn::GetAZs": lambda argument, values: values.azs(argument or values.region),
    "Fn::ImportValue": lambda argument, values: values.import_value(str(argument)),
    "Fn::Base64": lambda argument, values: base64.b64encode(str(argument).encode()).decode(),
    "Fn::Cidr": _cidr,
    "Fn::Length": lambda argument, values: len(argument),
    "Fn::ToJsonString": lambda argument, values: json.dumps(argument, separators=(",", ":")),
}


def evaluate(expression: Any, values: Values) -> bool:
    """A condition function's value (Fn::Equals, Fn::And, Fn::Or, Fn::Not, Condition)."""
    if isinstance(expression, dict) and len(expression) == 1:
        ((name, argument),) = expression.items()
        if name == "Condition":
            return condition(argument, values)
        if name == "Fn::Equals":
            left, right = (resolve(item, values) for item in argument)
            return _text(left) == _text(right)
        if name == "Fn::And":
            return all(evaluate(item, values) for item in argument)
        if name == "Fn::Or":
            return any(evaluate(item, values) for item in argument)
        if name == "Fn::Not":
            return not evaluate(argument[0], values)
    if isinstance(expression, bool):
        return expression
    raise template_error(f"Conditions can only be boolean operations on parameters and other conditions: {expression}")


def condition(name: Any, values: Values) -> bool:
    if not isinstance(name, str) or name not in values.conditions:
        raise template_error(f"Unresolved condition dependency {name}")
    return values.conditions[name]


def evaluate_conditions(declared: dict[str, Any], values: Values) -> dict[str, bool]:
    """Every condition of a template's Conditions section (one may name another: evaluated in need order)."""
    done: dict[str, bool] = {}
    visiting: set[str] = set()

    class _Lookup(dict):  # noqa: N801 - a dict that evaluates a condition the first time it is asked for
        def __contains__(self, name: object) -> bool:
            return name in declared

        def __getitem__(self, name: str) -> bool:
            if name not in done:
                if name in visiting:
                    raise template_error(f"Circular condition dependency: {name}")
                visiting.add(name)
                done[name] = evaluate(declared[name], values)
            return done[name]

    values.conditions = _Lookup()
    for name in declared:
        values.conditions[name]
    values.conditions = dict(done)
    return values.conditions


def references(value: Any) -> set[str]:
    """The names `value` refers to (Ref, Fn::GetAtt, Fn::Sub's variables): resources, parameters, pseudo ones."""
    return {entity if entity.startswith("AWS::") else entity.split(".", 1)[0] for entity in entities(value)}


def entities(value: Any) -> set[str]:
    """What `value` refers to as a change set names it: a Ref's name ("Bucket", "AWS::Region"), an attribute as
    "<name>.<attribute>" (Fn::GetAtt, Fn::Sub's ${Bucket.Arn})."""
    found: set[str] = set()
    if isinstance(value, dict):
        if len(value) == 1:
            ((name, argument),) = value.items()
            if name == "Ref" and isinstance(argument, str):
                return {argument}
            if name == "Fn::GetAtt":
                parts = argument.split(".", 1) if isinstance(argument, str) else argument
                if isinstance(parts, list) and parts and isinstance(parts[0], str):
                    return {".".join(str(part) for part in parts[:2])}
                return set()
            if name == "Fn::Sub":
                text = argument[0] if isinstance(argument, list) else argument
                local = set(argument[1]) if isinstance(argument, list) and len(argument) > 1 else set()
                for variable in _SUB_VARIABLE.findall(text if isinstance(text, str) else ""):
                    if not variable.startswith("!") and variable.split(".", 1)[0] not in local:
                        found.add(variable)
                if isinstance(argument, list) and len(argument) > 1:
                    found |= entities(argument[1])
                return found
        for item in value.values():
            found |= entities(item)
    elif isinstance(value, list):
        for item in value:
            found |= entities(item)
    return found
