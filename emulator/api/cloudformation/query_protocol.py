"""AWS's query protocol as a server reads and writes it, driven by botocore's service model (CloudFormation's):
a form-encoded request (Action=CreateStack&Parameters.member.1.ParameterKey=...) read into the operation's
input as a dict, and an answer written as the operation's XML (<CreateStackResponse><CreateStackResult>...),
or an error as <ErrorResponse><Error><Type>Sender</Type><Code>...</Code><Message>...</Message></Error>.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any
from xml.sax.saxutils import escape

from botocore.model import ListShape, MapShape, OperationModel, Shape, StructureShape


def read_input(operation: OperationModel, form: dict[str, str]) -> dict[str, Any]:
    """The operation's input from a form's flat keys (members missing from the form are absent)."""
    shape = operation.input_shape
    return _structure(shape, form, "") if shape is not None else {}


def _value(shape: Shape, form: dict[str, str], key: str) -> Any:
    if isinstance(shape, StructureShape):
        return _structure(shape, form, key + ".")
    if isinstance(shape, ListShape):
        return _list(shape, form, key)
    if isinstance(shape, MapShape):
        return _map(shape, form, key)
    if key not in form:
        return None
    text = form[key]
    if shape.type_name == "boolean":
        return text.lower() == "true"
    if shape.type_name in ("integer", "long"):
        return int(text)
    if shape.type_name in ("double", "float"):
        return float(text)
    return text


def _structure(shape: StructureShape, form: dict[str, str], prefix: str) -> Any:
    found: dict[str, Any] = {}
    for name, member in shape.members.items():
        value = _value(member, form, prefix + member.serialization.get("name", name))
        if value is not None:
            found[name] = value
    if prefix and not found:
        return None
    return found


def _list(shape: ListShape, form: dict[str, str], key: str) -> list[Any] | None:
    if shape.serialization.get("flattened"):
        item_prefix = key + "."
    else:
        item_prefix = key + "." + shape.member.serialization.get("name", "member") + "."
    items, index = [], 1
    while True:
        value = _value(shape.member, form, f"{item_prefix}{index}")
        if value is None:
            break
        items.append(value)
        index += 1
    if not items and form.get(key) == "":  # an empty list is sent as the bare key
        return []
    return items or None


def _map(shape: MapShape, form: dict[str, str], key: str) -> dict[str, Any] | None:
    found, index = {}, 1
    while f"{key}.entry.{index}.key" in form:
        found[form[f"{key}.entry.{index}.key"]] = _value(shape.value, form, f"{key}.entry.{index}.value")
        index += 1
    return found or None


def write_output(operation: OperationModel, answer: dict[str, Any], namespace: str) -> bytes:
    """The operation's XML answer: <{Op}Response><{Op}Result>members</...><ResponseMetadata>."""
    shape = operation.output_shape
    result = ""
    if shape is not None:
        wrapper = shape.serialization.get("resultWrapper", f"{operation.name}Result")
        result = f"<{wrapper}>{_members(shape, answer)}</{wrapper}>"
    return (
        f'<{operation.name}Response xmlns="{namespace}">{result}'
        f"<ResponseMetadata><RequestId>{uuid.uuid4()}</RequestId></ResponseMetadata>"
        f"</{operation.name}Response>"
    ).encode()


def _members(shape: StructureShape, value: dict[str, Any]) -> str:
    parts = []
    for name, member in shape.members.items():
        if value.get(name) is None:
            continue
        tag = member.serialization.get("name", name)
        parts.append(f"<{tag}>{_xml(member, value[name])}</{tag}>")
    return "".join(parts)


def _xml(shape: Shape, value: Any) -> str:
    if isinstance(shape, StructureShape):
        return _members(shape, value)
    if isinstance(shape, ListShape):
        tag = shape.member.serialization.get("name", "member")
        return "".join(f"<{tag}>{_xml(shape.member, item)}</{tag}>" for item in value)
    if isinstance(shape, MapShape):
        return "".join(
            f"<entry><key>{escape(str(key))}</key><value>{_xml(shape.value, item)}</value></entry>"
            for key, item in value.items()
        )
    if shape.type_name == "boolean":
        return "true" if value else "false"
    if shape.type_name == "timestamp":
        moment = (
            value
            if isinstance(value, datetime.datetime)
            else datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
        )
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return escape(str(value))


def error_xml(code: str, message: str, sender: bool = True) -> bytes:
    """The query protocol's error answer."""
    return (
        f'<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error>'
        f"<Type>{'Sender' if sender else 'Receiver'}</Type><Code>{escape(code)}</Code>"
        f"<Message>{escape(message)}</Message></Error><RequestId>{uuid.uuid4()}</RequestId>"
        f"</ErrorResponse>"
    ).encode()
