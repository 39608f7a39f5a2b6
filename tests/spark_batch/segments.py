"""Change-log segment files written by hand, in the layout docs/guides/durability.md documents, for small inline inputs."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

TTL = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def epoch(text: str) -> float:
    """'2025-04-28 17:40:54.626' (UTC) as epoch seconds."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()


def at(text: str) -> datetime:
    """'2025-04-28 17:40:54.626' as Spark returns a TIMESTAMP in a UTC session (naive)."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f")


class ChangeLog:
    """Appends commits of one table to one shard's segment file, numbering sequence numbers itself; writes the
    stream's `stream.json` (key schema from the first commit's keys) and sets the emulator clock in
    `clock.json` to a second after the latest commit, as the emulator would have it."""

    def __init__(self, state_dir: Path, table: str, *, account: str = "123456789012", region: str = "us-east-1",
                 label: str = "2025-04-28T17-00-00.000", shard: str = "shardId-00000001745859600000-0a1b2c3d",
                 first_sequence_number: int = 100000000000000000001) -> None:
        self.table, self.shard = table, shard
        self.next_sequence_number = first_sequence_number
        self.state_dir, self.label = state_dir, label
        self.path = state_dir / "streams" / account / region / table / label / shard / f"{first_sequence_number}.jsonl"

    def commit(self, version: int, when: str, *changes: tuple) -> None:
        """Each change: (event_name, keys, old_image, new_image[, user_identity])."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        description = self.path.parent.parent / "stream.json"
        if not description.exists() and changes:
            key_schema = [{"AttributeName": name, "KeyType": "HASH" if index == 0 else "RANGE"}
                          for index, name in enumerate(changes[0][1])]
            self.describe(key_schema=key_schema)
        with open(self.path, "a") as segment:
            for event_name, keys, old_image, new_image, *identity in changes:
                line = self.line(version, epoch(when), event_name, keys, old_image, new_image,
                                 identity[0] if identity else None)
                line["commit_records"] = len(changes)
                segment.write(json.dumps(line, separators=(",", ":")) + "\n")
        (self.state_dir / "clock.json").write_text(json.dumps({"offset": epoch(when) + 1 - time.time()}))

    def describe(self, *, key_schema: list[dict], status: str = "ENABLED", table_deleted: bool = False) -> None:
        """The stream's `stream.json`, as the emulator writes it."""
        folder = self.path.parent.parent
        folder.mkdir(parents=True, exist_ok=True)
        label = self.label[:11] + self.label[11:].replace("-", ":")
        (folder / "stream.json").write_text(json.dumps({
            "table": self.table, "label": label, "key_schema": key_schema, "status": status,
            "table_deleted": table_deleted, "created_at": epoch(label.replace("T", " ")), "enabled_version": None}))

    def line(self, version: int, timestamp: float, event_name: str, keys: dict, old_image: Any, new_image: Any,
             user_identity: Any) -> dict:
        sequence_number = self.next_sequence_number
        self.next_sequence_number += 1
        return {"table": self.table, "shard": self.shard, "sequence_number": str(sequence_number),
                "commit_version": version, "commit_timestamp": timestamp, "event_id": f"e{sequence_number}",
                "event_name": event_name, "keys": keys, "old_image": old_image, "new_image": new_image,
                "user_identity": user_identity}


def person(id: int, name: str, age: int) -> dict:
    return {"id": {"N": str(id)}, "name": {"S": name}, "age": {"N": str(age)}}


def key(id: int) -> dict:
    return {"id": {"N": str(id)}}


def insert(item: dict, keys: dict) -> tuple:
    return ("INSERT", keys, None, item)


def modify(old: dict, new: dict, keys: dict) -> tuple:
    return ("MODIFY", keys, old, new)


def remove(old: dict, keys: dict, ttl: bool = False) -> tuple:
    return ("REMOVE", keys, old, None, TTL if ttl else None)
