"""What a template's resources become in a stack, and the small helpers the converter shares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

# -- what resources become ----------------------------------------------------------------------------------

_SAM_FUNCTION = "AWS::Serverless::Function"
_SAM_TRANSFORM = "AWS::Serverless-2016-10-31"
_KINDS = {
    "AWS::DynamoDB::Table": "table",
    "AWS::Lambda::Function": "function",
    _SAM_FUNCTION: "function",
    "AWS::Lambda::EventSourceMapping": "mapping",
    "AWS::SQS::Queue": "queue",
    "AWS::SNS::Topic": "topic",
    "AWS::S3::Bucket": "bucket",
}


class _Named(NamedTuple):
    """A kind of resource that has a physical name: the property that gives it, its ARN, its Fn::GetAtt attributes."""

    name_property: str
    arn: str
    attributes: dict[str, str]  # attribute -> what it gives: "arn", "name" or "stream"


_NAMED = {
    "table": _Named("TableName", "arn:{partition}:dynamodb:{region}:{account}:table/{name}", {"Arn": "arn", "StreamArn": "stream"}),
    "function": _Named("FunctionName", "arn:{partition}:lambda:{region}:{account}:function:{name}", {"Arn": "arn"}),
    "queue": _Named("QueueName", "arn:{partition}:sqs:{region}:{account}:{name}", {"Arn": "arn", "QueueName": "name"}),
    "topic": _Named("TopicName", "arn:{partition}:sns:{region}:{account}:{name}",
                    {"Arn": "arn", "TopicArn": "arn", "TopicName": "name"}),
    "bucket": _Named("BucketName", "arn:{partition}:s3:::{name}", {"Arn": "arn"}),
}
_PSEUDO = {"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::Partition": "aws",
           "AWS::URLSuffix": "amazonaws.com"}
_FUNCTION_PROPERTIES = {"Handler": "handler", "Runtime": "runtime", "Timeout": "timeout", "MemorySize": "memory",
                        "Description": "description"}
_MAPPING_PROPERTIES = {
    "StartingPosition": "starting_position",
    "BatchSize": "batch_size",
    "MaximumBatchingWindowInSeconds": "maximum_batching_window_in_seconds",
    "MaximumRetryAttempts": "maximum_retry_attempts",
    "MaximumRecordAgeInSeconds": "maximum_record_age_in_seconds",
    "BisectBatchOnFunctionError": "bisect_batch_on_function_error",
    "ParallelizationFactor": "parallelization_factor",
    "TumblingWindowInSeconds": "tumbling_window_in_seconds",
    "FunctionResponseTypes": "function_response_types",
    "Enabled": "enabled",
}
_DESTINATION_TYPES = {"SQS": "queue", "SNS": "topic", "S3": "bucket"}
_STREAM_ARN = re.compile(r"^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[^/]+/stream/.+$")
_FUNCTION_ARN = re.compile(r"^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:([^:]+)(?::[^:]+)?$")
_SUB_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_UNSUPPORTED = "not supported by Eddy's stack files"

#: where a field of a stack entry came from in the template: (field, ...) -> property path
_Origins = dict[tuple, str]


class _NoValue:
    """Ref AWS::NoValue: the property, or list item, is left out."""

    def __repr__(self) -> str:
        return "AWS::NoValue"


_NO_VALUE = _NoValue()


@dataclass(frozen=True)
class _StreamOf:
    """GetAtt Table.StreamArn: the table's stream, whose ARN exists only once the table does."""

    table: str
    logical_id: str


class _Problems(Exception):
    """Places in the template, each with what is wrong there."""

    def __init__(self, *places: tuple[str, str]) -> None:
        super().__init__(places)
        self.places = list(places)


def _problem(path: str, message: str) -> _Problems:
    return _Problems((path, message))


def _describe(value: Any) -> str:
    if isinstance(value, _StreamOf):
        return f"the stream ARN of {value.logical_id}"
    if isinstance(value, bool):
        return "true/false"
    kinds = {dict: "a mapping", list: "a list", str: "text", int: "a number", float: "a number", type(None): "nothing"}
    return kinds.get(type(value), type(value).__name__)


def _expect(value: Any, kind: type, path: str, what: str) -> Any:
    if not isinstance(value, kind):
        raise _problem(path, f"expected {what}, got {_describe(value)}")
    return value


def _is_intrinsic(value: Any) -> bool:
    if not (isinstance(value, dict) and len(value) == 1):
        return False
    key = next(iter(value))
    return key in ("Ref", "Condition") or key.startswith("Fn::")


def _merged(defaults: Any, own: Any) -> Any:
    """SAM's Globals: mappings merge (the resource's keys win), lists add up, anything else is the resource's."""
    if isinstance(defaults, dict) and isinstance(own, dict) and not _is_intrinsic(defaults) and not _is_intrinsic(own):
        return {**defaults, **{key: _merged(defaults[key], value) if key in defaults else value for key, value in own.items()}}
    if isinstance(defaults, list) and isinstance(own, list):
        return defaults + own
    return own


def _comparable(value: Any) -> Any:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value) if isinstance(value, (int, float)) else value
