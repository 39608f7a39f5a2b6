"""Publish's and PublishBatch's MessageAttributes checked as SNS checks them, refused in its recorded words
(LocalStack's AWS-validated tests/aws/services/sns/test_sns.snapshot.json, TestSNSSubscriptionSQS::
test_empty_or_wrong_message_attributes and ::test_message_attributes_prefixes; pinned by
tests/emulator/api/sns/test_message_attributes.py). moto checks fewer, and answers InvalidParameter where SNS answers
ParameterValueInvalid.

Each attribute in the request's order, its name first (the SNS Developer Guide, "Amazon SNS message attributes": up to
256 bytes of letters, digits, "-", "_" and ".", not starting or ending with "." nor holding ".."), then its DataType
(required; String, Number or Binary, alone or followed by "." and a custom suffix of at least one character), then
its value (StringValue for String and Number types, BinaryValue for Binary ones, not empty). A PublishBatch is
refused whole for one entry's attribute, in the same words, as SNS refused it.
"""

from __future__ import annotations

import base64
import binascii
import re
import string

from eddy.emulator.api.sns import Params, Refused

NAME_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-_.")
MAX_NAME_BYTES = 256
DATA_TYPES = ("String", "Number", "Binary")
CUSTOM_TYPE = re.compile(r"(String|Number|Binary)\..+", re.DOTALL)
ENTRY = re.compile(r"MessageAttributes\.entry\.(\d+)\.(Name|Value\.DataType|Value\.StringValue|Value\.BinaryValue)")


def _refused(message: str) -> Refused:
    return Refused("ParameterValueInvalid", message)


def attributes_of(params: Params) -> list[dict[str, str]]:
    """A Publish's (or a batch entry's) message attributes in the request's order, each as its members sent
    (Name, DataType, StringValue, BinaryValue; the ones sent only)."""
    attributes: dict[int, dict[str, str]] = {}
    for name, value in params.items():
        found = ENTRY.fullmatch(name)
        if found:
            attributes.setdefault(int(found.group(1)), {})[found.group(2).removeprefix("Value.")] = value
    return [attributes[number] for number in sorted(attributes)]


def check(params: Params, batch_position: int | None = None) -> None:
    """Refused as SNS refuses the first attribute it does not take; `batch_position`, a PublishBatch entry's
    (1-based), names the entry in a ValidationError."""
    for attribute in attributes_of(params):
        name = attribute.get("Name", "")
        if not name:
            continue  # no recording of SNS's answer: moto's
        check_name(name)
        data_type = attribute.get("DataType")
        if data_type is None:
            where = (f"publishBatchRequestEntries.{batch_position}.member." if batch_position is not None else "")
            raise Refused(
                "ValidationError",
                f"1 validation error detected: Value null at '{where}messageAttributes.{name}.member.dataType' "
                "failed to satisfy constraint: Member must not be null",
            )
        _check_value(name, data_type, attribute)


def check_name(name: str) -> None:
    if len(name.encode()) > MAX_NAME_BYTES:
        raise _refused("Length of message attribute name must be less than 256 bytes.")
    if name.startswith("."):
        raise _refused("Invalid message attribute name starting with character '.' was found.")
    if name.endswith("."):
        raise _refused("Invalid message attribute name ending with character '.' was found.")
    for index, character in enumerate(name):
        if character not in NAME_CHARACTERS:
            raise _refused(
                f"Invalid non-alphanumeric character '#x{ord(character):X}' was found in the message attribute "
                "name. Can only include alphanumeric characters, hyphens, underscores, or dots."
            )
        if character == "." and name[index - 1] == ".":
            raise _refused("Message attribute name can not have successive '.' character.")


def _check_value(name: str, data_type: str, attribute: dict[str, str]) -> None:
    if data_type not in DATA_TYPES and not CUSTOM_TYPE.fullmatch(data_type):
        raise _refused(
            f"The message attribute '{name}' has an invalid message attribute type, the set of supported type "
            "prefixes is Binary, Number, and String."
        )
    empty = _refused(
        f"The message attribute '{name}' must contain non-empty message attribute value for message attribute "
        f"type '{data_type}'."
    )
    field = "Binary" if data_type.startswith("Binary") else "String"
    if "StringValue" not in attribute and "BinaryValue" not in attribute:
        raise empty
    if f"{field}Value" not in attribute:
        raise _refused(f"The message attribute '{name}' with type '{data_type}' must use field '{field}'.")
    if not _value(attribute[f"{field}Value"], binary=field == "Binary"):
        raise empty


def _value(text: str, binary: bool) -> str | bytes:
    if not binary:
        return text
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        return text  # not base64: not empty (moto answers it)
