"""Reading templates: YAML with CloudFormation's short-form tags (`!Ref`, `!GetAtt`, ...) as their long forms."""

from __future__ import annotations

from typing import Any

import yaml

from eddy.emulator.cloudformation.template import add_short_forms


class _TemplateLoader(yaml.SafeLoader):
    """yaml.SafeLoader that also reads `!Ref x` as {"Ref": "x"}, `!GetAtt A.B` as {"Fn::GetAtt": ["A", "B"]}, ..."""


add_short_forms(_TemplateLoader)


def template_loader() -> type[yaml.SafeLoader]:
    """The loader for stack files and templates alike: plain YAML loads as yaml.safe_load loads it."""
    return _TemplateLoader


def is_template(document: Any) -> bool:
    """A SAM / CloudFormation template rather than a stack file."""
    if not isinstance(document, dict):
        return False
    return isinstance(document.get("Resources"), dict) or "AWSTemplateFormatVersion" in document or "Transform" in document
