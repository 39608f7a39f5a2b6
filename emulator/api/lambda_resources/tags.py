"""A function's tags: TagResource, UntagResource, ListTags (and CreateFunction's Tags).

    POST   /2017-03-31/tags/{arn}                 TagResource (204; merges)
    DELETE /2017-03-31/tags/{arn}?tagKeys=...     UntagResource (204; keys it does not have are ignored)
    GET    /2017-03-31/tags/{arn}                 ListTags ({"Tags": {...}})

At most 50 tags per function; an alias's or version's ARN, an empty Tags map and a missing tagKeys are refused in
AWS's words (LocalStack's AWS-recorded snapshots, test_lambda_api.snapshot.json, TestLambdaTag and TestLambdaTags).
"""

from __future__ import annotations

import uuid
from typing import Any

from emulator.api import validation
from emulator.api.lambda_api import json_response
from emulator.engine import Emulator
from emulator.errors import FunctionNotFoundException, InvalidParameterValueException, constraint_violation
from emulator.functions.registry import FUNCTION_ARN, Function, checked_tags
from emulator.messages import Response


def function_of(emulator: Emulator, arn: str) -> Function:
    """The function a tagging request's ARN names (checked against the model's pattern first)."""
    match = FUNCTION_ARN.match(arn)
    if match and match.group(4):
        raise InvalidParameterValueException("Tags on function aliases and versions are not supported. "
                                             "Please specify a function ARN.")
    region, account_id, name = match.group(1), match.group(2), match.group(3)
    with emulator.lock:
        function = emulator.functions.functions.get(f"arn:aws:lambda:{region}:{account_id}:function:{name}")
    if function is None:
        raise FunctionNotFoundException(f"Function not found: {arn}")
    return function


def tag_resource(emulator: Emulator, arn: str, params: dict[str, Any]) -> Response:
    validation.validate("lambda", "TagResource", dict(params, Resource=arn))
    function = function_of(emulator, arn)
    if not params["Tags"]:
        raise InvalidParameterValueException("An error occurred and the request cannot be processed.")
    with emulator.lock:
        function.tags = checked_tags(params["Tags"], function.tags)
        emulator.functions.recorded(function)
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")


def untag_resource(emulator: Emulator, arn: str, keys: list[str]) -> Response:
    if not keys:
        raise constraint_violation("tagKeys", None, "Member must not be null")
    validation.validate("lambda", "UntagResource", {"Resource": arn, "TagKeys": keys})
    function = function_of(emulator, arn)
    with emulator.lock:
        function.tags = {key: value for key, value in function.tags.items() if key not in keys}
        emulator.functions.recorded(function)
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")


def list_tags(emulator: Emulator, arn: str) -> Response:
    validation.validate("lambda", "ListTags", {"Resource": arn})
    function = function_of(emulator, arn)
    with emulator.lock:
        return json_response({"Tags": dict(function.tags)})
