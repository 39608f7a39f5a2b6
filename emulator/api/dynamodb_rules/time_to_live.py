"""UpdateTimeToLive held to the table's current Time to Live, and DescribeTimeToLive once it is off, as AWS answers.

- Enabling TTL where it is on already, under the same attribute: "TimeToLive is already enabled";
- enabling or disabling it under another attribute than the one it is on: "TimeToLive is active on a different
  AttributeName: current AttributeName is <name>";
- disabling it where it is off: "TimeToLive is already disabled".
(ScyllaDB's AWS-run test_ttl.py::test_ttl_enable / test_ttl_disable_errors pin when each is refused; the words are
AWS's as its clients match them: the Terraform AWS provider's `isAWSErr(err, "ValidationException", "TimeToLive is
already disabled")`, Ansible's dynamodb_ttl tests' "TimeToLive is active on a different AttributeName: current
AttributeName is {}".) Off, DescribeTimeToLive names no attribute: {"TimeToLiveStatus": "DISABLED"} (ScyllaDB's
test_ttl.py::test_ttl_disable, run on AWS).
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.errors import ValidationException

ON = ("ENABLED", "ENABLING")


def check_update(current: dict[str, Any], specification: dict[str, Any]) -> None:
    """Raise AWS's error if `specification` (UpdateTimeToLive's) cannot apply to the table's `current` description."""
    on = current.get("TimeToLiveStatus") in ON
    if not on:
        if not specification.get("Enabled"):
            raise ValidationException("TimeToLive is already disabled")
        return
    if current.get("AttributeName") != specification.get("AttributeName"):
        raise ValidationException("TimeToLive is active on a different AttributeName: current AttributeName is "
                                  f"{current.get('AttributeName')}")
    if specification.get("Enabled"):
        raise ValidationException("TimeToLive is already enabled")


def described(description: dict[str, Any]) -> dict[str, Any]:
    """A table's TimeToLiveDescription as AWS gives it: without an attribute while TTL is off."""
    if description.get("TimeToLiveStatus") in ON:
        return description
    return {"TimeToLiveStatus": description.get("TimeToLiveStatus", "DISABLED")}
