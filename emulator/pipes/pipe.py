"""A pipe (Amazon EventBridge Pipes): its source, filters, enrichment and target, in the Pipes API's words.

Create, update and describe share this module: validation raises the Pipes API's errors (ValidationException with
AWS's "1 validation error detected" shape for ranges and enums, which api/validation.py checks against botocore's
model first), `describe` is DescribePipe's answer. The source's batch parameters become an EventSourceMapping
(triggers/event_source_mappings.py) so the pipe runs on the same pollers as Lambda's mappings (pipes/runners.py).

AWS's rules kept here (EventBridge User Guide, "Amazon EventBridge Pipes batching and concurrency" and the sources'
pages): a DynamoDB or Kinesis stream source needs StartingPosition; an SQS queue, SNS topic or event bus target
takes at most 10 records a batch, so a larger BatchSize is refused; Lambda and Step Functions targets take the whole
batch as a JSON array. AWS's API reference documents no default BatchSize: Eddy uses 1 (its choice, not an answer
recorded from AWS).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eddy.emulator.errors import AWSError
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
from eddy.emulator.event_patterns import PIPES
from eddy.emulator.triggers.filters import FilterCriteriaError, validate_filter_criteria

#: the source parameter group each source service takes, and the services Eddy runs
SOURCE_PARAMETERS = {
    "dynamodb": "DynamoDBStreamParameters",
    "kinesis": "KinesisStreamParameters",
    "sqs": "SqsQueueParameters",
}
TARGET_SERVICES = ("lambda", "sqs", "sns", "events")
#: targets with a batch API of at most 10 entries (the batching page's table)
BATCH_OF_TEN = ("sqs", "sns", "events")
DEFAULT_BATCH_SIZE = 1
#: target parameters Eddy carries out; the others are refused rather than silently ignored
TARGET_PARAMETERS = {
    "lambda": "LambdaFunctionParameters",
    "sqs": "SqsQueueParameters",
    "events": "EventBridgeEventBusParameters",
}


class PipesValidationException(AWSError):
    code = "ValidationException"


class NotFoundException(AWSError):
    code = "NotFoundException"
    status = 404


class ConflictException(AWSError):
    code = "ConflictException"
    status = 409


class PipeFeatureNotEmulated(AWSError):
    """A valid request for a part of Pipes Eddy does not run (HTTP 501, as absent_features.NOT_EMULATED)."""

    code = "NotImplemented"
    status = 501


def service_of(arn: str) -> str:
    parts = arn.split(":")
    return parts[2] if len(parts) >= 6 and parts[0] == "arn" else ""


@dataclass
class Pipe:
    name: str
    account_id: str
    region: str
    source: str
    target: str
    role_arn: str
    description: str = ""
    desired_state: str = "RUNNING"
    current_state: str = "CREATING"
    source_parameters: dict[str, Any] = field(default_factory=dict)
    enrichment: str | None = None
    enrichment_parameters: dict[str, Any] = field(default_factory=dict)
    target_parameters: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    creation_time: float = 0.0
    last_modified_time: float = 0.0
    #: the sequence number after which a LATEST stream source starts (0: the trim horizon)
    start_position: int = 0

    @property
    def key(self) -> str:
        """The pipe's name in files and in the pollers' figures (names are unique per account and region)."""
        return f"pipe-{self.account_id}-{self.region}-{self.name}"

    @property
    def arn(self) -> str:
        return f"arn:aws:pipes:{self.region}:{self.account_id}:pipe/{self.name}"

    @property
    def source_service(self) -> str:
        return service_of(self.source)

    @property
    def target_service(self) -> str:
        return service_of(self.target)

    @property
    def stream_parameters(self) -> dict[str, Any]:
        return self.source_parameters.get(SOURCE_PARAMETERS[self.source_service]) or {}

    def summary(self) -> dict[str, Any]:
        """A ListPipes entry."""
        entry = {
            "Name": self.name,
            "Arn": self.arn,
            "DesiredState": self.desired_state,
            "CurrentState": self.current_state,
            "CreationTime": self.creation_time,
            "LastModifiedTime": self.last_modified_time,
            "Source": self.source,
            "Target": self.target,
        }
        if self.enrichment:
            entry["Enrichment"] = self.enrichment
        return entry

    def describe(self) -> dict[str, Any]:
        answer = {
            "Arn": self.arn,
            "Name": self.name,
            "DesiredState": self.desired_state,
            "CurrentState": self.current_state,
            "Source": self.source,
            "SourceParameters": self.source_parameters,
            "Target": self.target,
            "TargetParameters": self.target_parameters,
            "RoleArn": self.role_arn,
            "Tags": self.tags,
            "CreationTime": self.creation_time,
            "LastModifiedTime": self.last_modified_time,
            "EnrichmentParameters": self.enrichment_parameters,
        }
        if self.description:
            answer["Description"] = self.description
        if self.enrichment:
            answer["Enrichment"] = self.enrichment
        return answer

    def mapping(self) -> EventSourceMapping:
        """The pipe's source as the pollers read a mapping: batch size, window, retries, filters, its DLQ."""
        parameters = self.stream_parameters
        mapping = EventSourceMapping(
            uuid=self.key,
            event_source_arn=self.source,
            function_arn=self.target,
            account_id=self.account_id,
            region=self.region,
            starting_position=parameters.get("StartingPosition", ""),
            batch_size=parameters.get("BatchSize", DEFAULT_BATCH_SIZE),
            maximum_batching_window_in_seconds=parameters.get("MaximumBatchingWindowInSeconds", 0),
            maximum_retry_attempts=parameters.get("MaximumRetryAttempts", -1),
            maximum_record_age_in_seconds=parameters.get("MaximumRecordAgeInSeconds", -1),
            bisect_batch_on_function_error=parameters.get("OnPartialBatchItemFailure") == "AUTOMATIC_BISECT",
            function_response_types=["ReportBatchItemFailures"],
            on_failure_destination=(parameters.get("DeadLetterConfig") or {}).get("Arn"),
            parallelization_factor=parameters.get("ParallelizationFactor", 1),
            filter_criteria=self.source_parameters.get("FilterCriteria"),
        )
        mapping.filters = validate_filter_criteria(mapping.filter_criteria, PIPES)
        return mapping

    def to_state(self) -> dict[str, Any]:
        return dict(vars(self))


