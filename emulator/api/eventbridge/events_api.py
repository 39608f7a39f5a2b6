"""The EventBridge API's event-pattern operations, answered by Eddy in both doors (JSON 1.1, X-Amz-Target
AWSEvents.<Operation>); every other EventBridge operation is moto's.

- TestEventPattern: the pattern compiled and matched by emulator/event_patterns/ ({"Result": true|false}); an
  invalid pattern is InvalidEventPatternException ("Event pattern is not valid. Reason: " and AWS's reason with
  the place it names); an Event that is not a JSON object with id, account, source, time, region and detail-type
  is ValidationException "Parameter Event is not valid." (LocalStack's AWS-validated test_events_patterns
  snapshots: test_plain_string_payload, test_array_event_payload, test_invalid_event_payload).
- PutTargets: a target with more than one of Input, InputPath and InputTransformer, or whose InputTemplate names a
  placeholder that is neither an InputPathsMap key nor a predefined variable, refused in EventBridge's words before
  moto stores anything (eventbridge/target_input.py); the rest is moto's, a rule that would have more than 5 targets
  refused in the call that writes them (moto_seam/eventbridge/rules.py). Its FailedEntries, and RemoveTargets', are empty: AWS
  fails an entry only for requests made at the same time (ConcurrentModificationException) or its own failure
  (InternalException), neither of which Eddy's one lock lets happen.
- CreateConnection: the request checked against botocore's events model and refused in the model's words
  (ValidationException "N validation errors detected: ..."; LocalStack's AWS-validated test_events.snapshot.json,
  TestEvents::test_create_connection_validations) before moto, which checks none, stores anything; a valid
  request is moto's.
- PutRule: an EventPattern is compiled first and refused as TestEventPattern refuses it, before moto stores
  anything; a valid one goes on to moto, and the rule's events are matched by the same engine
  (eventbridge/rules.py).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any


from eddy.emulator.api import validation
from eddy.emulator.aws_requests import Request, Response, error_response, json_response
from eddy.emulator.errors import AWSError, InvalidEventPatternException, ValidationException
from eddy.emulator.event_patterns import EVENTBRIDGE, EventPattern, InvalidEventPattern
from eddy.emulator.eventbridge.target_input import placeholders_not_defined

TARGET_PREFIX = "AWSEvents."
JSON_1_1 = "application/x-amz-json-1.1"
OPERATIONS = ("TestEventPattern", "PutRule", "PutTargets", "CreateConnection")
EVENT_FIELDS = ("id", "account", "source", "time", "region", "detail-type")
NOT_VALID = "Event pattern is not valid. Reason: "

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator


def claims(request: Request) -> bool:
    target = request.header("X-Amz-Target") or ""
    return target.startswith(TARGET_PREFIX) and target[len(TARGET_PREFIX) :] in OPERATIONS


def handle(emulator: "Emulator", request: Request) -> Response | None:
    """The operation's answer, or None where moto answers (a PutRule whose pattern is valid)."""
    operation = (request.header("X-Amz-Target") or "")[len(TARGET_PREFIX) :]
    try:
        params = _params(request)
        validation.validate("events", operation, params)
        if operation == "CreateConnection":
            return None
        if operation == "PutTargets":
            check_target_inputs(params.get("Targets") or [])
            return None
        if operation == "TestEventPattern":
            return json_response(
                {"Result": test_event_pattern(params["EventPattern"], params["Event"])}, content_type=JSON_1_1
            )
        if params.get("EventPattern") is not None:
            compiled(params["EventPattern"])
        return None
    except AWSError as error:
        return error_response(error, JSON_1_1)


def check_target_inputs(targets: list[dict[str, Any]]) -> None:
    """PutTargets' refusals of a target's input, in EventBridge's words (LocalStack's AWS-validated
    test_events_inputs.snapshot.json: test_put_event_input_path_and_input_transformer,
    test_put_events_with_input_transformer_missing_keys), before moto stores any target."""
    for target in targets:
        if sum(target.get(name) is not None for name in ("Input", "InputPath", "InputTransformer")) > 1:
            raise ValidationException(
                f"Only one of Input, InputPath, or InputTransformer must be provided for target {target.get('Id')}."
            )
        undefined = placeholders_not_defined(target.get("InputTransformer") or {})
        if undefined:
            raise ValidationException(
                f"InputTemplate for target {target.get('Id')} contains invalid placeholder {undefined[0]}."
            )


def compiled(pattern: str) -> EventPattern:
    """The rule's pattern, or EventBridge's refusal."""
    try:
        return EventPattern.compile(pattern, EVENTBRIDGE)
    except InvalidEventPattern as refusal:
        raise InvalidEventPatternException(NOT_VALID + str(refusal)) from None


def test_event_pattern(pattern: str, event: str) -> bool:
    compiled_pattern = compiled(pattern)
    try:
        parsed = json.loads(event, parse_constant=lambda name: {}[name])  # NaN and Infinity are not JSON
    except (ValueError, KeyError):
        raise ValidationException("Parameter Event is not valid.") from None
    if not isinstance(parsed, dict) or any(name not in parsed for name in EVENT_FIELDS):
        raise ValidationException("Parameter Event is not valid.")
    return compiled_pattern.matches(parsed)


def _params(request: Request) -> dict[str, Any]:
    try:
        params = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise ValidationException("The request body is not valid JSON") from None
    if not isinstance(params, dict):
        raise ValidationException("The request body must be a JSON object")
    return params
