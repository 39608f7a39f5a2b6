"""Event source mappings from an SQS queue: their parameters, Lambda's rules for them, and their configuration.

What differs from a stream's mapping (Lambda Developer Guide, "Using Lambda with Amazon SQS" and
CreateEventSourceMapping):
  - no StartingPosition, and none of the stream-only parameters (ParallelizationFactor, MaximumRetryAttempts,
    MaximumRecordAgeInSeconds, BisectBatchOnFunctionError, TumblingWindowInSeconds, DestinationConfig: a queue's
    failures go to its own RedrivePolicy dead-letter queue);
  - BatchSize defaults to 10, at most 10,000 for a standard queue and 10 for a FIFO queue; above 10 a
    MaximumBatchingWindowInSeconds of at least 1 is required;
  - no MaximumBatchingWindowInSeconds above 0 on a FIFO queue (the window "applies only to standard queues");
  - the function's Timeout may not be longer than the queue's VisibilityTimeout;
  - ScalingConfig.MaximumConcurrency (2..1000) caps the concurrent invocations;
  - the configuration AWS answers has no stream fields (AWS-recorded in localstack's
    test_lambda_integration_sqs.snapshot.json: BatchSize, EventSourceArn, FunctionArn, FunctionResponseTypes,
    LastModified, MaximumBatchingWindowInSeconds, State, StateTransitionReason "USER_INITIATED", UUID).
The error words: "StartingPosition is not valid for SQS event sources.", "Maximum batch window in seconds must
be greater than 0 if maximum batch size is greater than 10" and the two below as AWS answers them (reported through CloudFormation,
and in localstack's and other emulators' AWS-validated tests); a queue that does not exist is the error Lambda's
own ReceiveMessage meets. Where AWS's exact words were not found (stream-only parameters) the message is Eddy's, in
the same style, and says so in docs/guides/pipeline-triggers.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from eddy.emulator.errors import InvalidParameterValueException, ResourceConflictException
from eddy.emulator.moto_seam import sqs as sqs_seam
from eddy.emulator.triggers.event_source_mappings import EventSourceMapping, apply_parameters, new_uuid

if TYPE_CHECKING:
    from eddy.emulator.functions.registry import FunctionRegistry

#: AWS's answer to a function whose Timeout is longer than the queue's VisibilityTimeout, at CreateEventSourceMapping
#: and at an UpdateEventSourceMapping naming a function (quoted from AWS in terraform-aws-github-runner#465,
#: winglang/wing#1507, aws/serverless-application-model#3445: equal timeouts pass); UpdateFunctionConfiguration raising
#: the timeout later is not refused (terraform-aws-github-runner#467 saw the function's update pass where the
#: mapping's creation failed)
VISIBILITY_SHORTER = "Queue visibility timeout: {visibility} seconds is less than Function timeout: {timeout} seconds"
#: AWS's answer to MaximumBatchingWindowInSeconds above 0 on a FIFO queue (quoted from AWS through CloudFormation in
#: aws/aws-lambda-dotnet#1758, BatchSize 100 with a 5-second window; the Lambda guide: the batch window "applies only
#: to standard queues"); a window of 0 is accepted (localstack's AWS-validated test_report_batch_item_failures)
FIFO_BATCHING_WINDOW = "Batching window is not supported for FIFO queues"
#: AWS's answer to a queue that does not exist (AWS-recorded, 2025-11-25: localstack's
#: test_lambda_integration_sqs.snapshot.json, test_esm_with_not_existing_sqs_queue)
NO_QUEUE = (
    "Error occurred while ReceiveMessage. SQS Error Code: AWS.SimpleQueueService.NonExistentQueue. "
    "SQS Error Message: The specified queue does not exist."
)
#: AWS's answer to a second mapping of one queue to one function (AWS-recorded, 2025-11-25: localstack's
#: test_lambda_integration_sqs.snapshot.json, test_duplicate_event_source_mappings); a stream's words differ
DUPLICATE = (
    'An event source mapping with SQS arn (" {arn} ") and function (" {function} ") already exists. '
    "Please update or delete the existing mapping with UUID {uuid}"
)
STREAM_ONLY = (
    "StartingPositionTimestamp",
    "ParallelizationFactor",
    "MaximumRetryAttempts",
    "MaximumRecordAgeInSeconds",
    "BisectBatchOnFunctionError",
    "TumblingWindowInSeconds",
    "DestinationConfig",
)
#: concurrent batches a queue mapping runs without a ScalingConfig (Lambda starts with five pollers)
DEFAULT_POLLERS = 5
#: Eddy's ceiling on concurrent batches per mapping (MaximumConcurrency above it runs this many)
MAX_POLLERS = 10


def is_queue_arn(arn: str) -> bool:
    return sqs_seam.QUEUE_ARN.match(arn) is not None


def create_queue_mapping(
    params: dict[str, Any],
    account_id: str,
    region: str,
    *,
    functions: FunctionRegistry,
    mappings: Iterable[EventSourceMapping],
    now: float,
) -> EventSourceMapping:
    """A new mapping from the queue `params["EventSourceArn"]` names to a function of `functions`, unless one of
    `mappings` already joins them (the caller holds the emulator's lock)."""
    source = params["EventSourceArn"]
    refuse_stream_only(params)
    queue = sqs_seam.find_queue(source)
    if queue is None:
        raise InvalidParameterValueException(NO_QUEUE)
    function, function_arn = functions.qualified_target(params["FunctionName"], account_id, region)
    check_visibility_timeout(queue, function)
    for existing in mappings:
        if existing.event_source_arn == source and existing.function_arn == function_arn:
            raise ResourceConflictException(DUPLICATE.format(arn=source, function=function.name, uuid=existing.uuid))
    mapping = EventSourceMapping(
        uuid=new_uuid(),
        event_source_arn=source,
        function_arn=function_arn,
        account_id=account_id,
        region=region,
        starting_position="",
        last_modified=now,
        batch_size=10,
    )
    apply_queue_parameters(mapping, params, fifo=sqs_seam.is_fifo(queue))
    return mapping


def apply_queue_parameters(mapping: EventSourceMapping, params: dict[str, Any], *, fifo: bool) -> None:
    """Validate and apply a queue mapping's parameters (create and update: the caller gives a mapping it may throw
    away, Triggers.update a copy)."""
    _refuse_stream_parameters(params)
    if params.get("StartingPosition") is not None:
        raise InvalidParameterValueException("StartingPosition is not valid for SQS event sources.")
    apply_parameters(mapping, {name: value for name, value in params.items() if name != "ScalingConfig"})
    if "ScalingConfig" in params:
        scaling = params["ScalingConfig"] or {}
        mapping.maximum_concurrency = scaling.get("MaximumConcurrency") if isinstance(scaling, dict) else None
    # a FIFO queue's batch is at most 10 because a larger one needs a window and a FIFO queue may have none: AWS's two
    # recorded refusals, in this order, cover it (BatchSize 100 with a window: FIFO_BATCHING_WINDOW, as recorded)
    if fifo and mapping.maximum_batching_window_in_seconds > 0:
        raise InvalidParameterValueException(FIFO_BATCHING_WINDOW)
    if mapping.batch_size > 10 and mapping.maximum_batching_window_in_seconds < 1:
        raise InvalidParameterValueException(
            "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10"
        )


def check_visibility_timeout(queue: Any, function: Any) -> None:
    """Lambda refuses to pair a queue with a function that may run longer than the queue hides a message (a batch
    could be received again while the function still works on it): AWS's words, VISIBILITY_SHORTER."""
    visibility = sqs_seam.visibility_timeout(queue)
    if visibility < function.timeout:
        raise InvalidParameterValueException(VISIBILITY_SHORTER.format(visibility=visibility, timeout=function.timeout))


def refuse_stream_only(params: dict[str, Any]) -> None:
    """A queue mapping's request with a stream's parameters refused, before its function and queue are looked for
    (AWS-recorded: LocalStack's test_lambda_api.snapshot.json, TestLambdaEventSourceMappings::
    test_event_source_mapping_exceptions "destination_config_failure": an OnSuccess destination refused for a function
    and a queue that do not exist)."""
    if params.get("StartingPosition") is not None:
        raise InvalidParameterValueException("StartingPosition is not valid for SQS event sources.")
    _refuse_stream_parameters(params)


def _refuse_stream_parameters(params: dict[str, Any]) -> None:
    for name in STREAM_ONLY:
        if params.get(name) is not None and not (name == "DestinationConfig" and not _has_destination(params[name])):
            raise InvalidParameterValueException(f"Unsupported {name} parameter for given event source mapping type.")


def _has_destination(config: Any) -> bool:
    if not isinstance(config, dict):
        return True
    return any((config.get(kind) or {}).get("Destination") for kind in ("OnFailure", "OnSuccess"))


def pollers(mapping: EventSourceMapping) -> int:
    """How many batches of this mapping may be in flight at once."""
    if mapping.maximum_concurrency is None:
        return DEFAULT_POLLERS
    return min(mapping.maximum_concurrency, MAX_POLLERS)


QUEUE_UPDATABLE = frozenset(
    {
        "Enabled",
        "BatchSize",
        "MaximumBatchingWindowInSeconds",
        "FunctionResponseTypes",
        "FilterCriteria",
        "FunctionName",
        "ScalingConfig",
    }
    | set(STREAM_ONLY)
)


def update_queue_mapping(mapping: EventSourceMapping, params: dict[str, Any], function: Any = None) -> None:
    """UpdateEventSourceMapping's parameters applied to a queue mapping (stream-only ones refused); `function`, when
    the update names one, must not run longer than the queue's visibility timeout."""
    queue = sqs_seam.find_queue(mapping.event_source_arn)
    apply_queue_parameters(mapping, params, fifo=queue is not None and sqs_seam.is_fifo(queue))
    if function is not None and queue is not None:
        check_visibility_timeout(queue, function)
