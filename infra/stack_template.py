"""A stack file as the CloudFormation template `eddy up` deploys: one resource per table, function, mapping, queue,
topic and bucket, named as the file names them, so the stack file stays the short way to write what a template says.

    template_of(stack, code={"replicate": ("eddy-deployments-123456789012-us-east-1", "stack/ab12....zip")})

What is not CloudFormation in a stack file becomes CloudFormation here: a function's code (a module path or a
folder, zipped by packages.py) is the S3 object `code` names; a mapping's `table:` is that table's StreamArn; an
`on_failure` queue, topic or bucket is that resource's ARN; a function without `role:` gets the stack's one
execution role (FunctionRole), which Lambda's stream and queue pollers need on AWS.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .stack import Function, Mapping, Stack, Table

FUNCTION_ROLE = "FunctionRole"
#: the managed policies of FunctionRole: logs, and reading DynamoDB streams and SQS queues (what a mapping needs)
ROLE_POLICIES = ("service-role/AWSLambdaDynamoDBExecutionRole", "service-role/AWSLambdaSQSQueueExecutionRole")
_KINDS = {"tables": "Table", "functions": "Function", "queues": "Queue", "topics": "Topic", "buckets": "Bucket"}


def logical_id(name: str, kind: str) -> str:
    """A resource's logical id from its name in the stack file: orders-replica (a table) -> OrdersReplicaTable."""
    words = [word for word in re.split(r"[^A-Za-z0-9]+", name) if word]
    return "".join(word[:1].upper() + word[1:] for word in words) + kind


class _Ids:
    """Logical ids, each unique (a second orders.replica and orders-replica get a number)."""

    def __init__(self) -> None:
        self.taken: dict[tuple[str, str], str] = {}

    def __call__(self, name: str, kind: str) -> str:
        if (name, kind) not in self.taken:
            base = candidate = logical_id(name, kind)
            number = 2
            while candidate in self.taken.values() or candidate == FUNCTION_ROLE:
                candidate, number = f"{base}{number}", number + 1
            self.taken[(name, kind)] = candidate
        return self.taken[(name, kind)]


