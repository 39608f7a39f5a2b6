"""Requests checked against botocore's own service model before moto or the engine sees them, as AWS checks them.

    validate("dynamodb", "PutItem", params)     # raises SerializationException or ValidationException

- A member of the wrong JSON type is what AWS's JSON reader refuses: SerializationException, e.g.
  "NUMBER_VALUE cannot be converted to String", "Start of structure or map found where not expected".
- Then the constraints of the model (DynamoDB's list lengths, enums and patterns other than a table name's are
  left to moto, which words them as AWS does), each broken one listed as AWS lists them (at most ten):
  "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be
  null" or "2 validation errors detected: ...; ...". Members are named as AWS names them: the first letter in
  lower case, list elements as `keySchema.1.member.keyType`, map values as `item.<key>.member`.
- Then, the model satisfied, DynamoDB's own rules for an AttributeValue's content (exactly one type, numbers
  DynamoDB can store, sets not empty and without duplicates, NULL true): emulator/api/dynamodb/attribute_values.py.
- Then what AWS requires beyond the model: CreateTable's KeySchema and AttributeDefinitions (REQUIRED_BY_THE_SERVICE),
  an action in each TransactWriteItems item, a timestamp as a number a date can be read from, and a Query's
  KeyConditionExpression read as AWS reads it (dynamodb/rules/key_conditions.py).
- Most of a write's request is its items: an AttributeValue nothing here would refuse (plain_attribute_values.py)
  skips the walk.
- Members the model does not know are ignored, as AWS ignores them. A table given by name where the model
  also takes its ARN is held to a table name's rules (3 to 255 characters of [a-zA-Z0-9_.-]) everywhere; one
  given by an ARN to a table ARN's form (emulator/api/dynamodb/table_arns.py), its region checked when it is resolved.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from datetime import timezone
from functools import lru_cache
from typing import Any

from botocore.model import OperationModel, OperationNotFoundError, ServiceModel, Shape
from botocore.utils import parse_timestamp

from eddy.emulator.api.dynamodb import attribute_values, plain_attribute_values, table_arns
from eddy.emulator.api.dynamodb.rules import key_conditions
from eddy.emulator.errors import SerializationException, UnknownOperationException, ValidationException

MAX_LISTED = 10
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


#: services whose list lengths, enums and (table names aside) patterns moto checks itself, with AWS's own
#: words: AWS's messages for those do not follow the model (its enum order differs from botocore's, long lists
#: are reported without their value, ReturnValues has its own sentence), and moto's tests pin AWS's
DEFERRED_TO_MOTO = frozenset({"dynamodb"})


#: members a service requires that botocore's model no longer marks required, and whose lengths it checks (as the
#: model stood when it marked them: KeySchema 1 to 2 elements); moto fails on a request without them
REQUIRED_BY_THE_SERVICE = {("dynamodb", "CreateTable"): ("AttributeDefinitions", "KeySchema")}
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
#: a TransactWriteItems item without an action, in the words of AWS's DynamoDB Local (one with several is moto's,
#: which has AWS's: "TransactItems can only contain one of Check, Put, Update or Delete")
NO_TRANSACT_WRITE_ACTION = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"


class _Problems(list):
    def __init__(
        self, moto_checks: bool, whole_lists: bool = False, pattern_first: bool = False, every_constraint: bool = False
    ) -> None:
        super().__init__()
        self.moto_checks = moto_checks
        #: a string too long is also checked against its pattern, both reported, length first (Lambda's way:
        #: LocalStack's AWS-validated test_lambda_api.snapshot.json, TestLambdaFunction::
        #: test_function_name_and_qualifier_validation[function_name_too_long_and_invalid_region-create_function])
        self.every_constraint = every_constraint
        #: a string's pattern checked before its length, both reported (EventBridge's way: LocalStack's
        #: AWS-validated test_events.snapshot.json, test_create_connection_validations)
        self.pattern_first = pattern_first
        #: a list of strings whose member breaks a constraint is reported whole (Lambda's way: whole_list)
        self.whole_lists = whole_lists
        self.attribute_values_to_check = False  # an AttributeValue the shortcut did not pass: its content is read


@lru_cache(maxsize=None)
def _service(service: str) -> Any:
    """The service's model, read through the process's shared loader (aws_environment.shared_loader): the one
    boto3's clients in an emulate() block read it through, so it is parsed once."""
    from eddy.emulator.aws_environment import shared_loader

    return ServiceModel(shared_loader().load_service_model(service, "service-2"), service_name=service)


@lru_cache(maxsize=None)
def _pattern(pattern: str) -> re.Pattern[str]:  # Java's \p{L} \p{N} (\w) and \p{Z} in a class (Lambda's TagKey)
    return re.compile(
        pattern.replace(r"\p{L}", r"\w")
        .replace(r"\p{N}", r"\w")
        .replace(r"\p{Z}", " \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000")
    )


