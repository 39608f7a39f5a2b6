"""A function's LoggingConfig (format, levels, log group) as the Lambda API sets and answers it: pure rules, which
the function registry applies and log_groups.py writes by."""

from __future__ import annotations

from typing import Any

from eddy.emulator.errors import InvalidParameterValueException


def default_log_group(function_name: str) -> str:
    return f"/aws/lambda/{function_name}"


def logging_config(requested: Any, function_name: str, current: dict[str, str] | None = None) -> dict[str, str]:
    """A function's LoggingConfig after CreateFunction or UpdateFunctionConfiguration asked for `requested`: the
    members given replace the current ones; JSON brings levels (INFO unless given), Text drops them (as AWS's
    answers recorded in LocalStack's AWS-validated TestLoggingConfig snapshots). The members' values were checked
    against the Lambda API's model at the door (api/validation.py), in AWS's words."""
    config = dict(current or {"LogFormat": "Text", "LogGroup": default_log_group(function_name)})
    if requested is None:
        return config
    if not isinstance(requested, dict):
        raise InvalidParameterValueException("LoggingConfig must be an object")
    config.update({member: value for member, value in requested.items() if value is not None})
    if config["LogFormat"] == "JSON":
        config.setdefault("ApplicationLogLevel", "INFO")
        config.setdefault("SystemLogLevel", "INFO")
    else:
        config.pop("ApplicationLogLevel", None)
        config.pop("SystemLogLevel", None)
    return config
