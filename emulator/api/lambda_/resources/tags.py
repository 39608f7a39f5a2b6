"""The tags of a function or an event source mapping: TagResource, UntagResource, ListTags (CreateFunction's and
CreateEventSourceMapping's Tags are taken where those are made).

    POST   /2017-03-31/tags/{arn}                 TagResource (204; merges)
    DELETE /2017-03-31/tags/{arn}?tagKeys=...     UntagResource (204; keys it does not have are ignored)
    GET    /2017-03-31/tags/{arn}                 ListTags ({"Tags": {...}})

At most 50 tags per function; an alias's or version's ARN, an empty Tags map and a missing tagKeys are refused in
AWS's words (LocalStack's AWS-recorded snapshots, test_lambda_api.snapshot.json, TestLambdaTag and TestLambdaTags).
"""

from __future__ import annotations

import uuid
from typing import Any, Callable

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import FunctionNotFoundException, InvalidParameterValueException, constraint_violation
from eddy.emulator.functions.function import FUNCTION_ARN, checked_tags
from eddy.emulator.aws_requests import Response


#: the kinds of resource besides functions whose ARNs the tagging operations' pattern allows and Eddy answers for (a
#: code signing config's are moto's)
NOT_FUNCTIONS = ("event-source-mapping", "capacity-provider", "layer")


def tagged(emulator: Emulator, arn: str) -> tuple[Any, Callable[[], None]]:
    """The function or event source mapping a tagging request's ARN names (checked against the model's pattern
    first), and what makes a change of its tags durable."""
    if ":event-source-mapping:" in arn:
        with emulator.lock:
            mapping = emulator.triggers.mappings.get(arn.rsplit(":", 1)[1])
        if mapping is None or mapping.arn != arn:
            raise FunctionNotFoundException(f"Event source mapping not found: {arn}")
        return mapping, lambda: emulator.mapping_channel.mapping_saved(
            mapping, emulator.triggers.start_positions.get(mapping.uuid, 0)
        )
    if ":capacity-provider:" in arn:  # Eddy makes none (Lambda Managed Instances' API is not served): never found,
        # in AWS's words (AWS-recorded: test_lambda_api.snapshot.json, TestLambdaTag::test_tag_exceptions[capacity_provider])
        raise FunctionNotFoundException(f"Capacity provider not found: {arn}")
    if ":layer:" in arn:  # the pattern allows a layer's ARN (arn:...:layer:<name>), but Lambda's layers carry no tags
        # (aws/aws-lambda-roadmap#70, 2025-11: "Currently, Lambda layers do not support tagging"): none is found, in the
        # words AWS gives each other kind it does not find ("<kind> not found: <ARN>", TestLambdaTag::
        # test_tag_exceptions); AWS's own answer for a layer is not recorded
        raise FunctionNotFoundException(f"Layer not found: {arn}")
    match = FUNCTION_ARN.match(arn)
    if match.group(4):
        raise InvalidParameterValueException(
            "Tags on function aliases and versions are not supported. Please specify a function ARN."
        )
    region, account_id, name = match.group(1), match.group(2), match.group(3)
    with emulator.lock:
        function = emulator.functions.functions.get(f"arn:aws:lambda:{region}:{account_id}:function:{name}")
    if function is None:
        raise FunctionNotFoundException(f"Function not found: {arn}")
    # a change of a function's tags is a new revision of it (AWS-recorded: test_lambda_api.snapshot.json,
    # TestLambdaTags::test_tag_lifecycle, a new RevisionId after each TagResource and UntagResource)
    return function, lambda: emulator.functions.recorded(function, new_revision=True)


def tag_resource(emulator: Emulator, arn: str, params: dict[str, Any]) -> Response:
    validation.validate("lambda", "TagResource", dict(params, Resource=arn))
    resource, save = tagged(emulator, arn)
    if not params["Tags"]:
        raise InvalidParameterValueException("An error occurred and the request cannot be processed.")
    with emulator.lock:
        resource.tags = checked_tags(params["Tags"], resource.tags)
        save()
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")


def untag_resource(emulator: Emulator, arn: str, keys: list[str]) -> Response:
    if not keys:
        raise constraint_violation("tagKeys", None, "Member must not be null")
    validation.validate("lambda", "UntagResource", {"Resource": arn, "TagKeys": keys})
    resource, save = tagged(emulator, arn)
    with emulator.lock:
        resource.tags = {key: value for key, value in resource.tags.items() if key not in keys}
        save()
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")


def list_tags(emulator: Emulator, arn: str) -> Response:
    validation.validate("lambda", "ListTags", {"Resource": arn})
    resource, _ = tagged(emulator, arn)
    with emulator.lock:
        return json_response({"Tags": dict(resource.tags)})