@lru_cache(maxsize=None)
def error_members(service: str, code: str) -> tuple[str, ...]:
    """The members of the service's error `code` as its model names them (Lambda's ResourceNotFoundException has
    Type and Message, InvalidParameterValueException Type and message); () for an error the model does not know."""
    shape = next((shape for shape in _service(service).error_shapes if shape.name == code), None)
    return tuple(shape.members) if shape is not None else ()


def operation_model(service: str, operation: str) -> OperationModel:
    try:
        return _service(service).operation_model(operation)
    except OperationNotFoundError:
        raise UnknownOperationException(f"Unknown operation: {operation}") from None


def validate(service: str, operation: str, params: dict[str, Any], *, body_only: bool = False) -> None:
    """Raise AWS's error for the first thing wrong with a request's parameters (nothing: they are valid).
    `body_only`: a REST request's JSON body (members that travel in its path, query or headers are not in it)."""
    shape = operation_model(service, operation).input_shape
    if shape is None:
        return
    problems = _Problems(
        service in DEFERRED_TO_MOTO,
        whole_lists=service == "lambda",
        pattern_first=service == "events",
        every_constraint=service == "lambda",
    )
    _structure(shape, params, "", problems, body_only)
    for name in REQUIRED_BY_THE_SERVICE.get((service, operation), ()):
        if params.get(name) is None:
            _violation(problems, _name("", name), None, "Member must not be null")
        elif isinstance(params[name], list):
            _length(shape.members[name], params[name], _name("", name), problems)
    if problems:
        count = len(problems)
        listed = "; ".join(problems[:MAX_LISTED])
        raise ValidationException(f"{count} validation error{'s' if count > 1 else ''} detected: {listed}")
    if (
        operation == "TransactWriteItems"
        and service == "dynamodb"
        and any(
            isinstance(item, dict)
            and not any(item.get(action) is not None for action in shape.members["TransactItems"].member.members)
            for item in params["TransactItems"]
        )
    ):
        raise ValidationException(NO_TRANSACT_WRITE_ACTION)
    if problems.attribute_values_to_check:
        attribute_values.check(operation, params, shape)
    if operation == "Query" and service == "dynamodb" and isinstance(params.get("KeyConditionExpression"), str):
        key_conditions.check(
            params["KeyConditionExpression"],
            params.get("ExpressionAttributeNames") or {},
            params.get("ExpressionAttributeValues") or {},
        )


def _name(path: str, member: str) -> str:
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


def _violation(problems: _Problems, path: str, value: Any, constraint: str) -> None:
    problems.append(f"Value {_shown(value)} at '{path}' failed to satisfy constraint: {constraint}")


def _type_error(shape: Shape, value: Any) -> SerializationException:
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


def _structure(shape: Shape, value: Any, path: str, problems: _Problems, body_only: bool = False) -> None:
    if not isinstance(value, dict):
        raise _type_error(shape, value)
    for name in shape.required_members:
        if body_only and shape.members[name].serialization.get("location"):
            continue
        if value.get(name) is None:
            _violation(problems, _name(path, name), None, "Member must not be null")
    for name, member in shape.members.items():
        if value.get(name) is not None:
            _value(member, value[name], _name(path, name), problems)


def _value(shape: Shape, value: Any, path: str, problems: _Problems) -> None:
    kind = shape.type_name
    if shape.name == "AttributeValue":
        if plain_attribute_values.plain(value):
            return  # an item's attributes: most of a write's request, nothing in them anything below would refuse
        problems.attribute_values_to_check = True
    if kind == "map" and shape.value.name == "AttributeValue" and plain_attribute_values.plain({"M": value}):
        return  # a whole item (or key) of such attributes, under names AttributeName allows
    if kind == "structure":
        if shape.name == "WriteRequest" and type(value) is dict:
            put = value.get("PutRequest") if len(value) == 1 else None  # a put of a plain item: nothing to refuse
            if type(put) is dict and len(put) == 1 and plain_attribute_values.plain({"M": put.get("Item")}):
                return
            if all(value.get(name) is None for name in shape.members):
                problems.attribute_values_to_check = True  # an empty request, refused in AttributeValue's words
        _structure(shape, value, path, problems)
    elif kind == "list":
        if not isinstance(value, list):
            raise _type_error(shape, value)
        if not problems.moto_checks:
            _length(shape, value, path, problems)
        if problems.whole_lists and shape.member.type_name == "string":
            return _whole_list(shape.member, value, path, problems)
        for index, element in enumerate(value, 1):
            if element is not None:
                _value(shape.member, element, f"{path}.{index}.member", problems)
            elif shape.member.name == "AttributeValue":
                problems.attribute_values_to_check = True  # a null where a value belongs
    elif kind == "map":
        if not isinstance(value, dict):
            raise _type_error(shape, value)
        if not problems.moto_checks:
            _length(shape, value, path, problems)
        for key, element in value.items():
            _value(shape.key, key, f"{path}.{key}.key", problems)
            if element is not None:
                _value(shape.value, element, f"{path}.{key}.member", problems)
            elif shape.value.name == "AttributeValue":
                problems.attribute_values_to_check = True  # a null where a value belongs
    elif kind == "string":
        if not isinstance(value, str):
            raise _type_error(shape, value)
        _string(shape, value, path, problems)
    elif kind in ("integer", "long", "double", "float"):
        whole = kind in ("integer", "long")
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or (whole and value != int(value))
        ):
            raise _type_error(shape, value)
        _range(shape, int(value) if whole else value, path, problems)
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise _type_error(shape, value)
    elif kind == "blob":
        if not isinstance(value, str):
            raise _type_error(shape, value)
        try:
            decoded = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise SerializationException(f"Base64 encoded value is invalid at '{path}'") from None
        _length(shape, decoded, path, problems)
    elif kind == "timestamp":  # epoch seconds: AWS's JSON reader takes a number, never a string (not even a date's)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _readable_timestamp(value):
            raise _type_error(shape, value)


