"""A template read as CloudFormation reads it: JSON, or YAML with the short-form tags (`!Ref x`, `!GetAtt A.B`,
`!Sub ...`) read as their long forms; its sections checked ("Template format error: ...")."""

from __future__ import annotations

import json
from typing import Any, Callable

import yaml

from eddy.emulator.cloudformation.errors import template_error

SECTIONS = (
    "AWSTemplateFormatVersion",
    "Description",
    "Metadata",
    "Parameters",
    "Rules",
    "Mappings",
    "Conditions",
    "Transform",
    "Resources",
    "Outputs",
    "Hooks",
)
_SHORT_FORMS = {"Ref": "Ref", "Condition": "Condition"} | {
    name: f"Fn::{name}"
    for name in (
        "GetAtt",
        "Sub",
        "Join",
        "Select",
        "Split",
        "If",
        "Equals",
        "Not",
        "And",
        "Or",
        "FindInMap",
        "Base64",
        "ImportValue",
        "GetAZs",
        "Cidr",
        "Length",
        "ToJsonString",
        "Transform",
    )
}


def _long_form(name: str) -> Callable[[yaml.SafeLoader, yaml.Node], dict[str, Any]]:
    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> dict[str, Any]:
        value: Any
        if isinstance(node, yaml.ScalarNode):
            value = loader.construct_scalar(node)
            if name == "Fn::GetAtt":
                value = value.split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {name: value}

    return construct


class _Loader(yaml.SafeLoader):
    """YAML as CloudFormation reads it: timestamps and dates stay strings (a template's values are strings)."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def add_short_forms(loader: type[yaml.SafeLoader]) -> None:
    """Teach a YAML loader CloudFormation's short forms: `!Ref x` as {"Ref": "x"}, `!GetAtt A.B` as
    {"Fn::GetAtt": ["A", "B"]}, ... (infra/'s stack files read templates with it too)."""
    for tag, name in _SHORT_FORMS.items():
        loader.add_constructor(f"!{tag}", _long_form(name))


add_short_forms(_Loader)


def parse(body: str) -> dict[str, Any]:
    """The template `body` holds, its sections checked."""
    text = body.strip()
    if text.startswith("{"):
        try:
            template = json.loads(text)
        except ValueError:
            raise template_error("JSON not well-formed.") from None
    else:
        try:
            template = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader with CloudFormation's tags
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            raise template_error(f"YAML not well-formed.{where}") from None
    if not isinstance(template, dict):
        raise template_error("unsupported structure.")
    check(template)
    return template


def check(template: dict[str, Any]) -> None:
    """A template's sections as CloudFormation checks them before it creates anything."""
    sam = "AWS::Serverless-2016-10-31" in transforms(template)
    unknown = [name for name in template if name not in SECTIONS and not (sam and name == "Globals")]
    if unknown:
        raise template_error(f"Invalid template property or properties [{', '.join(unknown)}]")
    version = template.get("AWSTemplateFormatVersion")
    if version is not None and str(version) != "2010-09-09":
        raise template_error(f"Unsupported template version: {version}")
    resources = template.get("Resources")
    if not isinstance(resources, dict) or not resources:
        raise template_error("At least one Resources member must be defined.")
    for logical_id, resource in resources.items():
        if not isinstance(resource, dict) or not isinstance(resource.get("Type"), str):
            raise template_error(f"[/Resources/{logical_id}] Every Resources object must contain a Type member.")
        for section in ("Properties", "Metadata"):
            if section in resource and not isinstance(resource[section], dict):
                raise template_error(f"[/Resources/{logical_id}/{section}] {section} must be an object")
    for section in ("Parameters", "Mappings", "Conditions", "Outputs"):
        if section in template and not isinstance(template[section], dict):
            raise template_error(f"{section} must be an object")


def transforms(template: dict[str, Any]) -> list[str]:
    """The template's declared transforms (Transform: a name or a list of names)."""
    declared = template.get("Transform")
    if declared is None:
        return []
    return [declared] if isinstance(declared, str) else [name for name in declared if isinstance(name, str)]
