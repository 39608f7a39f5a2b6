"""A registered callable gets Lambda's environment variables, its own ones, seen by its invocation only."""

from __future__ import annotations

import json
import os
import threading

import boto3


def _invoke(name: str) -> dict:
    answer = boto3.client("lambda", region_name="us-east-1").invoke(FunctionName=name, Payload=b"{}")
    assert "FunctionError" not in answer, answer["Payload"].read()
    return json.loads(answer["Payload"].read())


def test_a_registered_callable_sees_lambdas_variables(eddy) -> None:
    @eddy.function("on-order", memory_size=256, environment={"TABLE": "orders"})
    def handler(event, context):
        names = ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_VERSION",
                 "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "AWS_LAMBDA_LOG_GROUP_NAME", "AWS_EXECUTION_ENV", "TABLE")
        boto3.client("dynamodb").list_tables()  # the handler's own client finds its region
        return {name: os.environ.get(name) for name in names}

    assert _invoke("on-order") == {
        "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1", "AWS_LAMBDA_FUNCTION_NAME": "on-order",
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
        "AWS_LAMBDA_LOG_GROUP_NAME": "/aws/lambda/on-order", "AWS_EXECUTION_ENV": "AWS_Lambda_python3.11",
        "TABLE": "orders"}
    assert "AWS_LAMBDA_FUNCTION_NAME" not in os.environ and "TABLE" not in os.environ


def test_two_functions_running_at_once_each_see_their_own(eddy) -> None:
    both_running = threading.Barrier(2, timeout=30)

    def handler(event, context):
        both_running.wait()  # each is inside its invocation while the other is too
        return os.environ["AWS_LAMBDA_FUNCTION_NAME"]

    eddy.register_function("first", handler, timeout=60)
    eddy.register_function("second", handler, timeout=60)
    answers: dict[str, str] = {}
    threads = [threading.Thread(target=lambda name=name: answers.update({name: _invoke(name)})) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == {"first": "first", "second": "second"}


def test_a_function_that_invokes_another_waits_for_it_and_keeps_its_own(eddy) -> None:
    @eddy.function("inner", environment={"ROLE": "inner"})
    def inner(event, context):
        return [os.environ["AWS_LAMBDA_FUNCTION_NAME"], os.environ["ROLE"]]

    @eddy.function("outer", timeout=60, environment={"ROLE": "outer"})
    def outer(event, context):
        answer = json.loads(boto3.client("lambda").invoke(FunctionName="inner", Payload=b"{}")["Payload"].read())
        os.environ["ROLE"] = "changed by outer"  # its own variable: changed for this invocation only
        return [*answer, os.environ["AWS_LAMBDA_FUNCTION_NAME"], os.environ["ROLE"]]

    assert _invoke("outer") == ["inner", "inner", "outer", "changed by outer"]
    assert "ROLE" not in os.environ
