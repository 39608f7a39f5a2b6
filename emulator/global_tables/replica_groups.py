"""Replica groups: which regions hold a replica of a global table (version 2019.11.21), and in what state.

A global table is one table name in one account, present in several regions. Each member region's table is a
replica; a replica added through UpdateTable ReplicaUpdates is CREATING, then ACTIVE; one removed is DELETING, then
gone. The states move on the emulator's clock (Settings.replica_transition_seconds), so a test can watch them.

DescribeTable in one region lists the OTHER regions' replicas (AWS's "Determining the global table version" page
shows a table described in us-east-2 with Replicas [us-west-2]).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eddy.emulator.streams.capture import TableKey

VERSION = "2019.11.21"
#: a region that sourced a new replica cannot be deleted for this long (AWS: "Replica cannot be deleted because it
#: has acted as a source region for new replica(s) being added to the table in the last 24 hours.")
SOURCE_HOLD_SECONDS = 24 * 3600

CREATING, ACTIVE, DELETING = "CREATING", "ACTIVE", "DELETING"


@dataclass
class Replica:
    region: str
    status: str
    since: float
    #: the region whose UpdateTable created this replica (None: the table the group began from)
    source_region: str | None = None

    def to_state(self) -> dict[str, Any]:
        return {"region": self.region, "status": self.status, "since": self.since, "source": self.source_region}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Replica:
        return cls(state["region"], state["status"], state["since"], state.get("source"))


@dataclass
class ReplicaGroup:
    account_id: str
    table_name: str
    replicas: dict[str, Replica] = field(default_factory=dict)

    def key(self, region: str) -> TableKey:
        return (self.account_id, region, self.table_name)

    def replicating(self) -> list[str]:
        """The regions writes are replicated between: every replica not being deleted."""
        return [region for region, replica in self.replicas.items() if replica.status != DELETING]

    def describe(self, region: str) -> list[dict[str, Any]]:
        """Replicas as DescribeTable in `region` shows them: the other regions, in the order they joined."""
        return [
            {"RegionName": other, "ReplicaStatus": replica.status}
            for other, replica in self.replicas.items()
            if other != region
        ]

    def busy(self) -> Replica | None:
        """A replica still being added or removed (AWS takes one replica action at a time)."""
        return next((replica for replica in self.replicas.values() if replica.status != ACTIVE), None)

    def sourced_lately(self, region: str, now: float) -> bool:
        """Whether `region` created another replica less than 24 hours ago."""
        return any(
            replica.source_region == region and now - replica.since < SOURCE_HOLD_SECONDS
            for replica in self.replicas.values()
        )

    def leaving(self, now: float, transition_seconds: float) -> bool:
        """Whether a DELETING replica's time is over (settling it drops its table and changes the group)."""
        return any(
            replica.status == DELETING and now >= replica.since + transition_seconds
            for replica in self.replicas.values()
        )

    def settle(self, now: float, transition_seconds: float) -> list[str]:
        """Move replicas whose transition is over: CREATING -> ACTIVE; DELETING -> gone (their regions returned)."""
        gone = []
        for region, replica in list(self.replicas.items()):
            if replica.status == CREATING and now >= replica.since + transition_seconds:
                replica.status, replica.since = ACTIVE, replica.since + transition_seconds
            elif replica.status == DELETING and now >= replica.since + transition_seconds:
                del self.replicas[region]
                gone.append(region)
        return gone

    def to_state(self) -> dict[str, Any]:
        return {
            "account": self.account_id,
            "table": self.table_name,
            "replicas": [replica.to_state() for replica in self.replicas.values()],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ReplicaGroup:
        group = cls(state["account"], state["table"])
        for replica in state["replicas"]:
            group.replicas[replica["region"]] = Replica.from_state(replica)
        return group


class ReplicaGroups:
    """Every global table, by account and table name."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], ReplicaGroup] = {}

    def of(self, table: TableKey) -> ReplicaGroup | None:
        """The group `table` (account, region, name) is a replica of, if any."""
        group = self._groups.get((table[0], table[2]))
        return group if group is not None and table[1] in group.replicas else None

    def named(self, account_id: str, table_name: str) -> ReplicaGroup | None:
        return self._groups.get((account_id, table_name))

    def begin(self, account_id: str, table_name: str, region: str, now: float) -> ReplicaGroup:
        """The group a regional table becomes when its first replica is added (its own region ACTIVE)."""
        group = self._groups.get((account_id, table_name))
        if group is None:
            group = self._groups[(account_id, table_name)] = ReplicaGroup(account_id, table_name)
            group.replicas[region] = Replica(region, ACTIVE, now)
        return group

    def put(self, group: ReplicaGroup) -> None:
        self._groups[(group.account_id, group.table_name)] = group

    def drop_if_single(self, group: ReplicaGroup) -> bool:
        """A group left with one region is a regional table again (no Replicas, no GlobalTableVersion)."""
        if len(group.replicas) <= 1:
            self._groups.pop((group.account_id, group.table_name), None)
            return True
        return False

    def __iter__(self):
        return iter(list(self._groups.values()))

    def clear(self) -> None:
        self._groups.clear()
