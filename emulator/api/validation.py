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
- The walk is botocore's shapes compiled into plain checking functions once per service, operation and shape
  (shape_checks.py): what depends on the model alone is decided once, not at every request.
- Members the model does not know are ignored, as AWS ignores them. A table given by name where the model
  also takes its ARN is held to a table name's rules (3 to 255 characters of [a-zA-Z0-9_.-]) everywhere; one
  given by an ARN to a table ARN's form (emulator/api/dynamodb/table_arns.py), its region checked when it is resolved.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from botocore.model import OperationModel, OperationNotFoundError, ServiceModel

from eddy.emulator.api import shape_checks
from eddy.emulator.api.dynamodb import attribute_values, table_arns
from eddy.emulator.api.dynamodb.rules import key_conditions
from eddy.emulator.errors import UnknownOperationException, ValidationException

MAX_LISTED = 10


#: services whose list lengths, enums and (table names aside) patterns moto checks itself, with AWS's own
#: words: AWS's messages for those do not follow the model (its enum order differs from botocore's, long lists
#: are reported without their value, ReturnValues has its own sentence), and moto's tests pin AWS's
DEFERRED_TO_MOTO = frozenset({"dynamodb"})


#: members a service requires that botocore's model no longer marks required, and whose lengths it checks (as the
#: model stood when it marked them: KeySchema 1 to 2 elements); moto fails on a request without them
REQUIRED_BY_THE_SERVICE = {("dynamodb", "CreateTable"): ("AttributeDefinitions", "KeySchema")}
#: a TransactWriteItems item without an action, in the words of AWS's DynamoDB Local (one with several is moto's,
#: which has AWS's: "TransactItems can only contain one of Check, Put, Update or Delete")
NO_TRANSACT_WRITE_ACTION = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"


@lru_cache(maxsize=None)
def _service(service: str) -> Any:
    """The service's model, read through the process's shared loader (aws_environment.shared_loader): the one
    boto3's clients in an emulate() block read it through, so it is parsed once."""
    from eddy.emulator.aws_environment import shared_loader

    return ServiceModel(shared_loader().load_service_model(service, "service-2"), service_name=service)


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


@lru_cache(maxsize=None)
def _checks(service: str) -> shape_checks.Checks:
    """The service's shapes compiled into checks (shape_checks.py), with the service's ways of reporting."""
    return shape_checks.Checks(
        moto_checks=service in DEFERRED_TO_MOTO,
        whole_lists=service == "lambda",
        pattern_first=service == "events",
        every_constraint=service == "lambda",
        table_name_shape=lambda: table_arns.name_shape(_service("dynamodb")),
    )


#: each operation's input shape and its compiled check, by (service, operation, body_only); None: no input
_inputs: dict[tuple[str, str, bool], tuple[Any, Callable[[Any, str, shape_checks.Problems], None]] | None] = {}


def validate(service: str, operation: str, params: dict[str, Any], *, body_only: bool = False) -> None:
    """Raise AWS's error for the first thing wrong with a request's parameters (nothing: they are valid).
    `body_only`: a REST request's JSON body (members that travel in its path, query or headers are not in it)."""
    known = _inputs.get((service, operation, body_only), False)
    if known is False:
        shape = operation_model(service, operation).input_shape  # UnknownOperationException: never kept
        known = _inputs[service, operation, body_only] = (
            None if shape is None else (shape, _checks(service).structure(shape, body_only))
        )
    if known is None:
        return
    shape, check = known
    problems = shape_checks.Problems()
    check(params, "", problems)
    for name in REQUIRED_BY_THE_SERVICE.get((service, operation), ()):
        if params.get(name) is None:
            shape_checks.violation(problems, shape_checks.member_name("", name), None, "Member must not be null")
        elif isinstance(params[name], list):
            shape_checks.length(shape.members[name], params[name], shape_checks.member_name("", name), problems)
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
