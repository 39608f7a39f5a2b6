"""Event source mappings: which function a stream's records go to, and how (AWS Lambda's parameters).

Option names, ranges and defaults are AWS's (see ../shared/reference/AWS_BEHAVIOUR.md section 4).
Validation raises the Lambda API's errors; `to_dict` is EventSourceMappingConfiguration.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from eddy.emulator.errors import InvalidParameterValueException, ValidationException, constraint_violation
from eddy.emulator.triggers.filters import FilterCriteriaError, validate_filter_criteria

STARTING_POSITIONS = ("TRIM_HORIZON", "LATEST")
KINESIS_STARTING_POSITIONS = ("TRIM_HORIZON", "LATEST", "AT_TIMESTAMP")
DESTINATION_SERVICES = ("sqs", "sns", "s3")
log = logging.getLogger("eddy.triggers")

#: name: (lower bound, upper bound, default)
RANGES: dict[str, tuple[int, int, int]] = {
    "BatchSize": (1, 10000, 100),
    "MaximumBatchingWindowInSeconds": (0, 300, 0),
    "MaximumRetryAttempts": (-1, 10000, -1),
    "MaximumRecordAgeInSeconds": (-1, 604800, -1),
    "ParallelizationFactor": (1, 10, 1),
    "TumblingWindowInSeconds": (0, 900, 0),
}
UPDATABLE = frozenset(
    {
        "Enabled",
        "BatchSize",
        "MaximumBatchingWindowInSeconds",
        "MaximumRetryAttempts",
        "MaximumRecordAgeInSeconds",
        "BisectBatchOnFunctionError",
        "FunctionResponseTypes",
        "DestinationConfig",
        "ParallelizationFactor",
        "TumblingWindowInSeconds",
        "FilterCriteria",
        "FunctionName",
    }
)


@dataclass
class EventSourceMapping:
    uuid: str
    event_source_arn: str
    function_arn: str
    account_id: str
    region: str
    starting_position: str
    enabled: bool = True
    batch_size: int = 100
    maximum_batching_window_in_seconds: int = 0
    maximum_retry_attempts: int = -1
    maximum_record_age_in_seconds: int = -1
    bisect_batch_on_function_error: bool = False
    function_response_types: list[str] = field(default_factory=list)
    on_failure_destination: str | None = None
    parallelization_factor: int = 1
    tumbling_window_in_seconds: int = 0
    filter_criteria: dict[str, Any] | None = None
    filters: list[Any] = field(default_factory=list)
    state: str = "Creating"
    state_transition_reason: str = "USER_INITIATED"
    last_modified: float = 0.0
    last_processing_result: str = "No records processed"
    starting_position_timestamp: float | None = None
    #: ScalingConfig.MaximumConcurrency (queue sources)
    maximum_concurrency: int | None = None
    #: its tags (CreateEventSourceMapping's Tags, TagResource on its ARN: api/lambda_/resources/tags.py)
    tags: dict[str, str] = field(default_factory=dict)

    @property
    def arn(self) -> str:
        return f"arn:aws:lambda:{self.region}:{self.account_id}:event-source-mapping:{self.uuid}"

    @property
    def label(self) -> str:
        """How logs name it: the function and the source, e.g. `replicate <- orders (1a2b3c4d)`."""
        function = self.function_arn.rsplit(":function:", 1)[-1]
        resource = self.event_source_arn.split(":", 5)[-1]  # table/orders/stream/<label>, or stream/<name>
        parts = resource.split("/")
        source = parts[1] if len(parts) > 1 else resource
        return f"{function} <- {source} ({self.uuid[:8]})"

    @property
    def is_queue(self) -> bool:
        """An SQS queue's mapping (triggers/sqs_mappings.py), not a stream's."""
        return self.event_source_arn.split(":", 3)[2:3] == ["sqs"]

    @property
    def reports_batch_item_failures(self) -> bool:
        return "ReportBatchItemFailures" in self.function_response_types

    def to_dict(self) -> dict[str, Any]:
        if self.is_queue:
            return self._queue_configuration()
        configuration: dict[str, Any] = {
            "UUID": self.uuid,
            "StartingPosition": self.starting_position,
            "BatchSize": self.batch_size,
            "MaximumBatchingWindowInSeconds": self.maximum_batching_window_in_seconds,
            "ParallelizationFactor": self.parallelization_factor,
            "EventSourceArn": self.event_source_arn,
            "FunctionArn": self.function_arn,
            "LastModified": self.last_modified,
            "LastProcessingResult": self.last_processing_result,
            "State": self.state,
            "StateTransitionReason": self.state_transition_reason,
            "DestinationConfig": {"OnFailure": {"Destination": self.on_failure_destination}}
            if self.on_failure_destination
            else {"OnFailure": {}},
            "MaximumRecordAgeInSeconds": self.maximum_record_age_in_seconds,
            "BisectBatchOnFunctionError": self.bisect_batch_on_function_error,
            "MaximumRetryAttempts": self.maximum_retry_attempts,
            "TumblingWindowInSeconds": self.tumbling_window_in_seconds,
            "FunctionResponseTypes": list(self.function_response_types),
            "EventSourceMappingArn": self.arn,
        }
        if self.starting_position_timestamp is not None:
            configuration["StartingPositionTimestamp"] = self.starting_position_timestamp
        if self.filter_criteria:
            configuration["FilterCriteria"] = self.filter_criteria
        return configuration

    def _queue_configuration(self) -> dict[str, Any]:
        """A queue mapping's configuration has no stream fields (AWS-recorded: localstack's
        test_lambda_integration_sqs.snapshot.json); ScalingConfig when set."""
        configuration: dict[str, Any] = {
            "UUID": self.uuid,
            "BatchSize": self.batch_size,
            "MaximumBatchingWindowInSeconds": self.maximum_batching_window_in_seconds,
            "EventSourceArn": self.event_source_arn,
            "FunctionArn": self.function_arn,
            "LastModified": self.last_modified,
            "State": self.state,
            "StateTransitionReason": "USER_INITIATED",
            "FunctionResponseTypes": list(self.function_response_types),
            "EventSourceMappingArn": self.arn,
        }
        if self.filter_criteria:
            configuration["FilterCriteria"] = self.filter_criteria
        if self.maximum_concurrency is not None:
            configuration["ScalingConfig"] = {"MaximumConcurrency": self.maximum_concurrency}
        return configuration


def new_uuid() -> str:
    return str(uuid.uuid4())


def _field(name: str) -> str:
    return name[0].lower() + name[1:]


def _integer(params: dict[str, Any], name: str) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationException(f"{name} must be an integer")
    low, high, _ = RANGES[name]
    if value < low:
        raise constraint_violation(_field(name), value, f"Member must have value greater than or equal to {low}")
    if value > high:
        raise constraint_violation(_field(name), value, f"Member must have value less than or equal to {high}")
    return value


def apply_parameters(mapping: EventSourceMapping, params: dict[str, Any]) -> None:
    """Validate the settable parameters in `params` and apply them to `mapping` (create and update share this)."""
    for name in RANGES:
        value = _integer(params, name)
        if value is not None:
            setattr(mapping, _snake(name), value)
    age = mapping.maximum_record_age_in_seconds
    if age != -1 and age < 60:
        raise InvalidParameterValueException(
            "MaximumRecordAgeInSeconds must be -1 (no maximum) or between 60 and 604800 seconds"
        )
    for name in ("Enabled", "BisectBatchOnFunctionError"):
        if name in params:
            if not isinstance(params[name], bool):
                raise ValidationException(f"{name} must be a boolean")
            setattr(mapping, _snake(name), params[name])
    if "FunctionResponseTypes" in params:
        types = params["FunctionResponseTypes"] or []
        if not isinstance(types, list) or any(t != "ReportBatchItemFailures" for t in types):
            raise constraint_violation(
                "functionResponseTypes", types, "Member must satisfy enum value set: [ReportBatchItemFailures]"
            )
        mapping.function_response_types = list(dict.fromkeys(types))
    if "DestinationConfig" in params:
        mapping.on_failure_destination = _on_failure_destination(params["DestinationConfig"])
    if "FilterCriteria" in params:
        criteria = params["FilterCriteria"] or None
        try:
            mapping.filters = validate_filter_criteria(criteria)
        except FilterCriteriaError as error:  # AWS's words only ("Invalid filter pattern definition."); the
            log.info("FilterCriteria refused: %s", error.reason)  # reason, which AWS does not give, is logged
            kind = ValidationException if error.code == "ValidationException" else InvalidParameterValueException
            raise kind(error.message) from None
        mapping.filter_criteria = criteria if mapping.filters else None


def _on_failure_destination(config: Any) -> str | None:
    if not isinstance(config, dict):
        raise ValidationException("DestinationConfig must be an object")
    on_failure = config.get("OnFailure") or {}
    if config.get("OnSuccess"):
        raise InvalidParameterValueException(
            "Unsupported DestinationConfig parameter for given event source mapping type."
        )
    destination = on_failure.get("Destination")
    if destination is None:
        return None
    parts = str(destination).split(":")
    if len(parts) < 6 or parts[0] != "arn" or parts[2] not in DESTINATION_SERVICES:
        raise InvalidParameterValueException(
            f"The provided destination config DestinationConfig(onFailure=OnFailure(destination={destination})) is invalid: "
            "the on-failure destination of a DynamoDB stream must be an SQS queue, SNS topic or S3 bucket ARN"
        )
    return destination


def _snake(name: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name).lstrip("_")
