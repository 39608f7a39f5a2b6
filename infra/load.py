"""`load_stack(path)`: a stack from a stack file, or from a SAM / CloudFormation template (recognised by its Resources)."""

from __future__ import annotations

from pathlib import Path

import yaml

from .sam import is_template, stack_from_template, template_loader
from .stack import Stack, StackError, parse_stack


def load_stack(path: str | Path) -> Stack:
    """A stack from a stack file, or from a SAM / CloudFormation template (recognised by its Resources)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise StackError(f"{path}: cannot read it: {error.strerror}") from None
    try:
        document = yaml.load(text, Loader=template_loader())
    except yaml.YAMLError as error:
        raise StackError(f"{path}: not valid YAML: {error}") from None
    if is_template(document):
        return stack_from_template(document, source=str(path), base_dir=path.parent)
    return parse_stack(document, source=str(path), base_dir=path.parent)
