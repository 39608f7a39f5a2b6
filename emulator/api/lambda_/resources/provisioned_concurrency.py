"""Provisioned concurrency of a function's published versions and aliases:

    PUT    /2019-09-30/functions/{name}/provisioned-concurrency?Qualifier=Q   PutProvisionedConcurrencyConfig (202)
    GET    /2019-09-30/functions/{name}/provisioned-concurrency?Qualifier=Q   GetProvisionedConcurrencyConfig
    DELETE /2019-09-30/functions/{name}/provisioned-concurrency?Qualifier=Q   DeleteProvisionedConcurrencyConfig (204)
    GET    /2019-09-30/functions/{name}/provisioned-concurrency?List=ALL      ListProvisionedConcurrencyConfigs

A configuration is kept on the function ($LATEST's `provisioned_concurrency`, {qualifier: {"requested", "since"}}),
durable with it. It is IN_PROGRESS with nothing allocated when put, and READY with all it asked for allocated once
the emulator's clock is functions/concurrency.py's PROVISIONING_SECONDS past it (Lambda takes a minute or more; a test moves the clock).
When it is put, one environment of its version is prepared, its Init run as Lambda runs it then (the function told
AWS_LAMBDA_INITIALIZATION_TYPE provisioned-concurrency); an Init that fails makes it FAILED, StatusReason
FUNCTION_ERROR_INIT_FAILURE, with nothing allocated, instead of READY (AWS-recorded: test_lambda.snapshot.json,
TestLambdaConcurrency::test_provisioned_concurrency_init_failure). A READY configuration's environments serve the
version's or alias's invocations (functions/concurrency.py), the one prepared first, the others started with their
first invocation each. Deleting an
alias or a version deletes its configuration. Every answer and refusal in AWS's words, as LocalStack's AWS-validated
snapshots recorded them (tests/aws/services/lambda_/test_lambda_api.snapshot.json, TestLambdaProvisionedConcurrency:
test_provisioned_concurrency_exceptions, test_lambda_provisioned_lifecycle, test_provisioned_concurrency_limits).
"""

from __future__ import annotations

import uuid
from typing import Any

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_response
from eddy.emulator.api.lambda_.resources.concurrency import ACCOUNT_CONCURRENCY, MINIMUM_UNRESERVED
from eddy.emulator.aws_requests import Response
from eddy.emulator.engine import Emulator
from eddy.emulator.api.lambda_.resources.versions import page_of
from eddy.emulator.errors import (
    FunctionNotFoundException,
    InvalidParameterValueException,
    ProvisionedConcurrencyConfigNotFoundException,
    ResourceConflictException,
    without_type,
)
from eddy.emulator.functions.concurrency import INIT_FAILURE, allocated, status
from eddy.emulator.functions.function import Function, timestamp
from eddy.emulator.functions.versions import LATEST

OPERATIONS = frozenset(
    {
        "PutProvisionedConcurrencyConfig",
        "GetProvisionedConcurrencyConfig",
        "DeleteProvisionedConcurrencyConfig",
        "ListProvisionedConcurrencyConfigs",
    }
)
NOT_PUBLISHED = "The function resource provided must be an alias or a published version."


def missing_function(arn: str, qualifier: str | None) -> FunctionNotFoundException:
    """A function that does not exist, named as Lambda names it for these operations: an alias's qualifier as an
    alias, a version's (or none) as a function."""
    if qualifier and qualifier != LATEST and not qualifier.isdigit():
        return FunctionNotFoundException(f"Cannot find alias arn: {arn}:{qualifier}")
    return FunctionNotFoundException(f"Function not found: {arn}{f':{qualifier}' if qualifier else ''}")


def _existing(function: Function, qualifier: str) -> None:
    """The version or alias a qualifier names exists."""
    if qualifier.isdigit():
        if qualifier not in function.versions:
            raise FunctionNotFoundException(f"Function not found: {function.arn}:{qualifier}")
    elif qualifier not in function.aliases:
        raise FunctionNotFoundException(f"Cannot find alias arn: {function.arn}:{qualifier}")


def _answer(config: dict[str, Any], now: float) -> dict[str, Any]:
    count = allocated(config, now)
    state, reason = status(config, now)
    return {
        "RequestedProvisionedConcurrentExecutions": config["requested"],
        "AvailableProvisionedConcurrentExecutions": count,
        "AllocatedProvisionedConcurrentExecutions": count,
        "Status": state,
        **({"StatusReason": reason} if reason else {}),
        "LastModified": timestamp(config["since"]),
    }


def _provision(emulator: Emulator, function: Function, qualifier: str, config: dict[str, Any]) -> None:
    """Its version's environment prepared in the background (Invoker.provision: the function's Init run, as Lambda
    runs it when a configuration is put); an Init that fails makes the configuration, if it is still this one, FAILED
    (made durable with the function)."""

    def failed(error_type: str) -> None:
        with emulator.lock:
            if function.provisioned_concurrency.get(qualifier) is config:
                config["failed"] = INIT_FAILURE
                emulator.functions.recorded(function)

    version = emulator.functions.version_of(function, qualifier)
    if version is not None:
        emulator.invoker.provision_later(version, failed)


