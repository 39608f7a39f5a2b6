"""A stack's parameters: the values given (or UsePreviousValue, or the Default) checked against the template's
Parameters section as CloudFormation checks them; list types split; SSM parameter types resolved from SSM."""

from __future__ import annotations

import re
from typing import Any, Callable

from eddy.emulator.cloudformation.errors import ValidationError

SSM_VALUE = re.compile(r"^AWS::SSM::Parameter::Value<(.+)>$")


def resolve(
    declared: dict[str, Any],
    given: list[dict[str, Any]],
    previous: dict[str, str] | None,
    ssm_value: Callable[[str], str],
) -> tuple[dict[str, str], dict[str, Any], dict[str, str]]:
    """(the values as given or defaulted, as strings; the values templates read, lists split; each SSM-typed
    parameter's ResolvedValue)."""
    names = {entry.get("ParameterKey") for entry in given}
    unknown = sorted(name for name in names if name not in declared)
    if unknown:
        raise ValidationError(f"Parameters: [{', '.join(unknown)}] do not exist in the template")
    supplied: dict[str, str] = {}
    for entry in given:
        name = entry["ParameterKey"]
        if entry.get("UsePreviousValue"):
            if previous is None or name not in previous:
                raise ValidationError(
                    f"Invalid input for parameter key {name}. Cannot specify usePreviousValue "
                    "as true for a parameter key not in the previous template"
                )
            supplied[name] = previous[name]
        elif "ParameterValue" in entry:
            supplied[name] = entry["ParameterValue"]
    missing = [name for name, spec in declared.items() if name not in supplied and "Default" not in (spec or {})]
    if missing:
        raise ValidationError(f"Parameters: [{', '.join(missing)}] must have values")
    raw: dict[str, str] = {}
    values: dict[str, Any] = {}
    resolved: dict[str, str] = {}
    for name, spec in declared.items():
        spec = spec or {}
        text = supplied[name] if name in supplied else _default(spec["Default"])
        raw[name] = text
        kind = str(spec.get("Type", "String"))
        ssm = SSM_VALUE.match(kind)
        if ssm:
            resolved[name] = ssm_value(text)
            kind, text = ssm.group(1), resolved[name]
        _check(name, spec, kind, text)
        values[name] = [part.strip() for part in text.split(",")] if _is_list(kind) else text
    return raw, values, resolved


def _default(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _is_list(kind: str) -> bool:
    return kind == "CommaDelimitedList" or kind.startswith("List<")


def _check(name: str, spec: dict[str, Any], kind: str, text: str) -> None:
    items = [part.strip() for part in text.split(",")] if _is_list(kind) else [text]
    for item in items:
        if kind in ("Number", "List<Number>"):
            try:
                number = float(item)
            except ValueError:
                raise ValidationError(f"Parameter '{name}' must be a number.") from None
            if "MinValue" in spec and number < float(spec["MinValue"]):
                raise ValidationError(f"Parameter '{name}' must be a number not less than {spec['MinValue']}")
            if "MaxValue" in spec and number > float(spec["MaxValue"]):
                raise ValidationError(f"Parameter '{name}' must be a number not greater than {spec['MaxValue']}")
        allowed = spec.get("AllowedValues")
        if allowed is not None and item not in [_default(value) for value in allowed]:
            raise ValidationError(f"Parameter '{name}' must be one of AllowedValues")
        pattern = spec.get("AllowedPattern")
        if pattern is not None and not re.fullmatch(str(pattern), item):
            raise ValidationError(f"Parameter '{name}' must match pattern {pattern}")
        if "MinLength" in spec and len(item) < int(spec["MinLength"]):
            raise ValidationError(f"Parameter '{name}' must contain at least {spec['MinLength']} characters")
        if "MaxLength" in spec and len(item) > int(spec["MaxLength"]):
            raise ValidationError(f"Parameter '{name}' must contain at most {spec['MaxLength']} characters")


def described(declared: dict[str, Any], raw: dict[str, str], resolved: dict[str, str]) -> list[dict[str, Any]]:
    """DescribeStacks' Parameters: NoEcho values as ****, SSM-typed ones with their ResolvedValue."""
    answer = []
    for name, spec in declared.items():
        entry: dict[str, Any] = {
            "ParameterKey": name,
            "ParameterValue": "****" if str((spec or {}).get("NoEcho", "")).lower() == "true" else raw[name],
        }
        if name in resolved:
            entry["ResolvedValue"] = resolved[name]
        answer.append(entry)
    return answer


def declarations(declared: dict[str, Any]) -> list[dict[str, Any]]:
    """ValidateTemplate's / GetTemplateSummary's Parameters."""
    answer = []
    for name, spec in declared.items():
        spec = spec or {}
        entry: dict[str, Any] = {
            "ParameterKey": name,
            "NoEcho": str(spec.get("NoEcho", "")).lower() == "true",
            "ParameterType": str(spec.get("Type", "String")),
            "ParameterConstraints": {},
        }
        if spec.get("AllowedValues"):
            entry["ParameterConstraints"]["AllowedValues"] = [_default(value) for value in spec["AllowedValues"]]
        if "Default" in spec:
            entry["DefaultValue"] = _default(spec["Default"])
        if "Description" in spec:
            entry["Description"] = spec["Description"]
        answer.append(entry)
    return answer
