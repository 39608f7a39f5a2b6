"""A function's recursive loop detection setting: PutFunctionRecursionConfig, GetFunctionRecursionConfig.

    PUT /2024-08-31/functions/{name}/recursion-config   {"RecursiveLoop": "Allow" | "Terminate"} -> the same
    GET /2024-08-31/functions/{name}/recursion-config   {"RecursiveLoop": ...}, "Terminate" until one is put

Kept and answered as AWS answers it (LocalStack's AWS-validated test_lambda_api.snapshot.json, TestLambdaRecursion:
the value put, Terminate by default, another value refused with the model's enum); Eddy detects no loops, so the
setting changes no invocation.
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.api import validation
from eddy.emulator.api.rest_json import json_response
from eddy.emulator.aws_requests import Response
from eddy.emulator.engine import Emulator
from eddy.emulator.functions.function import Function

OPERATIONS = ("PutFunctionRecursionConfig", "GetFunctionRecursionConfig")


def handle(emulator: Emulator, operation: str, function: Function, name: str, params: dict[str, Any]) -> Response:
    if operation == "GetFunctionRecursionConfig":
        return json_response({"RecursiveLoop": function.recursive_loop})
    validation.validate("lambda", operation, dict(params, FunctionName=name))
    with emulator.lock:
        function.recursive_loop = params["RecursiveLoop"]
        emulator.functions.recorded(function)
    return json_response({"RecursiveLoop": function.recursive_loop})
