"""DynamoDB's resource-based policies (Put/Get/DeleteResourcePolicy, CreateTable's ResourcePolicy) as DynamoDB answers
them, on tables and on their streams: Eddy's, not moto's (moto read a stream's label as a table name, answered a
Delete of no policy with ResourceNotFoundException, kept policies past their table's deletion).

Each table and each of its streams has its own policy (AWS-recorded, the ack-api-quirks DynamoDB findings, verified
2026-10-09: DDB-TABLE-205, 207, 209, 212, 213, 214; moto's AWS-verified test_dynamodb_resource_policy.py):
- a policy's RevisionId is the epoch milliseconds of the change on the emulator's clock, 13 digits, increasing;
  a document the same as the current one once in canonical form (documents.py) changes nothing and answers its id;
- Get of a resource without a policy: PolicyNotFoundException "Resource-based policy not found for the provided
  ResourceArn: <ARN>"; Delete of one that never had a policy: 200 and {}; the first Delete answers the deleted
  policy's id, a later one the deletion's own id (a tombstone);
- ExpectedRevisionId: "NO_POLICY" where a policy exists, another id than the current one, or an id where there
  is no policy: PolicyNotFoundException in DynamoDB's words (`_expected`);
- the ARN must be the caller's table's or stream's (resource_arns.py); a table that is not there
  ResourceNotFoundException "Requested resource not found: Table: <name> not found", a stream it does not have
  "Requested resource not found: Stream: <label> not found for Table: <name>".
Policies are kept, never evaluated: every caller may do everything.
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.api.dynamodb.resource_policies import documents, resource_arns
from eddy.emulator.aws_requests import Request, Response, json_response
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, ResourceNotFoundException
from eddy.emulator.moto_seam import bridge as moto_bridge
from eddy.emulator.moto_seam.tables.resource_policies import Slot, slots

OPERATIONS = frozenset({"PutResourcePolicy", "GetResourcePolicy", "DeleteResourcePolicy"})
NOT_FOUND = "Resource-based policy not found for the provided ResourceArn: "
NO_POLICY = "NO_POLICY"


class PolicyNotFoundException(AWSError):
    code = "PolicyNotFoundException"


def handle(emulator: Emulator, operation: str, request: Request, params: dict[str, Any]) -> Response:
    account_id, region = moto_bridge.caller(request)
    resource = resource_arns.read(params["ResourceArn"], account_id, region)
    with emulator.lock:
        held = slots(account_id, region, resource.table_name)
        if held is None:
            if operation == "GetResourcePolicy" and _known_stream(emulator, resource):  # its table deleted
                raise PolicyNotFoundException(NOT_FOUND + resource.arn)
            raise ResourceNotFoundException(f"Requested resource not found: Table: {resource.table_name} not found")
        if resource.stream_label is not None and not _known_stream(emulator, resource):
            raise ResourceNotFoundException(
                f"Requested resource not found: Stream: {resource.stream_label} not found "
                f"for Table: {resource.table_name}"
            )
        slot = held.get(resource.arn)
        if operation == "GetResourcePolicy":
            if slot is None or slot.document is None:
                raise PolicyNotFoundException(NOT_FOUND + resource.arn)
            return json_response({"Policy": slot.document, "RevisionId": slot.revision_id})
        if operation == "PutResourcePolicy":
            document, sameness = documents.canonical(params["Policy"])
            _expected(params.get("ExpectedRevisionId"), slot, resource.table_name)
            if slot is not None and slot.sameness == sameness:
                return json_response({"RevisionId": slot.revision_id})
            written = Slot(_next_revision(emulator, slot), document, sameness)
        else:
            expected = params.get("ExpectedRevisionId")
            if expected is not None:
                _expected(expected, slot, resource.table_name)
            if slot is None:
                return json_response({})
            if slot.document is None:
                return json_response({"RevisionId": slot.revision_id})
            written = Slot(_next_revision(emulator, slot))
        _write(emulator, account_id, region, operation, resource.arn, written)
        held[resource.arn] = written
        return json_response({"RevisionId": written.revision_id if written.document is not None else slot.revision_id})


def created_with(params: dict[str, Any]) -> tuple[str, str] | None:
    """CreateTable's ResourcePolicy in canonical form, refused before the table is made (None: it has none)."""
    policy = params.get("ResourcePolicy")
    return None if policy is None else documents.canonical(policy)


def attach(emulator: Emulator, account_id: str, region: str, table_name: str, policy: tuple[str, str] | None) -> None:
    """The policy CreateTable was given, on the table it made (under the emulator's lock)."""
    if policy is None:
        return
    arn = f"arn:{resource_arns.partition(region)}:dynamodb:{region}:{account_id}:table/{table_name}"
    written = Slot(_next_revision(emulator, None), *policy)
    _write(emulator, account_id, region, "PutResourcePolicy", arn, written)
    held = slots(account_id, region, table_name)
    if held is not None:  # CreateTable made it a moment ago, under the same lock
        held[arn] = written


def _expected(expected: str | None, slot: Slot | None, table_name: str) -> None:
    """PolicyNotFoundException in DynamoDB's words where ExpectedRevisionId is not what the resource has (moto's
    AWS-verified tests; 'has no associated policy.' completes DDB-TABLE-205's record, which its capture cut)."""
    if expected is None:
        return
    current = slot.revision_id if slot is not None else None
    if expected == NO_POLICY:
        if slot is not None and slot.document is not None:
            raise PolicyNotFoundException(
                f"{NOT_FOUND}Requested policy update expecting none to be present for table {table_name}, but a "
                f"policy exists with revision id {current}."
            )
        return
    if current is None:
        raise PolicyNotFoundException(
            f"{NOT_FOUND}Requested update for policy with revision id {expected}, but table "
            f"{table_name} has no associated policy."
        )
    if expected != current:
        raise PolicyNotFoundException(
            f"{NOT_FOUND}Requested update for policy with revision id {expected}, but the "
            f"policy associated to target table {table_name} has revision id {current}."
        )


def _next_revision(emulator: Emulator, slot: Slot | None) -> str:
    """The change's epoch milliseconds on the emulator's clock, after the resource's last revision."""
    now = int(emulator.clock.now() * 1000)
    return str(now if slot is None else max(now, int(slot.revision_id) + 1))


def _known_stream(emulator: Emulator, resource: resource_arns.Resource) -> bool:
    stream = emulator.streams.streams.get(resource.arn)
    return stream is not None and stream.table_name == resource.table_name


def _write(emulator: Emulator, account_id: str, region: str, operation: str, arn: str, slot: Slot) -> None:
    """The change logged before it is made (a durable emulator): the slot as recovery restores it
    (moto_seam/resource_policies.py `restore`)."""
    body: dict[str, Any] = {"ResourceArn": arn, "RevisionId": slot.revision_id}
    if slot.document is not None:
        body.update(Policy=slot.document, Sameness=slot.sameness)
    emulator.table_channel.definition_changing(account_id, region, body)  # put back if its entry is refused
    emulator.table_channel.table_request(account_id, region, operation, body, emulator.clock.now())
