"""FunctionConfiguration, as the Lambda API answers it (CreateFunction, GetFunction, GetFunctionConfiguration, the
updates, ListFunctions, PublishVersion, ListVersionsByFunction): a Function's (functions/function.py) settings with
its state at the moment asked (Pending while created, InProgress while updated: the Lambda Developer Guide's "Lambda
function states")."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from eddy.emulator.functions.function import ANSWERED_AS, Function
from eddy.emulator.functions.versions import LATEST


def function_configuration(function: Function, moment: str = "", arn: str | None = None) -> dict[str, Any]:
    """FunctionConfiguration, as the Lambda API returns it. `moment`: "created" for CreateFunction's answer (State
    Pending, the function is being created) and "updated" for an update's (LastUpdateStatus InProgress), as AWS
    answers them (LocalStack's AWS-validated snapshots: test_lambda.snapshot.json test_function_state, and
    test_lambda_api.snapshot.json's update_func_conf_response). A created function stays Pending until its creation
    completes (`creation_completed`), then is Active under a RevisionId of its own: Lambda's state change is a new
    revision (AWS-recorded: test_lambda_api.snapshot.json TestLambdaRevisions::test_function_revisions_basic, rev1
    Pending to rev2 Active). An update stays InProgress, under its own RevisionId, until it completes (its state
    read, `update_read`, or its time on the clock over: `update_started`). `arn`: the FunctionArn answered (a
    version's is qualified; $LATEST's only when the request named it)."""
    revision_id = function.revision_id
    if function.update is not None and moment in ("", "updated"):  # registry.settle ends one whose time is over
        moment, revision_id = "updated", function.update.revision_id
    elif function.transition is not None and moment in ("", ANSWERED_AS[function.transition[0]]):
        moment, revision_id = ANSWERED_AS[function.transition[0]], function.transition[1]
    elif moment:
        revision_id = str(uuid.uuid4())
    configuration: dict[str, Any] = {
        "FunctionName": function.name,
        "FunctionArn": arn or function.qualified_arn,
        "Runtime": function.runtime,
        "Role": function.role,
        "Handler": function.handler,
        "CodeSize": function.code_size,
        "Description": function.description,
        "Timeout": function.timeout,
        "MemorySize": function.memory_size,
        "LastModified": function.last_modified,
        "CodeSha256": function.code_sha256,
        "Version": function.version,
        **_STATES.get(moment, _STATES[""]),
        "PackageType": "Zip",
        "Architectures": list(function.architectures),
        "EphemeralStorage": {"Size": function.ephemeral_storage},
        "TracingConfig": {"Mode": function.tracing_mode},
        "SnapStart": {"ApplyOn": function.snap_start, "OptimizationStatus": _optimization_status(function)},
        "RuntimeVersionConfig": {"RuntimeVersionArn": runtime_version_arn(function.region, function.runtime)},
        "RevisionId": revision_id,
    }
    if function.environment or function.environment_given:
        configuration["Environment"] = {"Variables": dict(function.environment)}
    if function.layers:
        configuration["Layers"] = [dict(layer) for layer in function.layers]
    configuration["LoggingConfig"] = dict(function.logging_config)
    if function.dead_letter_target:
        configuration["DeadLetterConfig"] = {"TargetArn": function.dead_letter_target}
    return configuration


def _optimization_status(function: Function) -> str:
    """SnapStart's OptimizationStatus: On for a version published while ApplyOn was PublishedVersions (the API
    Reference's SnapStartResponse), Off for $LATEST."""
    return "On" if function.snap_start == "PublishedVersions" and function.version != LATEST else "Off"


_STATES: dict[str, dict[str, str]] = {
    "": {"State": "Active", "LastUpdateStatus": "Successful"},
    "created": {"State": "Pending", "StateReason": "The function is being created.", "StateReasonCode": "Creating"},
    "updated": {
        "State": "Active",
        "LastUpdateStatus": "InProgress",
        "LastUpdateStatusReason": "The function is being created.",
        "LastUpdateStatusReasonCode": "Creating",
    },
}


def runtime_version_arn(region: str, runtime: str) -> str:
    """RuntimeVersionConfig.RuntimeVersionArn: one runtime version per runtime, in the API Reference's form
    (arn:aws:lambda:<region>::runtime:<id>); every function of a runtime runs the same one, as the recorded answers
    show (one transformed value for all functions of a runtime in test_lambda_api.snapshot.json)."""
    return f"arn:aws:lambda:{region}::runtime:{hashlib.sha256(runtime.encode()).hexdigest()}"
