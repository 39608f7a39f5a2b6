"""Creating a Lambda function as an AWS user must before invoking or updating it: CreateFunction answers it Pending,
and Lambda refuses Invoke, UpdateFunctionCode, UpdateFunctionConfiguration and PublishVersion until it is Active (the
Lambda Developer Guide, "Lambda function states"), so the caller waits with one of boto3's waiters, as LocalStack's
create_lambda_function fixture does: function_active, which polls GetFunctionConfiguration (function_active_v2 polls
GetFunction, whose Code.Location starts the in-process door's loopback server). Eddy's function is Active at the
waiter's first poll (Function.creation_completed): the wait costs one read, no sleep."""

from __future__ import annotations

from typing import Any


def created_function(lam: Any, **params: Any) -> dict[str, Any]:
    """CreateFunction's answer, once the function it made is Active."""
    answer = lam.create_function(**params)
    lam.get_waiter("function_active").wait(FunctionName=params["FunctionName"])
    return answer
