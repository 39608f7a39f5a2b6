"""Stream records: one per item changed by a committed write.

The change log keeps every record with its keys and its full old and new images, whatever the stream's
view type; the view type is a projection applied when a record is read (`to_dict`).
"""

from __future__ import annotations

import json
import threading
from enum import Enum
from typing import Any

from eddy.emulator.streams.item_size import item_size

Image = dict[str, dict[str, Any]]

TTL_PRINCIPAL = "dynamodb.amazonaws.com"

compact_json = json.JSONEncoder(
    separators=(",", ":")
).encode  # json.dumps(..., separators=...) without a new encoder each call
_string = json.encoder.encode_basestring_ascii  # what compact_json does with a str, without the call around it

#: images lately encoded, by identity, with their text. A MODIFY's old image is, object for object, the new image of
#: the item's previous record (moto_bridge keeps it on the item), and a record's new image goes both to its
#: change-log line and to the write-ahead log: each is encoded once. `_held` holds each image, so that no other object
#: takes its id while it is there; both are emptied when the text passes _ENCODED_MAX characters. Two dicts rather than
#: one of (image, text) pairs: a pair would be one more object per record for the garbage collector to walk.
_encoded: dict[int, str] = {}
_held: dict[int, Image] = {}
_encoded_size = [0]
_ENCODED_MAX = 16 * 1024 * 1024


def image_json(image: Image | None) -> str:
    """An image as compact JSON, "null" for None. Images are never changed once made, so their text holds."""
    if image is None:
        return "null"
    found = _encoded.get(id(image))
    if found is not None:  # its image, held in _held: no other object has had its id since
        return found
    text = compact_json(image)
    with _memo_lock:  # a text is stored only with its image held (another thread may be emptying the memo)
        _encoded_size[0] += len(text)
        if _encoded_size[0] > _ENCODED_MAX:
            _forget()
            _encoded_size[0] = len(text)
        _encoded[id(image)] = text
        _held[id(image)] = image
    return text


#: the item size (SizeBytes' share) of images image_json holds, by identity: a MODIFY's old image is measured once
_sizes: dict[int, int] = {}
#: image_json's and image_size's stores and the memo's emptying, one at a time: commits and pollers run on many
#: threads, and an entry stored while another thread empties the memo half-way would outlive its image (whose id a
#: new image may then take)
_memo_lock = threading.Lock()


def image_size(image: Image | None) -> int:
    """item_size(image), remembered while image_json's memo holds the image."""
    if image is None:
        return 0
    found = _sizes.get(id(image))
    if found is None:
        found = item_size(image)
        with _memo_lock:
            if id(image) in _held:
                _sizes[id(image)] = found
    return found


def forget_images() -> None:
    """Empty image_json's memo (a stream registry closing: its images are for no one else to find)."""
    with _memo_lock:
        _forget()


def _forget() -> None:
    _encoded.clear()
    _held.clear()
    _sizes.clear()
    _encoded_size[0] = 0


class EventName(str, Enum):
    INSERT = "INSERT"
    MODIFY = "MODIFY"
    REMOVE = "REMOVE"


class StreamViewType(str, Enum):
    KEYS_ONLY = "KEYS_ONLY"
    NEW_IMAGE = "NEW_IMAGE"
    OLD_IMAGE = "OLD_IMAGE"
    NEW_AND_OLD_IMAGES = "NEW_AND_OLD_IMAGES"


#: each member's value, read without the enum's descriptor (a poller reads them for every record)
_EVENT_NAMES = {member: member.value for member in EventName}
_VIEW_TYPE_NAMES = {member: member.value for member in StreamViewType}
_NEW_VIEWS = frozenset({StreamViewType.NEW_IMAGE, StreamViewType.NEW_AND_OLD_IMAGES})
_OLD_VIEWS = frozenset({StreamViewType.OLD_IMAGE, StreamViewType.NEW_AND_OLD_IMAGES})


