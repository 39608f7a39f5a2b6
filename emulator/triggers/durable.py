"""Event source mappings' durable channel (storage/channels.py): the mappings, and what queue mappings' pollers did
to their queues.

  log entries   {"op": "mapping", "state", "start"}: a mapping created or changed, with the position a new lane of
                a stream starts from; {"op": "mapping_deleted", "uuid"}; {"op": "sqs_messages", ...}: messages a
                queue mapping's poller received, dead-lettered or deleted (moto_seam/sqs_polling.py's change), logged in order
                with the services' requests and applied to moto's SQS again at recovery
  snapshot      {"kind": "mapping", "state", "start"} for each mapping (none, and the registry not made, when no
                mapping was ever made: its modules are loaded by its first use)
A mapping's positions in its sources are its checkpoints (triggers/checkpoints.py), files of their own.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Iterator

from eddy.emulator.storage.channels import Channel, DurableLog

if TYPE_CHECKING:
    from eddy.emulator.triggers.event_source_mappings import EventSourceMapping
    from eddy.emulator.triggers.mapping_registry import Triggers


class MappingsChannel(Channel):
    name, ops, kinds = "mappings", ("mapping", "mapping_deleted", "sqs_messages"), ("mapping",)

    def __init__(self, log: DurableLog, registry: Callable[[], "Triggers"], made: Callable[[], int]) -> None:
        self.log = log
        #: the mappings' registry (made by this call if it was not yet), and how many mappings it has (0: not made)
        self.registry = registry
        self.made = made
        #: each mapping's state and start position as the log holds them (when written down), by UUID
        self.logged: dict[str, tuple[dict[str, Any], int]] = {}

    @property
    def durable(self) -> bool:
        """Whether anything is written down (a queue mapping's deletes need no lock otherwise)."""
        return self.log.durable

    def mapping_saved(self, mapping: "EventSourceMapping", start_position: int) -> None:
        state = mapping_state(mapping)
        self.log.log({"op": "mapping", "state": state, "start": str(start_position)})
        self._logged_as(mapping.uuid, (state, start_position))

    def mapping_deleted(self, uuid: str) -> None:
        self.log.log({"op": "mapping_deleted", "uuid": uuid})
        self._logged_as(uuid, None)

    def _logged_as(self, uuid: str, logged: tuple[dict[str, Any], int] | None) -> None:
        """What the log holds of a mapping from now on; refused with its request, the mapping is put back as the log
        held it before (not made, if it held none)."""
        if not self.log.durable:
            return
        previous = self.logged.pop(uuid, None)
        if logged is not None:
            self.logged[uuid] = logged
        self.log.on_undo(lambda: self._put_back(uuid, previous))

    def _put_back(self, uuid: str, previous: tuple[dict[str, Any], int] | None) -> None:
        self.logged.pop(uuid, None)
        if previous is not None:
            self.logged[uuid] = previous
        self.registry().put_back(uuid, previous)

    def after_commit(self, action: Callable[[], Any]) -> None:
        """Done once the mapping's request is written down (its runner started, its checkpoints forgotten)."""
        self.log.after_commit(action)

    def queue_messages_changed(self, change: dict[str, Any]) -> None:
        """A queue mapping's poller received, dead-lettered or deleted messages (moto_seam/sqs_polling.py's change)."""
        self.log.log({"op": "sqs_messages", **change})

    def reset(self) -> None:
        self.logged.clear()

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        if not self.made():
            return
        registry = self.registry()
        for mapping in registry.mappings.values():
            yield {
                "kind": "mapping",
                "state": mapping_state(mapping),
                "start": str(registry.start_positions.get(mapping.uuid, 0)),
            }

    def replay(self, entry: dict[str, Any]) -> None:
        op = entry["op"]
        if op == "mapping":
            self.logged[entry["state"]["uuid"]] = (entry["state"], int(entry["start"]))
            self.registry().restore(json.loads(json.dumps(entry["state"])), int(entry["start"]))
        elif op == "mapping_deleted":
            self.logged.pop(entry["uuid"], None)
            self.registry().mappings.pop(entry["uuid"], None)
        else:
            from eddy.emulator.moto_seam import sqs_polling  # moto's SQS: loaded by its first change

            sqs_polling.apply_change(entry)


def mapping_state(mapping: "EventSourceMapping") -> dict[str, Any]:
    state = {name: value for name, value in vars(mapping).items() if name != "filters"}
    return json.loads(json.dumps(state))
