"""A function's resource-based policy: AddPermission, RemovePermission, GetPolicy.

    POST   /2015-03-31/functions/{name}/policy               AddPermission (201, {"Statement": "<JSON>"})
    GET    /2015-03-31/functions/{name}/policy               GetPolicy ({"Policy": "<JSON>", "RevisionId"})
    DELETE /2015-03-31/functions/{name}/policy/{sid}         RemovePermission (204)

The statement and policy documents, their conditions (SourceArn as ArnLike AWS:SourceArn; SourceAccount,
EventSourceToken, PrincipalOrgID, FunctionUrlAuthType as StringEquals; InvokedViaFunctionUrl as Bool), principals (a service, an account as
arn:aws:iam::<id>:root, an ARN, "*"), the RevisionId shared with GetFunction and every error's wording are AWS's,
as LocalStack's AWS-recorded snapshots show them (tests/aws/services/lambda_/test_lambda_api.snapshot.json,
TestLambdaPermissions). A version and an alias each have their own policy (a Qualifier, or a qualified FunctionName),
its Resource their qualified ARN. Eddy keeps the policy and answers with it; it evaluates it only for function URLs (api/lambda_/function_urls/access.py).
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import (
    FunctionNotFoundException,
    InvalidParameterValueException,
    PreconditionFailedException,
    ResourceConflictException,
)
from eddy.emulator.functions.function import Function
from eddy.emulator.functions.versions import LATEST, Alias
from eddy.emulator.aws_requests import Response

ACCOUNT = re.compile(r"^\d{12}$")
#: the StringEquals conditions AddPermission's parameters become, in the order AWS writes them
STRING_CONDITIONS = (
    ("SourceAccount", "AWS:SourceAccount"),
    ("EventSourceToken", "lambda:EventSourceToken"),
    ("FunctionUrlAuthType", "lambda:FunctionUrlAuthType"),
    ("PrincipalOrgID", "aws:PrincipalOrgID"),
)


def _principal(principal: str, account_id: str) -> Any:
    if principal == "*":
        return "*"
    if ACCOUNT.match(principal):
        return {"AWS": f"arn:aws:iam::{principal}:root"}
    if principal.startswith("arn:"):
        return {"AWS": principal}
    if principal.endswith((".amazonaws.com", ".amazon.com")):
        return {"Service": principal}
    raise InvalidParameterValueException(
        "The provided principal was invalid. Please check the principal and try again."
    )


def _holder(emulator: Emulator, function: Function, qualifier: str | None, adding: bool = False) -> Function | Alias:
    """Whose policy a qualifier names: the function's (none, or $LATEST but for AddPermission), a version's or an
    alias's (each its own: AWS-recorded TestLambdaPermissions::test_lambda_permission_fn_versioning)."""
    if qualifier == LATEST and adding:
        raise InvalidParameterValueException("We currently do not support adding policies for $LATEST.")
    with emulator.lock:
        holder = emulator.functions.qualified(function, qualifier)
    if holder is None:  # in AWS's words (AWS-recorded: TestLambdaPermissions::test_permission_exceptions)
        if re.fullmatch(r"[a-zA-Z0-9-_]*[a-zA-Z_-][a-zA-Z0-9-_]*", qualifier or ""):  # an alias's name
            raise FunctionNotFoundException(f"Cannot find alias arn: {function.arn}:{qualifier}")
        raise FunctionNotFoundException(f"Function not found: {function.arn}:{qualifier}")
    return holder


def _check_revision(holder: Function | Alias, revision_id: str | None) -> None:
    if revision_id is not None and revision_id != holder.revision_id:
        api = "GetPolicy" if isinstance(holder, Alias) else "GetFunction/GetAlias"
        raise PreconditionFailedException(
            "The Revision Id provided does not match the latest Revision Id. "
            f"Call the {api} API to retrieve the latest Revision Id"
        )


def _changed(emulator: Emulator, function: Function, holder: Function | Alias) -> None:
    """The holder's policy changed: a new RevisionId, made durable."""
    if isinstance(holder, Alias):
        holder.changed()
        emulator.functions.recorded(function)
    else:
        emulator.functions.recorded(holder, new_revision=True)


def statement(function: Function, params: dict[str, Any], qualifier: str | None = None) -> dict[str, Any]:
    """The policy statement AddPermission's parameters make, as AWS writes it (its Resource the qualified ARN)."""
    made: dict[str, Any] = {
        "Sid": params["StatementId"],
        "Effect": "Allow",
        "Principal": _principal(params["Principal"], function.account_id),
        "Action": params["Action"],
        "Resource": f"{function.arn}:{qualifier}" if qualifier else function.arn,
    }
    conditions: dict[str, Any] = {}
    equals = {key: params[name] for name, key in STRING_CONDITIONS if params.get(name) is not None}
    if equals:
        conditions["StringEquals"] = equals
    if params.get("SourceArn") is not None:
        conditions["ArnLike"] = {"AWS:SourceArn": params["SourceArn"]}
    if params.get("InvokedViaFunctionUrl") is True:  # what AWS writes for it (urls-auth.html's policies)
        conditions["Bool"] = {"lambda:InvokedViaFunctionUrl": "true"}
    if conditions:
        made["Condition"] = conditions
    return made


def add_permission(emulator: Emulator, function: Function, params: dict[str, Any], qualifier: str | None) -> Response:
    validation.validate(
        "lambda",
        "AddPermission",
        dict(params, FunctionName=function.name, **({"Qualifier": qualifier} if qualifier else {})),
    )
    holder = _holder(emulator, function, qualifier, adding=True)
    made = statement(function, params, qualifier if holder is not function else None)
    with emulator.lock:
        _check_revision(holder, params.get("RevisionId"))
        if any(existing["Sid"] == made["Sid"] for existing in holder.policy):
            raise ResourceConflictException(
                f"The statement id ({made['Sid']}) provided already exists. Please provide "
                "a new statement id, or remove the existing statement."
            )
        holder.policy.append(made)
        _changed(emulator, function, holder)
    return json_response({"Statement": json.dumps(made, separators=(",", ":"))}, 201)


def get_policy(emulator: Emulator, function: Function, qualifier: str | None) -> Response:
    try:
        holder = _holder(emulator, function, qualifier)
    except FunctionNotFoundException:  # AWS-recorded "get_policy_fn_version_doesnotexist"
        raise FunctionNotFoundException("The resource you requested does not exist.") from None
    with emulator.lock:
        if not holder.policy:
            raise FunctionNotFoundException("The resource you requested does not exist.")
        document = {"Version": "2012-10-17", "Id": "default", "Statement": [dict(s) for s in holder.policy]}
        revision_id = holder.revision_id
    return json_response({"Policy": json.dumps(document, separators=(",", ":")), "RevisionId": revision_id})


def remove_permission(
    emulator: Emulator, function: Function, statement_id: str, qualifier: str | None, revision_id: str | None
) -> Response:
    validation.validate(
        "lambda",
        "RemovePermission",
        {"FunctionName": function.name, "StatementId": statement_id, **({"Qualifier": qualifier} if qualifier else {})},
    )
    holder = _holder(emulator, function, qualifier)
    with emulator.lock:
        _check_revision(holder, revision_id)
        if not holder.policy:
            raise FunctionNotFoundException("No policy is associated with the given resource.")
        kept = [s for s in holder.policy if s["Sid"] != statement_id]
        if len(kept) == len(holder.policy):
            raise FunctionNotFoundException(f"Statement {statement_id} is not found in resource policy.")
        holder.policy = kept
        _changed(emulator, function, holder)
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")
