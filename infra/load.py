"""`load_stack(path)`: a stack file, or a SAM / CloudFormation template (recognised by its Resources), and the
stack it is deployed as: `stack_name`, else the file's stem (template.yaml -> template)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from eddy.emulator.cloudformation.template import add_short_forms

from .stack import Stack, StackError, parse_stack
from .templates import Template, is_template, read


class _Loader(yaml.SafeLoader):
    """yaml.SafeLoader that also reads CloudFormation's short forms (`!Ref x` as {"Ref": "x"}, ...)."""


add_short_forms(_Loader)


def load_stack(path: str | Path, stack_name: str | None = None) -> Stack | Template:
    """A stack file's Stack, or a template file's Template, named for the stack it becomes."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise StackError(f"{path}: cannot read it: {error.strerror}") from None
    try:
        document = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader that knows !Ref, !GetAtt, ...
    except yaml.YAMLError as error:
        raise StackError(f"{path}: not valid YAML: {error}") from None
    name = stack_name or _stack_name(path)
    if is_template(document):
        return Template(read(text, str(path)), str(path), path.parent, name)
    stack = parse_stack(document, source=str(path), base_dir=path.parent)
    stack.stack_name = name
    return stack


def _stack_name(path: Path) -> str:
    """A stack name (a letter, then letters, digits and hyphens) from the file's stem."""
    name = "-".join(part for part in re.split(r"[^A-Za-z0-9]+", path.stem) if part)
    return name if name[:1].isalpha() else f"stack-{name}" if name else "stack"