def _conflicts(function: Function, qualifier: str) -> None:
    """An alias and the version it points to cannot both have a configuration (test_lambda_provisioned_lifecycle)."""
    configs = function.provisioned_concurrency
    if qualifier.isdigit():
        if any(a.function_version == qualifier and a.name in configs for a in function.aliases.values()):
            raise ResourceConflictException("Version is pointed by a Provisioned Concurrency alias")
    elif function.aliases[qualifier].function_version in configs:
        raise ResourceConflictException(
            "Alias can't be used for Provisioned Concurrency configuration on an already Provisioned version"
        )


def _within_account(emulator: Emulator, function: Function, qualifier: str, requested: int) -> None:
    """The account's unreserved concurrency (1,000 less what functions reserve) must hold it and keep 100 free
    (test_provisioned_concurrency_limits); a function's own reservation must hold all its provisioned concurrency
    (AWS-recorded: test_lambda.snapshot.json, TestLambdaConcurrency::test_reserved_provisioned_overlap)."""
    if function.reserved_concurrency is not None:
        others = sum(config["requested"] for q, config in function.provisioned_concurrency.items() if q != qualifier)
        if others + requested > function.reserved_concurrency:
            raise InvalidParameterValueException(
                "Requested Provisioned Concurrency should not be greater than the reservedConcurrentExecution for "
                "function"
            )
    functions = emulator.functions.list(function.account_id, function.region)
    unreserved = ACCOUNT_CONCURRENCY - sum(f.reserved_concurrency or 0 for f in functions)
    if requested > unreserved:  # without Type (AWS-recorded: "put_provisioned_concurrency_account_limit_exceeded")
        raise without_type(InvalidParameterValueException(
            f"Specified ConcurrentExecutions for function is greater than account's unreserved concurrency "
            f"[{unreserved}]."
        ))
    provisioned = sum(
        config["requested"]
        for f in functions
        for q, config in f.provisioned_concurrency.items()
        if (f, q) != (function, qualifier)
    )
    if unreserved - provisioned - requested < MINIMUM_UNRESERVED:
        raise without_type(InvalidParameterValueException(
            "Specified ConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its "
            f"minimum value of [{MINIMUM_UNRESERVED}]."
        ))


def put(emulator: Emulator, function: Function, qualifier: str | None, params: dict[str, Any]) -> Response:
    validation.validate(
        "lambda", "PutProvisionedConcurrencyConfig", dict(params, FunctionName=function.name, Qualifier=qualifier)
    )
    assert qualifier is not None  # the model requires it
    requested = params["ProvisionedConcurrentExecutions"]
    with emulator.lock:
        if qualifier == LATEST:
            raise InvalidParameterValueException(
                "Provisioned Concurrency Configs cannot be applied to unpublished function versions."
            )
        _existing(function, qualifier)
        _conflicts(function, qualifier)
        _within_account(emulator, function, qualifier, requested)
        config = {"requested": requested, "since": emulator.clock.now()}
        function.provisioned_concurrency[qualifier] = config
        emulator.functions.recorded(function)
        _provision(emulator, function, qualifier, config)
        return json_response(_answer(config, config["since"]), 202)


def _configured(function: Function, qualifier: str | None, operation: str) -> dict[str, Any] | None:
    validation.validate("lambda", operation, {"FunctionName": function.name, "Qualifier": qualifier})
    assert qualifier is not None
    if qualifier == LATEST:
        raise InvalidParameterValueException(NOT_PUBLISHED)
    _existing(function, qualifier)
    return function.provisioned_concurrency.get(qualifier)


def get(emulator: Emulator, function: Function, qualifier: str | None) -> Response:
    with emulator.lock:
        config = _configured(function, qualifier, "GetProvisionedConcurrencyConfig")
        if config is None:
            raise ProvisionedConcurrencyConfigNotFoundException(
                "No Provisioned Concurrency Config found for this function"
            )
        return json_response(_answer(config, emulator.clock.now()))


def delete(emulator: Emulator, function: Function, qualifier: str | None) -> Response:
    """204 whether or not there was a configuration (test_provisioned_concurrency_exceptions)."""
    with emulator.lock:
        if _configured(function, qualifier, "DeleteProvisionedConcurrencyConfig") is not None:
            del function.provisioned_concurrency[qualifier]  # type: ignore[arg-type]
            emulator.functions.recorded(function)
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")


def list_configs(emulator: Emulator, function: Function, query: dict[str, str]) -> Response:
    """Each configuration with its version's or alias's ARN, in qualifier order; Marker and MaxItems page them."""
    now = emulator.clock.now()
    with emulator.lock:
        items = [
            {"FunctionArn": f"{function.arn}:{qualifier}", **_answer(config, now)}
            for qualifier, config in sorted(function.provisioned_concurrency.items())
        ]
    return json_response(page_of(items, query, "ProvisionedConcurrencyConfigs"))


def handle(
    emulator: Emulator, operation: str, function: Function, qualifier: str | None, query: dict[str, str], params: dict
) -> Response:
    if operation == "PutProvisionedConcurrencyConfig":
        return put(emulator, function, qualifier, params)
    if operation == "GetProvisionedConcurrencyConfig":
        return get(emulator, function, qualifier)
    if operation == "DeleteProvisionedConcurrencyConfig":
        return delete(emulator, function, qualifier)
    return list_configs(emulator, function, query)