def template_of(
    stack: Stack, code: dict[str, tuple[str, str]], handlers: dict[str, str] | None = None, description: str = ""
) -> dict[str, Any]:
    """The template of `stack`; `code` gives each function's zip as (bucket, key), `handlers` the handler each
    zip is called by (a module path's package is zipped as a top-level package: packages.py)."""
    ids = _Ids()
    resources: dict[str, Any] = {}
    for name in stack.queues:
        resources[ids(name, "Queue")] = {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": name}}
    for name in stack.topics:
        resources[ids(name, "Topic")] = {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": name}}
    for name in stack.buckets:
        resources[ids(name, "Bucket")] = {"Type": "AWS::S3::Bucket", "Properties": {"BucketName": name}}
    for name, table in stack.tables.items():
        resources[ids(name, "Table")] = {"Type": "AWS::DynamoDB::Table", "Properties": _table(name, table)}
    if any(function.role is None for function in stack.functions.values()):
        resources[FUNCTION_ROLE] = _role()
    for name, function in stack.functions.items():
        handler = (handlers or {}).get(name, function.handler)
        resources[ids(name, "Function")] = {
            "Type": "AWS::Lambda::Function",
            "Properties": _function(name, function, handler, code[name]),
        }
    for mapping in stack.mappings:
        source = mapping.table or mapping.stream_arn or ""
        mapping_id = ids(
            f"{mapping.function}-from-{source.rsplit('/', 3)[-3] if mapping.stream_arn else source}", "Mapping"
        )
        resources[mapping_id] = {"Type": "AWS::Lambda::EventSourceMapping", "Properties": _mapping(mapping, ids)}
    template: dict[str, Any] = {"AWSTemplateFormatVersion": "2010-09-09"}
    if description:
        template["Description"] = description
    template["Resources"] = resources
    return template


def _key_schema(key: dict[str, str]) -> list[dict[str, str]]:
    names = list(key)
    return [{"AttributeName": names[0], "KeyType": "HASH"}] + (
        [{"AttributeName": names[1], "KeyType": "RANGE"}] if len(names) > 1 else []
    )


def _table(name: str, table: Table) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "TableName": name,
        "KeySchema": _key_schema(table.key),
        "AttributeDefinitions": table.attribute_definitions(),
        "BillingMode": table.billing,
    }
    throughput = {"ReadCapacityUnits": table.read_capacity, "WriteCapacityUnits": table.write_capacity}
    if table.billing == "PROVISIONED":
        properties["ProvisionedThroughput"] = throughput
    if table.indexes:
        properties["GlobalSecondaryIndexes"] = []
        for index in table.indexes:
            entry: dict[str, Any] = {
                "IndexName": index.name,
                "KeySchema": _key_schema(index.key),
                "Projection": {"ProjectionType": index.projection},
            }
            if index.projection == "INCLUDE":
                entry["Projection"]["NonKeyAttributes"] = index.non_key_attributes
            if table.billing == "PROVISIONED":
                entry["ProvisionedThroughput"] = throughput
            properties["GlobalSecondaryIndexes"].append(entry)
    if table.stream:
        properties["StreamSpecification"] = {"StreamViewType": table.stream}
    if table.ttl:
        properties["TimeToLiveSpecification"] = {"AttributeName": table.ttl, "Enabled": True}
    return properties


def _role() -> dict[str, Any]:
    return {
        "Type": "AWS::IAM::Role",
        "Properties": {
            "AssumeRolePolicyDocument": {
                "Version": "2012-10-17",
                "Statement": [
                    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
                ],
            },
            "ManagedPolicyArns": [
                {"Fn::Sub": f"arn:${{AWS::Partition}}:iam::aws:policy/{policy}"} for policy in ROLE_POLICIES
            ],
        },
    }


def _function(name: str, function: Function, handler: str, code: tuple[str, str]) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "FunctionName": name,
        "Handler": handler,
        "Runtime": function.runtime,
        "Code": {"S3Bucket": code[0], "S3Key": code[1]},
        "Timeout": function.timeout,
        "MemorySize": function.memory,
        "Role": function.role or {"Fn::GetAtt": [FUNCTION_ROLE, "Arn"]},
    }
    if function.environment:
        properties["Environment"] = {"Variables": dict(function.environment)}
    if function.description:
        properties["Description"] = function.description
    return properties


_MAPPING_PROPERTIES = {
    "starting_position": "StartingPosition",
    "batch_size": "BatchSize",
    "maximum_batching_window_in_seconds": "MaximumBatchingWindowInSeconds",
    "maximum_retry_attempts": "MaximumRetryAttempts",
    "maximum_record_age_in_seconds": "MaximumRecordAgeInSeconds",
    "bisect_batch_on_function_error": "BisectBatchOnFunctionError",
    "parallelization_factor": "ParallelizationFactor",
    "tumbling_window_in_seconds": "TumblingWindowInSeconds",
    "enabled": "Enabled",
}


def _mapping(mapping: Mapping, ids: _Ids) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "FunctionName": {"Ref": ids(mapping.function, "Function")},
        "EventSourceArn": mapping.stream_arn or {"Fn::GetAtt": [ids(mapping.table or "", "Table"), "StreamArn"]},
    }
    properties.update({api: getattr(mapping, name) for name, api in _MAPPING_PROPERTIES.items()})
    if mapping.function_response_types:
        properties["FunctionResponseTypes"] = list(mapping.function_response_types)
    if mapping.filters:
        properties["FilterCriteria"] = {
            "Filters": [
                {"Pattern": pattern if isinstance(pattern, str) else json.dumps(pattern)} for pattern in mapping.filters
            ]
        }
    failure = mapping.on_failure
    if failure is not None:
        destination: Any = failure.arn
        if failure.queue:
            destination = {"Fn::GetAtt": [ids(failure.queue, "Queue"), "Arn"]}
        elif failure.topic:
            destination = {"Ref": ids(failure.topic, "Topic")}
        elif failure.bucket:
            destination = {"Fn::GetAtt": [ids(failure.bucket, "Bucket"), "Arn"]}
        properties["DestinationConfig"] = {"OnFailure": {"Destination": destination}}
    return properties