class ChangeRecord:
    """A change as the log holds it: sequence number, event, keys, both images, commit version and time."""

    __slots__ = (
        "sequence_number",
        "event_id",
        "event_name",
        "keys",
        "old_image",
        "new_image",
        "created_at",
        "commit_version",
        "by_ttl",
        "_wire",
        "_size_bytes",
        "_sized_view",
    )

    def __init__(
        self,
        *,
        sequence_number: int,
        event_id: str,
        event_name: EventName,
        keys: Image,
        old_image: Image | None,
        new_image: Image | None,
        created_at: float,
        commit_version: int,
        by_ttl: bool = False,
    ) -> None:
        self.sequence_number = sequence_number
        self.event_id = event_id
        self.event_name = event_name
        self.keys = keys
        self.old_image = old_image
        self.new_image = new_image
        self.created_at = created_at
        self.commit_version = commit_version
        self.by_ttl = by_ttl
        self._wire: bytes | None = None
        self._size_bytes = 0
        self._sized_view: StreamViewType | None = None  # the view type _size_bytes measured

    def viewed_images(self, view_type: StreamViewType) -> tuple[Image, Image | None, Image | None]:
        """Keys, new image and old image as the view type shows them (None: not shown or not there)."""
        return (
            self.keys,
            self.new_image if view_type in _NEW_VIEWS else None,
            self.old_image if view_type in _OLD_VIEWS else None,
        )

    def size_bytes(self, view_type: StreamViewType) -> int:
        """SizeBytes: the item sizes of what the view type shows, measured once (at commit, Stream.prepare; a record
        read back after a restart when first asked), as GetRecords and every mapping's poller read it. An image
        image_json holds is measured once for all its records (a MODIFY's old image is the previous new image)."""
        if self._sized_view is not view_type:
            keys, new_image, old_image = self.viewed_images(view_type)
            self._size_bytes = item_size(keys) + image_size(new_image) + image_size(old_image)
            self._sized_view = view_type
        return self._size_bytes

    def _dynamodb(
        self,
        view_type: StreamViewType,
        created: int | float,
        images: tuple[Image, Image | None, Image | None] | None = None,
    ) -> dict[str, Any]:
        """The record's `dynamodb` member: the same for GetRecords and Lambda but for the type of `created`;
        `images`: viewed_images(view_type) as they are to appear (a copy of them), else the record's own."""
        keys, new_image, old_image = images or self.viewed_images(view_type)
        dynamodb: dict[str, Any] = {"ApproximateCreationDateTime": created, "Keys": keys}
        if new_image is not None:
            dynamodb["NewImage"] = new_image
        if old_image is not None:
            dynamodb["OldImage"] = old_image
        dynamodb["SequenceNumber"] = str(self.sequence_number)
        dynamodb["SizeBytes"] = self._size_bytes if self._sized_view is view_type else self.size_bytes(view_type)
        dynamodb["StreamViewType"] = _VIEW_TYPE_NAMES[view_type]
        return dynamodb

    def _record(self, region: str, dynamodb: dict[str, Any]) -> dict[str, Any]:
        return {
            "eventID": self.event_id,
            "eventName": _EVENT_NAMES[self.event_name],
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": region,
            "dynamodb": dynamodb,
        }

    def to_dict(self, view_type: StreamViewType, region: str) -> dict[str, Any]:
        """The record as GetRecords returns it (userIdentity members capitalised, as in the API model)."""
        record = self._record(region, self._dynamodb(view_type, int(self.created_at)))
        if self.by_ttl:
            record["userIdentity"] = {"PrincipalId": TTL_PRINCIPAL, "Type": "Service"}
        return record

    def to_lambda_dict(
        self,
        view_type: StreamViewType,
        region: str,
        stream_arn: str,
        images: tuple[Image, Image | None, Image | None] | None = None,
    ) -> dict[str, Any]:
        """The record as Lambda delivers it in an event: with eventSourceARN, userIdentity members in lower case,
        ApproximateCreationDateTime a float (AWS's recorded events: LocalStack's AWS-validated
        test_dynamodb_event_filter asserts `isinstance(creation_time, float)`). Built directly, not from to_dict:
        a poller makes one per record delivered. `images`: a copy of viewed_images(view_type) to put in it."""
        record = self._record(region, self._dynamodb(view_type, float(int(self.created_at)), images))
        if self.by_ttl:
            record["userIdentity"] = {"type": "Service", "principalId": TTL_PRINCIPAL}
        record["eventSourceARN"] = stream_arn
        return record

    def wire(self, view_type: StreamViewType, region: str) -> bytes:
        """The record's JSON as GetRecords sends it, encoded once (a record's stream fixes view type and region)."""
        if self._wire is None:
            self._wire = compact_json(self.to_dict(view_type, region)).encode()
        return self._wire

    def wire_bytes_at_most(self) -> int:
        """At least len(self.wire(...)) for any view type and region, cheaply: a poller sums these and asks for the
        exact sizes only when they could pass Lambda's payload limit. Counted from the images' text (image_json,
        kept since the change log wrote it; ASCII, as compact_json escapes the rest) twice over, as Keys is a part
        of an image, plus the event id and 512 characters for everything else (member names, event name, region,
        time, sequence number, SizeBytes, view type, user identity: under 400)."""
        if self._wire is not None:
            return len(self._wire)
        return 512 + len(self.event_id) + 2 * (len(image_json(self.old_image)) + len(image_json(self.new_image)))

    def to_log_line(self, table_name: str, shard_id: str, commit_records: int) -> bytes:
        """One line of a change-log segment file (the layout is documented in docs/guides/durability.md); `commit_records`:
        how many records the commit wrote to the stream, over all shards (a reader knows a commit is whole).
        Written out member by member, as json.dumps(..., separators=(",", ":")) writes the record's dict: the
        images' text is image_json's, so an old image's is the one its item's previous record wrote."""
        return (
            f'{{"table":{_string(table_name)},"shard":{_string(shard_id)},'
            f'"sequence_number":"{self.sequence_number}","commit_version":{self.commit_version},'
            f'"commit_timestamp":{self.created_at!r},"commit_records":{commit_records},'
            f'"event_id":{_string(self.event_id)},"event_name":"{self.event_name.value}",'
            f'"keys":{compact_json(self.keys)},"old_image":{image_json(self.old_image)},'
            f'"new_image":{image_json(self.new_image)},'
            f'"user_identity":{_TTL_IDENTITY if self.by_ttl else "null"}}}\n'
        ).encode()


_TTL_IDENTITY = compact_json({"type": "Service", "principalId": TTL_PRINCIPAL})


_LAZY_FIELDS = frozenset({"event_id", "event_name", "keys", "old_image", "new_image", "commit_version", "by_ttl"})


class LoggedRecord(ChangeRecord):
    """A record read back from its segment file after a restart, parsed only when first used.

    A restart reads every retained record (a million, say); only the sequence number and time are needed
    up front, so the rest of each line waits until a reader or a poller asks for it.
    """

    __slots__ = ("_line",)

    def __init__(self, line: bytes, sequence_number: int, created_at: float) -> None:  # noqa: super() on purpose not called
        self.sequence_number = sequence_number
        self.created_at = created_at
        self._line = line
        self._wire = None
        self._sized_view = None

    def __getattr__(self, name: str) -> Any:
        if name not in _LAZY_FIELDS:
            raise AttributeError(name)
        entry = json.loads(self._line)
        self.event_id = entry["event_id"]
        self.event_name = EventName(entry["event_name"])
        self.keys = entry["keys"]
        self.old_image = entry["old_image"]
        self.new_image = entry["new_image"]
        self.commit_version = entry["commit_version"]
        self.by_ttl = entry["user_identity"] is not None
        return getattr(self, name)
