"""Where a DynamoDB table's resource-based policies live: on moto's table itself, one slot per resource (the table's
ARN and each of its streams' ARNs), so they go with the table when it is deleted and a table made again under the
same name starts without any (as AWS answers: a same-name re-create reads fresh policy state).

A slot holds the policy (its document as DynamoDB answers it, the form that decides whether a new one is the same,
and its revision id) or, once the policy is deleted, a tombstone: the deletion's revision id and no document.
moto's own resource policies (DynamoDBBackend.resource_policies, keyed by ARN and kept after a table's deletion) are
never used: api/dynamodb/resource_policies/ answers every operation on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eddy.emulator.moto_seam import bridge

_ATTRIBUTE = "eddy_resource_policies"


@dataclass(frozen=True)
class Slot:
    revision_id: str
    document: str | None = None  # None: a tombstone (the policy was deleted at revision_id)
    sameness: str | None = None  # what two policies must share to be the same policy


def slots(account_id: str, region: str, table_name: str) -> dict[str, Slot] | None:
    """The policy slots of the table, by resource ARN (made empty on first use); None if moto has no such table."""
    table = bridge.find_table(account_id, region, table_name)
    if table is None:
        return None
    found = vars(table).get(_ATTRIBUTE)
    if found is None:
        found = {}
        setattr(table, _ATTRIBUTE, found)
    return found


#: the definition requests whose log entry is a slot: {"ResourceArn", "RevisionId"[, "Policy", "Sameness"]}
LOGGED = frozenset({"PutResourcePolicy", "DeleteResourcePolicy"})


def restore(account_id: str, region: str, table_name: str, body: dict[str, Any]) -> bool:
    """The slot a logged Put/DeleteResourcePolicy left, put back on its table (recovery: the table is made again by
    then); False if the table is not there."""
    held = slots(account_id, region, table_name)
    if held is None:
        return False
    held[body["ResourceArn"]] = Slot(body["RevisionId"], body.get("Policy"), body.get("Sameness"))
    return True