def check(pipe: Pipe) -> None:
    """AWS's rules that botocore's model does not carry, for a new or updated pipe."""
    source_service = pipe.source_service
    if source_service not in SOURCE_PARAMETERS:
        raise PipeFeatureNotEmulated(
            f"Eddy runs pipes from a DynamoDB stream, a Kinesis stream or an SQS queue, not from {pipe.source}"
        )
    others = set(pipe.source_parameters) - {SOURCE_PARAMETERS[source_service], "FilterCriteria"}
    if others:
        raise PipesValidationException(
            f"SourceParameters {', '.join(sorted(others))} do not apply to a {source_service} source"
        )
    parameters = pipe.stream_parameters
    if source_service in ("dynamodb", "kinesis") and not parameters.get("StartingPosition"):
        raise PipesValidationException(
            f"{SOURCE_PARAMETERS[source_service]}.StartingPosition is required for a {source_service} stream source"
        )
    if parameters.get("StartingPosition") == "AT_TIMESTAMP" and parameters.get("StartingPositionTimestamp") is None:
        raise PipesValidationException("StartingPositionTimestamp is required for AT_TIMESTAMP")
    age = parameters.get("MaximumRecordAgeInSeconds", -1)
    if age != -1 and age < 60:
        raise PipesValidationException(
            "MaximumRecordAgeInSeconds must be -1 (no maximum) or between 60 and 604800 seconds"
        )
    dead_letter = (parameters.get("DeadLetterConfig") or {}).get("Arn")
    if dead_letter is not None and service_of(dead_letter) not in ("sqs", "sns"):
        raise PipesValidationException(f"DeadLetterConfig.Arn must be an SQS queue or SNS topic ARN, not {dead_letter}")
    try:
        validate_filter_criteria(pipe.source_parameters.get("FilterCriteria"), PIPES)
    except FilterCriteriaError as error:
        raise PipesValidationException(str(error)) from None
    target_service = pipe.target_service
    if target_service not in TARGET_SERVICES:
        raise PipeFeatureNotEmulated(
            f"Eddy delivers pipes to a Lambda function, an SQS queue, an SNS topic or an event bus, not to {pipe.target}"
        )
    if target_service in BATCH_OF_TEN and parameters.get("BatchSize", DEFAULT_BATCH_SIZE) > 10:
        raise PipesValidationException(
            f"BatchSize {parameters['BatchSize']} is more than the target supports: an {target_service} target "
            "takes at most 10 records a batch"
        )
    given = set(pipe.target_parameters) - {"InputTemplate"}
    if given - {TARGET_PARAMETERS.get(target_service, "")}:
        raise PipesValidationException(
            f"TargetParameters {', '.join(sorted(given))} do not apply to a {target_service} target"
        )
    unsupported = set(pipe.target_parameters) & {"InputTemplate"}
    if pipe.enrichment_parameters:
        unsupported.add("EnrichmentParameters")
    if unsupported:
        raise PipeFeatureNotEmulated(
            f"Eddy does not emulate {', '.join(sorted(unsupported))} for a {target_service} target yet"
        )
    if pipe.enrichment is not None and service_of(pipe.enrichment) != "lambda":
        raise PipeFeatureNotEmulated(f"Eddy enriches with a Lambda function only, not {pipe.enrichment}")
