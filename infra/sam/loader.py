"""Reading templates: YAML with CloudFormation's short-form tags (`!Ref`, `!GetAtt`, ...) as their long forms."""

from __future__ import annotations

from typing import Any, Callable

import yaml

# -- loading: CloudFormation's short forms ------------------------------------------------------------------

_SHORT_FORMS = {"Ref": "Ref", "Condition": "Condition"} | {
    name: f"Fn::{name}"
    for name in ("GetAtt", "Sub", "Join", "Select", "Split", "If", "Equals", "Not", "And", "Or", "FindInMap",
                 "Base64", "ImportValue", "GetAZs")
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


class _TemplateLoader(yaml.SafeLoader):
    """yaml.SafeLoader that also reads `!Ref x` as {"Ref": "x"}, `!GetAtt A.B` as {"Fn::GetAtt": ["A", "B"]}, ..."""


for _tag, _name in _SHORT_FORMS.items():
    _TemplateLoader.add_constructor(f"!{_tag}", _long_form(_name))


def template_loader() -> type[yaml.SafeLoader]:
    """The loader for stack files and templates alike: plain YAML loads as yaml.safe_load loads it."""
    return _TemplateLoader


def is_template(document: Any) -> bool:
    """A SAM / CloudFormation template rather than a stack file."""
    if not isinstance(document, dict):
        return False
    return isinstance(document.get("Resources"), dict) or "AWSTemplateFormatVersion" in document or "Transform" in document
