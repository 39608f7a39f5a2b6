"""What a shape's check reports (shape_checks/): the constraint breaches in AWS's words, the JSON reader's
SerializationException for a value of the wrong type, and Lambda's way of reporting a list of strings whole."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable

from botocore.model import Shape

from eddy.emulator.errors import SerializationException

_SCALARS = {
    "string": "String",
    "integer": "Integer",
    "long": "Long",
    "boolean": "Boolean",
    "double": "Double",
    "float": "Float",
    "blob": "ByteBuffer",
    "map": "Map",
    "list": "List",
    "structure": "Structure",
}
#: enums AWS lists in another order than botocore's model, as AWS answered (LocalStack's AWS-validated
#: TestLambdaURL::test_lambda_url_invalid_invoke_mode: "[RESPONSE_STREAM, BUFFERED]"; test_lambda_api.snapshot.json
#: TestLambdaRecursion::test_put_function_recursion_config_invalid_value, TestLambdaEventSourceMappings::
#: test_create_event_source_validation "invalid_starting_position")
ENUM_ORDER = {
    "InvokeMode": ("RESPONSE_STREAM", "BUFFERED"),
    "RecursiveLoop": ("Terminate", "Allow"),
    "EventSourcePosition": ("LATEST", "AT_TIMESTAMP", "TRIM_HORIZON"),
}
#: patterns AWS checks and words otherwise than botocore's (newer) model, as AWS answered: Lambda's tagging
#: operations' Resource (LocalStack's test_lambda_api.snapshot.json, TestLambdaTag::test_tag_exceptions
#: "invalid_arn_exception", TestLambdaTags::test_tag_exceptions "tag_lambda_invalidarn": layers, no network-connector)
PATTERN_AS_ANSWERED = {
    "TaggableResource": r"arn:(aws[a-zA-Z-]*):lambda:(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:\d{12}:"
    r"(function:[a-zA-Z0-9-_]+(:(\$LATEST|[a-zA-Z0-9-_]+))?|layer:([a-zA-Z0-9-_]+)|code-signing-config:csc-[a-z0-9]{17}|"
    r"event-source-mapping:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|"
    r"capacity-provider:[a-zA-Z0-9-_]+)",
}

Check = Callable[[Any, str, "Problems"], None]


class Problems(list):
    """The constraint breaches found so far, in AWS's words; `attribute_values_to_check`: an AttributeValue the
    shortcut (plain_attribute_values.py) did not pass, whose content DynamoDB's rules read."""

    attribute_values_to_check = False


@lru_cache(maxsize=None)
def compiled_pattern(pattern: str) -> re.Pattern[str]:  # Java's \p{L} \p{N} (\w) and \p{Z} in a class (Lambda's TagKey)
    return re.compile(
        pattern.replace(r"\p{L}", r"\w")
        .replace(r"\p{N}", r"\w")
        .replace(r"\p{Z}", " \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000")
    )


def member_name(path: str, member: str) -> str:
    """A member's name as AWS names it in a message: the first letter in lower case, after its parent's path."""
    member = member[:1].lower() + member[1:]
    return f"{path}.{member}" if path else member


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"'{str(value).lower()}'"
    if isinstance(value, (list, dict)):
        return "'" + _java(value) + "'"
    return f"'{value}'"


def _java(value: Any) -> str:
    """How AWS's Java side prints a value in a message: [a, b] and {k=v}."""
    if isinstance(value, list):
        return "[" + ", ".join(_java(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}={_java(item)}" for key, item in value.items()) + "}"
    return str(value)


def violation(problems: Problems, path: str, value: Any, constraint: str) -> None:
    problems.append(f"Value {_shown(value)} at '{path}' failed to satisfy constraint: {constraint}")


def type_error(shape: Shape, value: Any) -> SerializationException:
    if isinstance(value, dict):
        return SerializationException("Start of structure or map found where not expected")
    if isinstance(value, list):
        return SerializationException("Start of list found where not expected")
    token = (
        "BOOLEAN_VALUE"
        if isinstance(value, bool)
        else "NUMBER_VALUE"
        if isinstance(value, (int, float))
        else "STRING_VALUE"
    )
    if shape.type_name == "timestamp":  # AWS's JSON reader's words for a timestamp (X-Ray's answer, aws-sdk-js-v3#4343)
        return SerializationException(f"{token} can not be converted to milliseconds since epoch")
    return SerializationException(f"{token} cannot be converted to {_SCALARS.get(shape.type_name, shape.type_name)}")


def length(shape: Shape, value: Any, path: str, problems: Problems) -> None:
    """A value's length (a string's, a list's, a map's, a blob's bytes) against the shape's min and max."""
    check = length_check(shape)
    if check is not None:
        check(value, path, problems)


def length_check(shape: Shape) -> Check | None:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if low is None and high is None:
        return None

    def check(value: Any, path: str, problems: Problems) -> None:
        if low is not None and len(value) < low:
            shown = value if not isinstance(value, bytes) else "java.nio.HeapByteBuffer"
            violation(problems, path, shown, f"Member must have length greater than or equal to {low}")
        elif high is not None and len(value) > high:
            shown = value if not isinstance(value, bytes) else "java.nio.HeapByteBuffer"
            violation(problems, path, shown, f"Member must have length less than or equal to {high}")

    return check


def whole_list(member: Shape, strings: Check, value: list[Any], path: str, problems: Problems) -> None:
    """A list of strings as Lambda reports it when a member breaks a constraint: the whole list, with every
    constraint of its members (AWS-recorded: LocalStack's test_lambda_api.snapshot.json, TestLambdaFunction::
    test_create_lambda_exceptions "uppercase_architecture", TestLambdaLayer::test_layer_function_exceptions
    "add_layer_arn_without_version_exc": a pattern without the group the model wraps it in)."""
    broken = Problems()
    for index, element in enumerate(value, 1):
        strings(element, f"{path}.{index}.member", broken)
    if not broken:
        return
    enum = ENUM_ORDER.get(member.name, member.enum)
    constraints = [f"Member must satisfy enum value set: [{', '.join(enum)}]"] if enum else []
    if not enum:
        if member.metadata.get("max") is not None:
            constraints.append(f"Member must have length less than or equal to {member.metadata['max']}")
        if member.metadata.get("min") is not None:
            constraints.append(f"Member must have length greater than or equal to {member.metadata['min']}")
        if pattern := member.metadata.get("pattern"):
            shown = pattern[1:-1] if _one_group(pattern) else pattern
            constraints.append(f"Member must satisfy regular expression pattern: {shown}")
    violation(
        problems, path, value, f"Member must satisfy constraint: [{', '.join(constraints)}, Member must not be null]"
    )


def _one_group(pattern: str) -> bool:
    """Whether a pattern is one group around all of it: "((a)|(b))", not "(a)|(b)"."""
    depth = 0
    for index, char in enumerate(pattern):
        if char == "\\":
            continue
        depth += {"(": 1, ")": -1}.get(char, 0) if index == 0 or pattern[index - 1] != "\\" else 0
        if depth == 0:
            return index == len(pattern) - 1 and pattern.startswith("(")
    return False
