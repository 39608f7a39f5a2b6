"""GetFunction, GetFunctionConfiguration and DeleteFunction, each of a function, a version or an alias:

    GET    /2015-03-31/functions/{name}[?Qualifier=]                GetFunction
    GET    /2015-03-31/functions/{name}/configuration[?Qualifier=]  GetFunctionConfiguration
    DELETE /2015-03-31/functions/{name}[?Qualifier=]                DeleteFunction (a version, or all of it)

{name} may carry the qualifier (name:1, name:live, a qualified ARN) instead of Qualifier.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from eddy.emulator.api.lambda_.resources.code_locations import package_location
from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_response, query_parameters
from eddy.emulator.api.lambda_.door import _function
from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import (
    FunctionNotFoundException,
    InvalidParameterValueException,
    ResourceConflictException,
    UnreachableRegionException,
)
from eddy.emulator.functions.function import Function
from eddy.emulator.functions.versions.published import FUNCTION_NAME_FORMS
from eddy.emulator.functions.versions import LATEST
from eddy.emulator.functions.configuration import function_configuration

OPERATIONS = frozenset({"GetFunction", "GetFunctionConfiguration", "DeleteFunction"})


def _qualified(
    emulator: Emulator, request: Request, caller: tuple[str, str], name: str, operation: str
) -> tuple[Function, str | None]:
    """The function and qualifier a FunctionName (name, name:qualifier, partial or full ARN) and a Qualifier name, as
    Lambda reads them (AWS-recorded: LocalStack's test_lambda_api.snapshot.json, test_function_name_and_qualifier_
    validation, test_ops_on_nonexisting_version, test_delete_on_nonexisting_version): a qualifier in the name that
    differs from Qualifier is refused; DeleteFunction refuses an alias and $LATEST before it looks for the function,
    and names a missing function without the qualifier; a missing version or alias is "Function not found:
    <ARN>:<qualifier>"."""
    validation.validate(
        "lambda",
        operation,
        {"FunctionName": name, **({"Qualifier": q} if (q := query_parameters(request).get("Qualifier")) is not None else {})},
    )
    match = FUNCTION_NAME_FORMS.match(name)
    derived = match.group("qualifier") if match else None
    if derived is not None and q is not None and derived != q:
        raise InvalidParameterValueException(
            "The derived qualifier from the function name does not match the specified qualifier."
        )
    qualifier = q or derived
    if operation == "DeleteFunction" and qualifier is not None:
        if re.match(r"^[a-zA-Z0-9-_]+$", qualifier) and not qualifier.isdigit():
            raise InvalidParameterValueException("Deletion of aliases is not currently supported.")
        if qualifier == LATEST:
            raise InvalidParameterValueException("$LATEST version cannot be deleted without deleting the function.")
    unqualified = name[: -len(derived) - 1] if derived is not None else name
    try:
        function = _function(emulator, unqualified, caller)
    except FunctionNotFoundException as missing:
        named = qualifier is not None and operation != "DeleteFunction"
        if named and not isinstance(missing, UnreachableRegionException):
            raise FunctionNotFoundException(f"{missing.message}:{qualifier}") from None
        raise
    with emulator.lock:
        missing = emulator.functions.qualified(function, qualifier) is None
    if missing and operation != "DeleteFunction":  # deleting a version that is not there deletes nothing, answered
        # 204 (AWS-recorded: test_lambda_api.snapshot.json, TestLambdaFunction::test_delete_on_nonexisting_version)
        raise FunctionNotFoundException(f"Function not found: {function.arn}:{qualifier}")
    return function, qualifier


def _shown(emulator: Emulator, function: Function, qualifier: str | None) -> tuple[Function, str | None]:
    """The version whose configuration a qualified GetFunction answers, and the FunctionArn it answers with: the one
    named ($LATEST's qualified when named; an alias's version under the alias's ARN: AWS-recorded
    test_alias_lifecycle, "get_function_alias_1_1")."""
    with emulator.lock:
        version = emulator.functions.version_of(function, qualifier)
    assert version is not None  # _qualified found it
    return version, f"{function.arn}:{qualifier}" if qualifier is not None else None


def get_function(emulator: Emulator, request: Request, caller: tuple[str, str], name: str) -> Response:
    function, arn = _shown(emulator, *_qualified(emulator, request, caller, name, "GetFunction"))
    location = package_location(emulator, function)  # in-process, the loopback server that serves it starts here
    with emulator.lock:
        function.creation_completed()  # read: its creation is complete, and it answers Active
        configuration, completed = _state_read(emulator, function, arn)
    if completed is not None:  # the workers of the function as it was before its update are not needed any more
        emulator.invoker.retire(completed)
    answer = {
        "Configuration": configuration,
        "Code": {"RepositoryType": "S3", "Location": location or "file://(registered in-process)"},
    }
    function = function.root
    if function.tags:
        answer["Tags"] = dict(function.tags)
    if function.reserved_concurrency is not None:
        answer["Concurrency"] = {"ReservedConcurrentExecutions": function.reserved_concurrency}
    return json_response(answer)


def get_function_configuration(emulator: Emulator, request: Request, caller: tuple[str, str], name: str) -> Response:
    function, arn = _shown(emulator, *_qualified(emulator, request, caller, name, "GetFunctionConfiguration"))
    with emulator.lock:
        function.creation_completed()  # read: its creation is complete, and it answers Active
        configuration, completed = _state_read(emulator, function, arn)
    if completed is not None:  # the workers of the function as it was before its update are not needed any more
        emulator.invoker.retire(completed)
    return json_response(configuration)


def _state_read(emulator: Emulator, function: Function, arn: str | None) -> tuple[dict[str, Any], Function | None]:
    """Its FunctionConfiguration as a read answers it, and the $LATEST whose update completed (or None): one whose
    time on the clock is over first (it answers Successful), then the one in progress, completed by this read which
    answers it InProgress (registry.update_read). The emulator's lock is held."""
    now = emulator.clock.now()
    completed = function.root if emulator.functions.settle(function.root, now) else None
    configuration = function_configuration(function, arn=arn)
    return configuration, emulator.functions.update_read(function, now) or completed


def delete_function(emulator: Emulator, request: Request, caller: tuple[str, str], name: str) -> Response:
    """The function with its versions and aliases, or (Qualifier) one version no alias points to."""
    function, qualifier = _qualified(emulator, request, caller, name, "DeleteFunction")
    with emulator.lock:
        if qualifier is not None and qualifier not in function.versions:
            retired = []
        elif qualifier is not None:
            version = function.versions[qualifier]
            if pointing := sorted(a.name for a in function.aliases.values() if qualifier in a.versions()):
                raise ResourceConflictException(
                    f"Unable to delete version because the following aliases reference it: [{', '.join(pointing)}]"
                )
            emulator.functions.delete_version(version)
            if function.provisioned_concurrency.pop(qualifier, None) is not None:  # its configuration goes with it
                emulator.functions.recorded(function)
            retired = [version]
        else:
            emulator.functions.delete(function)
            retired = [function, *function.versions.values()]
    for each in retired:
        emulator.invoker.retire(each)
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")


def handle(emulator: Emulator, operation: str, request: Request, caller: tuple[str, str], name: str) -> Response:
    if operation == "GetFunction":
        return get_function(emulator, request, caller, name)
    if operation == "GetFunctionConfiguration":
        return get_function_configuration(emulator, request, caller, name)
    return delete_function(emulator, request, caller, name)