def _whole_list(member: Shape, value: list[Any], path: str, problems: _Problems) -> None:
    """A list of strings as Lambda reports it when a member breaks a constraint: the whole list, with every
    constraint of its members (AWS-recorded: LocalStack's test_lambda_api.snapshot.json, TestLambdaFunction::
    test_create_lambda_exceptions "uppercase_architecture", TestLambdaLayer::test_layer_function_exceptions
    "add_layer_arn_without_version_exc": a pattern without the group the model wraps it in)."""
    broken = _Problems(False)
    for index, element in enumerate(value, 1):
        if not isinstance(element, str):
            raise _type_error(member, element)
        _string(member, element, f"{path}.{index}.member", broken)
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
    _violation(problems, path, value, f"Member must satisfy constraint: [{', '.join(constraints)}, Member must not be null]")


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


def _readable_timestamp(value: int | float) -> bool:
    try:
        parse_timestamp(value).astimezone(timezone.utc)
    except (ValueError, TypeError, OverflowError, OSError, RuntimeError):  # not a time, or none a datetime holds
        return False
    return True


def _string(shape: Shape, value: str, path: str, problems: _Problems) -> None:
    if shape.name == "TableArn":
        if not value.startswith("arn:"):  # a table's name, not its ARN: 3-255 of [a-zA-Z0-9_.-]
            shape = table_arns.name_shape(_service("dynamodb"))
        elif not path.endswith("Arn") and (wrong := table_arns.problem(value, path)):
            problems.append(wrong)  # where a table's name or its ARN belongs (TableName, RequestItems' keys)
            return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise SerializationException(f"Invalid UTF-8 (a lone surrogate) in the value at '{path}'") from None
    enum = ENUM_ORDER.get(shape.name, shape.enum)
    if enum and value not in enum and not problems.moto_checks:
        _violation(problems, path, value, f"Member must satisfy enum value set: [{', '.join(enum)}]")
        return
    if shape.name == "ProjectionExpression" and not value.strip():  # its syntax: dynamodb/rules/projection_expressions
        raise ValidationException("Invalid ProjectionExpression: The expression can not be empty;")
    pattern = PATTERN_AS_ANSWERED.get(shape.name, shape.metadata.get("pattern"))
    if problems.moto_checks and shape.name != "TableName":
        pattern = None
    if problems.pattern_first:
        if pattern and not _pattern(pattern).fullmatch(value):
            _violation(problems, path, value, f"Member must satisfy regular expression pattern: {pattern}")
        _length(shape, value, path, problems)
        return
    before = len(problems)
    _length(shape, value, path, problems)
    if pattern and (len(problems) == before or problems.every_constraint) and not _pattern(pattern).fullmatch(value):
        _violation(problems, path, value, f"Member must satisfy regular expression pattern: {pattern}")


def _length(shape: Shape, value: Any, path: str, problems: _Problems) -> None:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    shown = value if not isinstance(value, bytes) else "java.nio.HeapByteBuffer"
    if low is not None and len(value) < low:
        _violation(problems, path, shown, f"Member must have length greater than or equal to {low}")
    elif high is not None and len(value) > high:
        _violation(problems, path, shown, f"Member must have length less than or equal to {high}")


def _range(shape: Shape, value: float, path: str, problems: _Problems) -> None:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if low is not None and value < low:
        _violation(problems, path, value, f"Member must have value greater than or equal to {low}")
    elif high is not None and value > high:
        _violation(problems, path, value, f"Member must have value less than or equal to {high}")
