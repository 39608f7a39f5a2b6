"""A function's reserved concurrency: PutFunctionConcurrency, GetFunctionConcurrency, DeleteFunctionConcurrency;
and GetAccountSettings, the account's concurrency and code storage as Eddy's functions use them.

    PUT    /2017-10-31/functions/{name}/concurrency   PutFunctionConcurrency ({"ReservedConcurrentExecutions": N})
    GET    /2019-09-30/functions/{name}/concurrency   GetFunctionConcurrency ({} when none is reserved)
    DELETE /2017-10-31/functions/{name}/concurrency   DeleteFunctionConcurrency (204)

The reservation is enforced by functions/invocation.py (0 throttles every invocation, N caps them). An account's
concurrency is Lambda's default quota, 1,000, of which 100 stay unreserved: reservations summing past 900 are
refused in AWS's words (LocalStack's AWS-recorded snapshots, TestLambdaReservedConcurrency).
"""

from __future__ import annotations

import uuid
from typing import Any

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import InvalidParameterValueException, without_type
from eddy.emulator.functions.function import FUNCTION_ARN, Function
from eddy.emulator.moto_seam import layers
from eddy.emulator.aws_requests import Response

ACCOUNT_CONCURRENCY = 1000
MINIMUM_UNRESERVED = 100


def _unqualified(name: str) -> None:
    match = FUNCTION_ARN.match(name)
    if ":" in name and (match is None or match.group(4)):
        raise InvalidParameterValueException(
            "This operation is permitted on Lambda functions only. Aliases and versions do not support this operation. "
            "Please specify either a function name or an unqualified function ARN."
        )


def put_function_concurrency(emulator: Emulator, function: Function, name: str, params: dict[str, Any]) -> Response:
    validation.validate("lambda", "PutFunctionConcurrency", dict(params, FunctionName=name))
    _unqualified(name)
    reserved = params["ReservedConcurrentExecutions"]
    with emulator.lock:
        provisioned = sum(config["requested"] for config in function.provisioned_concurrency.values())
        if reserved < provisioned:  # AWS-recorded: test_lambda.snapshot.json, test_reserved_provisioned_overlap
            raise without_type(InvalidParameterValueException(
                f" ReservedConcurrentExecutions  {reserved} should not be lower than function's total provisioned "
                f"concurrency [{provisioned}]."
            ))
        others = sum(
            f.reserved_concurrency or 0
            for f in emulator.functions.list(function.account_id, function.region)
            if f is not function
        )
        if others + reserved > ACCOUNT_CONCURRENCY - MINIMUM_UNRESERVED:
            raise without_type(InvalidParameterValueException(
                "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution "
                f"below its minimum value of [{MINIMUM_UNRESERVED}]."
            ))
        function.reserved_concurrency = reserved
        emulator.functions.recorded(function)
    return json_response({"ReservedConcurrentExecutions": reserved})


def account_settings(emulator: Emulator, caller: tuple[str, str]) -> Response:
    """GetAccountSettings: Lambda's default quotas (code storage 75 GB, a package 50 MB zipped and 250 MB unzipped,
    1,000 concurrent executions) and what this account's functions in this region use of them. TotalCodeSize counts
    each function's $LATEST, each of its published versions (a version published with unchanged code counts again)
    and each layer version, as AWS was recorded answering (LocalStack's test_lambda_api.snapshot.json,
    TestLambdaAccountSettings::test_account_settings_total_code_size and ..._config_update)."""
    with emulator.lock:
        functions = emulator.functions.list(*caller)
        reserved = sum(function.reserved_concurrency or 0 for function in functions)
        code_size = sum(
            function.code_size + sum(version.code_size for version in function.versions.values())
            for function in functions
        )
    code_size += layers.layers_code_size(*caller)
    return json_response(
        {
            "AccountLimit": {
                "TotalCodeSize": 80_530_636_800,
                "CodeSizeUnzipped": 262_144_000,
                "CodeSizeZipped": 52_428_800,
                "ConcurrentExecutions": ACCOUNT_CONCURRENCY,
                "UnreservedConcurrentExecutions": ACCOUNT_CONCURRENCY - reserved,
            },
            "AccountUsage": {"TotalCodeSize": code_size, "FunctionCount": len(functions)},
        }
    )


def get_function_concurrency(emulator: Emulator, function: Function, name: str) -> Response:
    _unqualified(name)
    reserved = function.reserved_concurrency
    return json_response({} if reserved is None else {"ReservedConcurrentExecutions": reserved})


def delete_function_concurrency(emulator: Emulator, function: Function, name: str) -> Response:
    _unqualified(name)
    with emulator.lock:
        function.reserved_concurrency = None
        emulator.functions.recorded(function)
    return Response(204, {"x-amzn-RequestId": str(uuid.uuid4())}, b"")
