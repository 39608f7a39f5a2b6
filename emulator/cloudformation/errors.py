"""CloudFormation's errors (the query protocol's codes) and a resource's failure inside a stack operation."""

from __future__ import annotations

from eddy.emulator.errors import AWSError


class ValidationError(AWSError):
    code = "ValidationError"


class AlreadyExistsException(AWSError):
    code = "AlreadyExistsException"


class ChangeSetNotFoundException(AWSError):
    code = "ChangeSetNotFound"
    status = 404


class InvalidChangeSetStatusException(AWSError):
    code = "InvalidChangeSetStatus"


class InsufficientCapabilitiesException(AWSError):
    code = "InsufficientCapabilitiesException"


def template_error(detail: str) -> ValidationError:
    return ValidationError(f"Template format error: {detail}")


class ResourceFailed(Exception):
    """A resource could not be created, updated or deleted: `reason` is its event's ResourceStatusReason;
    `physical_id`, a resource that exists although its creation failed (a custom resource's FAILED response names
    one), which the rollback deletes."""

    def __init__(self, reason: str, physical_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.physical_id = physical_id
