"""Durable channels: how a component that keeps state declares it to storage, and the log it writes to.

storage/ keeps files (the write-ahead log, segments, snapshots) and knows no component. Each component that keeps
state declares its channel in its own package and the composition root (engine.py) registers it with storage:

  - `name`: the channel's name (registering a channel of the same name again replaces it: a reset's new one);
  - `ops`: the log entries it writes ({"op": <one of ops>, ...}, through `DurableLog.log`);
  - `kinds`: the snapshot entries it writes ({"kind": <one of kinds>, ...}, from `snapshot_entries`; an entry may
    come already written as its compact JSON text, bytes: snapshots.py writes it as it is);
  - `header_fields()` / `restore_header(header)`: what it keeps in the snapshot's header (read before any entry);
  - `replay(entry)` / `restore(entry)`: a log entry / a snapshot entry read back at recovery;
  - `recovered()`: called once every channel has read the snapshot and the log (in registration order);
  - `snapshot_written(generation)`: called once a snapshot is in place (files it kept beside it can be collected);
  - `reset()`: the state directory is being emptied.

Registration order is the snapshot's order: a channel's entries are read back after those of the channels
registered before it. An entry no channel declares is corruption (CorruptStateError), never skipped.

    >>> class Counter(Channel):
    ...     name, ops, kinds = "counter", ("count",), ("count",)
    ...     def __init__(self, log): self.log, self.value = log, 0
    ...     def add(self, n): self.value += n; self.log.log({"op": "count", "value": self.value})
    ...     def replay(self, entry): self.value = entry["value"]
    ...     def snapshot_entries(self, generation): yield {"kind": "count", "value": self.value}
    >>> Counter(NOT_KEPT).add(2)  # in memory: nothing is written down
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, ContextManager, Iterable, Protocol

#: a context that does nothing, shared (contextlib.nullcontext keeps no state: it may be entered by any number of
#: threads at once, and again)
NOTHING: ContextManager[None] = contextlib.nullcontext()


class DurableLog(Protocol):
    """What a component writes its changes to (storage/persistence.py's Persistence, or NOT_KEPT in memory)."""

    #: whether anything is written down (False in memory: a component may skip building an entry)
    durable: bool

    def log(self, entry: dict[str, Any], weight: int = 1) -> None:
        """Append one entry, flushed before the change it records is acknowledged (`weight`: how many entries it
        counts as toward the next snapshot)."""

    def log_encoded(self, entry: bytes, weight: int = 1) -> None:
        """Append one entry already encoded as compact JSON."""

    def log_all(self, entries: list[bytes]) -> None:
        """Append encoded entries together: all of them or none (storage/disk.py's WriteFailed)."""

    def together(self) -> ContextManager[None]:
        """What is logged inside is appended as one, when it ends: all of it or none (WriteFailed)."""

    def unit(self) -> ContextManager[None]:
        """A request's unit of work (units_of_work.py): its entries appended as one when it ends, its changes taken
        back if the disk refuses them (WriteFailed), what it queued released once they are written."""

    def on_undo(self, undo: Callable[[], Any]) -> None:
        """How to take back a change just made, should its unit's entries be refused."""

    def after_commit(self, action: Callable[[], Any]) -> None:
        """Done once the unit's entries are written (at once outside a unit)."""

    def alongside(self, write: Callable[[Any], Callable[[], Any]]) -> None:
        """A record kept in a file of its own, written at the unit's commit just before its entries; `write(position)`
        is told where they start in the log (None: none follow) and returns how to cut it off again, should they be
        refused (at once outside a unit)."""

    def logged_past(self, position: Any) -> bool:
        """Whether the log as recovery found it holds entries past `position` (what `alongside` told a record)."""

    def register(self, *channels: "Channel") -> None:
        """Read each channel's entries back at recovery, and write its part of every snapshot (in this order)."""


class Channel:
    """A component's durable channel: what it logs, what it keeps in snapshots, and how each is read back."""

    name: str = ""
    ops: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    def header_fields(self) -> dict[str, Any]:
        return {}

    def restore_header(self, header: dict[str, Any]) -> None:
        """The snapshot's header, read before any of its entries."""

    def snapshot_entries(self, generation: int) -> Iterable[dict[str, Any] | bytes]:
        return ()

    def replay(self, entry: dict[str, Any]) -> None:
        """A log entry read back."""
        raise TypeError(
            f"{type(self).__name__} declares log entries {self.ops} but replays none: a channel with ops overrides replay"
        )

    def restore(self, entry: dict[str, Any]) -> None:
        """A snapshot entry read back: by default, as the log entry of the same name."""
        self.replay({"op": entry["kind"], **{key: value for key, value in entry.items() if key != "kind"}})

    def recovered(self) -> None:
        """Every channel has read the snapshot and the log."""

    def snapshot_written(self, generation: int) -> None:
        """The snapshot of `generation` is in place."""

    def reset(self) -> None:
        """The state directory is being emptied."""


class Reserved(Channel):
    """The place in the snapshot's order of a channel whose component is not made yet, so holds nothing (a durable
    emulator's components made on first use: deferred_components.py): it writes and reads nothing, and the channel
    registered under its name once the component is made takes its place."""

    def __init__(self, name: str) -> None:
        self.name = name


class NotKept:
    """An in-memory emulator's log: nothing written down, nothing recovered."""

    durable = False

    def log(self, entry: dict[str, Any], weight: int = 1) -> None:
        """Nothing: an in-memory emulator keeps no log."""

    def log_encoded(self, entry: bytes, weight: int = 1) -> None:
        """Nothing: an in-memory emulator keeps no log."""

    def log_all(self, entries: list[bytes]) -> None:
        """Nothing: an in-memory emulator keeps no log."""

    def together(self) -> ContextManager[None]:
        return NOTHING

    def unit(self) -> ContextManager[None]:
        return NOTHING  # asked by every request: one shared, stateless context rather than a new one each time

    def on_undo(self, undo: Callable[[], Any]) -> None:
        """Nothing: in memory no write is refused, so nothing is taken back."""

    def after_commit(self, action: Callable[[], Any]) -> None:
        action()  # in memory nothing waits to be written

    def alongside(self, write: Callable[[Any], Callable[[], Any]]) -> None:
        write(None)  # in memory nothing is refused

    def logged_past(self, position: Any) -> bool:
        return True  # in memory there is no recovery

    def register(self, *channels: Channel) -> None:
        """Nothing: an in-memory emulator keeps no log."""

    def recover(self) -> None:
        """Nothing: an in-memory emulator keeps no log."""

    def close(self) -> None:
        """Nothing: an in-memory emulator keeps no log."""

    def reset(self) -> None:
        """Nothing: an in-memory emulator keeps no log."""

    def leave_as_is(self) -> None:
        """Nothing: an in-memory emulator keeps no log."""


NOT_KEPT = NotKept()
