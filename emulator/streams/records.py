"""Stream records: one per item changed by a committed write.

The change log keeps every record with its keys and its full old and new images, whatever the stream's
view type; the view type is a projection applied when a record is read (`to_dict`). A record holds its keys and
images as their compact JSON text (image_json's), the form its change-log line, GetRecords' answer and the
write-ahead log write them in, and decodes them for a reader that needs dicts (each reader its own); a record's new
image's text is the one its item keeps on moto's Item, and the item's next record's old image is that same str.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from eddy.emulator.streams.item_size import item_size

Image = dict[str, dict[str, Any]]

TTL_PRINCIPAL = "dynamodb.amazonaws.com"

compact_json = json.JSONEncoder(
    separators=(",", ":")
).encode  # json.dumps(..., separators=...) without a new encoder each call
_string = json.encoder.encode_basestring_ascii  # what compact_json does with a str, without the call around it

ImageText = str  # an image as its compact JSON text (image_json's)
#: an image's text and its item size (item_size's), as an item keeps them on moto's Item and capture hands them over
SizedImage = tuple[ImageText, int]


def image_json(image: Image | None) -> str:
    """An image as compact JSON, "null" for None: the one form of an image Eddy keeps (on moto's item, in a stream
    record), the change log's and the write-ahead log's text, decoded (image_of_text) for a reader that needs dicts."""
    return "null" if image is None else compact_json(image)


def image_of_text(text: ImageText | None) -> Image | None:
    """The image a text holds, as new dicts that share nothing (None for None)."""
    return None if text is None else json.loads(text)


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
    """A change as the log holds it: sequence number, event, keys, both images, commit version and time. The keys and
    images are held as their compact JSON text (`keys_json`, `old_json`, `new_json`; None: no image); `keys`,
    `old_image` and `new_image` are new dicts decoded from it at each read."""

    __slots__ = (
        "sequence_number",
        "event_id",
        "event_name",
        "keys_json",
        "old_json",
        "new_json",
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
        keys: Image | ImageText,
        old_image: Image | ImageText | None,
        new_image: Image | ImageText | None,
        created_at: float,
        commit_version: int,
        by_ttl: bool = False,
    ) -> None:
        """`keys`, `old_image`, `new_image`: each a dict or its compact JSON text (what capture hands over)."""
        self.sequence_number = sequence_number
        self.event_id = event_id
        self.event_name = event_name
        self.keys_json = keys if type(keys) is str else compact_json(keys)
        self.old_json = old_image if old_image is None or type(old_image) is str else compact_json(old_image)
        self.new_json = new_image if new_image is None or type(new_image) is str else compact_json(new_image)
        self.created_at = created_at
        self.commit_version = commit_version
        self.by_ttl = by_ttl
        self._wire: bytes | None = None
        self._size_bytes = 0
        self._sized_view: StreamViewType | None = None  # the view type _size_bytes measured

    @property
    def keys(self) -> Image:
        return json.loads(self.keys_json)

    @property
    def old_image(self) -> Image | None:
        return None if self.old_json is None else json.loads(self.old_json)

    @property
    def new_image(self) -> Image | None:
        return None if self.new_json is None else json.loads(self.new_json)

    def viewed_texts(self, view_type: StreamViewType) -> tuple[ImageText, ImageText | None, ImageText | None]:
        """The text of the keys, new image and old image as the view type shows them (None: not shown or not there)."""
        return (
            self.keys_json,
            self.new_json if view_type in _NEW_VIEWS else None,
            self.old_json if view_type in _OLD_VIEWS else None,
        )

    def viewed_images(self, view_type: StreamViewType) -> tuple[Image, Image | None, Image | None]:
        """Keys, new image and old image as the view type shows them (None: not shown or not there), new dicts."""
        keys, new, old = self.viewed_texts(view_type)
        return json.loads(f"[{keys},{new or 'null'},{old or 'null'}]")

    def sized(self, view_type: StreamViewType, keys_size: int, new_size: int, old_size: int) -> None:
        """SizeBytes for the view type, from the item sizes of the keys and the images (measured when the images were
        made: Stream.prepare hands them over at commit), kept for every reader."""
        size = keys_size
        if self.new_json is not None and view_type in _NEW_VIEWS:
            size += new_size
        if self.old_json is not None and view_type in _OLD_VIEWS:
            size += old_size
        self._size_bytes = size
        self._sized_view = view_type

    def size_bytes(self, view_type: StreamViewType) -> int:
        """SizeBytes: the item sizes of what the view type shows, as kept at commit (`sized`), else (a record read
        back after a restart, another view type) measured when first asked and kept; a reader that has decoded the
        images has those measured (`_measure`)."""
        if self._sized_view is not view_type:
            self._measure(view_type, self.viewed_images(view_type))
        return self._size_bytes

    def _measure(self, view_type: StreamViewType, images: tuple[Image, Image | None, Image | None]) -> int:
        keys, new_image, old_image = images
        size = item_size(keys)
        if new_image is not None:
            size += item_size(new_image)
        if old_image is not None:
            size += item_size(old_image)
        self._size_bytes = size
        self._sized_view = view_type
        return size

    def _dynamodb(self, view_type: StreamViewType, created: int) -> dict[str, Any]:
        """The record's `dynamodb` member as GetRecords' dict has it (lambda_dicts writes Lambda's)."""
        keys, new_image, old_image = images = self.viewed_images(view_type)
        dynamodb: dict[str, Any] = {"ApproximateCreationDateTime": created, "Keys": keys}
        if new_image is not None:
            dynamodb["NewImage"] = new_image
        if old_image is not None:
            dynamodb["OldImage"] = old_image
        dynamodb["SequenceNumber"] = str(self.sequence_number)
        dynamodb["SizeBytes"] = self._size_bytes if self._sized_view is view_type else self._measure(view_type, images)
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

    def to_lambda_dict(self, view_type: StreamViewType, region: str, stream_arn: str) -> dict[str, Any]:
        """The record as Lambda delivers it in an event (lambda_dicts' for this one record), new dicts."""
        return lambda_dicts([self], view_type, region, stream_arn)[0]

    def wire(self, view_type: StreamViewType, region: str) -> bytes:
        """The record's JSON as GetRecords sends it (compact_json(to_dict(...)), member by member, with the images'
        text as the record holds it), encoded once: a record's stream fixes view type and region."""
        if self._wire is None:
            identity = _GET_RECORDS_TTL_IDENTITY if self.by_ttl else ""
            self._wire = self._written(view_type, region, str(int(self.created_at)), identity + "}").encode()
        return self._wire

    def lambda_json(self, view_type: StreamViewType, region: str, stream_arn: str) -> str:
        """The record as Lambda delivers it, as its JSON text: compact_json(to_lambda_dict(...)), written member by
        member with the images' text as the record holds it (nothing decoded): a worker subprocess's event is made
        of these."""
        identity = _LAMBDA_TTL_IDENTITY if self.by_ttl else ""
        created = repr(float(int(self.created_at)))  # as json writes a float
        return self._written(view_type, region, created, f'{identity},"eventSourceARN":{_string(stream_arn)}}}')

    def _written(self, view_type: StreamViewType, region: str, created: str, tail: str) -> str:
        """The record's JSON text up to its `dynamodb` member's end (`created`: ApproximateCreationDateTime's text),
        then `tail` (what follows it, the closing brace included)."""
        keys, new, old = self.viewed_texts(view_type)
        size = self._size_bytes if self._sized_view is view_type else self.size_bytes(view_type)
        return (
            f'{{"eventID":{_string(self.event_id)},"eventName":"{_EVENT_NAMES[self.event_name]}",'
            f'"eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":{_string(region)},'
            f'"dynamodb":{{"ApproximateCreationDateTime":{created},"Keys":{keys},'
            + ("" if new is None else f'"NewImage":{new},')
            + ("" if old is None else f'"OldImage":{old},')
            + f'"SequenceNumber":"{self.sequence_number}","SizeBytes":{size},'
            f'"StreamViewType":"{_VIEW_TYPE_NAMES[view_type]}"}}'
            + tail
        )

    def wire_bytes_at_most(self) -> int:
        """At least len(self.wire(...)) for any view type and region, cheaply: a poller sums these and asks for the
        exact sizes only when they could pass Lambda's payload limit. Counted from the images' text (ASCII, as
        compact_json escapes the rest) twice over, as Keys is a part of an image, plus the event id and 512
        characters for everything else (member names, event name, region, time, sequence number, SizeBytes, view
        type, user identity: under 400)."""
        if self._wire is not None:
            return len(self._wire)
        return 512 + len(self.event_id) + 2 * (len(self.old_json or "null") + len(self.new_json or "null"))

    def to_log_line(self, table_name: str, shard_id: str, commit_records: int) -> bytes:
        """One line of a change-log segment file (the layout is documented in docs/guides/durability.md); `commit_records`:
        how many records the commit wrote to the stream, over all shards (a reader knows a commit is whole).
        Written out member by member, as json.dumps(..., separators=(",", ":")) writes the record's dict, with the
        keys' and images' text as the record holds it."""
        return (
            f'{{"table":{_string(table_name)},"shard":{_string(shard_id)},'
            f'"sequence_number":"{self.sequence_number}","commit_version":{self.commit_version},'
            f'"commit_timestamp":{self.created_at!r},"commit_records":{commit_records},'
            f'"event_id":{_string(self.event_id)},"event_name":"{self.event_name.value}",'
            f'"keys":{self.keys_json},"old_image":{self.old_json or "null"},'
            f'"new_image":{self.new_json or "null"},'
            f'"user_identity":{_TTL_IDENTITY if self.by_ttl else "null"}}}\n'
        ).encode()


def lambda_dicts(records: list[ChangeRecord], view_type: StreamViewType, region: str, stream_arn: str) -> list[Any]:
    """The records as Lambda delivers them in an event, new dicts that share nothing with the records (a poller's
    batch for a registered callable): with eventSourceARN, userIdentity members in lower case,
    ApproximateCreationDateTime a float (AWS's recorded events: LocalStack's AWS-validated
    test_dynamodb_event_filter asserts `isinstance(creation_time, float)`). The keys and images are decoded from the
    records' text in one json.loads for the batch (C speed: most of the cost), the rest written here record by
    record, built directly (not from to_dict), what the view type decides looked up once for the batch."""
    new_shown, old_shown, view_name = view_type in _NEW_VIEWS, view_type in _OLD_VIEWS, _VIEW_TYPE_NAMES[view_type]
    texts = ",".join([
        f"[{r.keys_json},{r.new_json if new_shown and r.new_json else 'null'},"
        f"{r.old_json if old_shown and r.old_json else 'null'}]"
        for r in records
    ])  # fmt: skip
    made = []
    for record, images in zip(records, json.loads(f"[{texts}]")):
        keys, new, old = images
        dynamodb = {"ApproximateCreationDateTime": float(int(record.created_at)), "Keys": keys}
        if new is not None:
            dynamodb["NewImage"] = new
        if old is not None:
            dynamodb["OldImage"] = old
        dynamodb["SequenceNumber"] = str(record.sequence_number)
        sized = record._sized_view is view_type
        dynamodb["SizeBytes"] = record._size_bytes if sized else record._measure(view_type, images)
        dynamodb["StreamViewType"] = view_name
        delivered = {"eventID": record.event_id, "eventName": _EVENT_NAMES[record.event_name], "eventVersion": "1.1",
                     "eventSource": "aws:dynamodb", "awsRegion": region, "dynamodb": dynamodb}  # fmt: skip
        if record.by_ttl:
            delivered["userIdentity"] = {"type": "Service", "principalId": TTL_PRINCIPAL}
        delivered["eventSourceARN"] = stream_arn
        made.append(delivered)
    return made

_TTL_IDENTITY = compact_json({"type": "Service", "principalId": TTL_PRINCIPAL})
_GET_RECORDS_TTL_IDENTITY = ',"userIdentity":' + compact_json({"PrincipalId": TTL_PRINCIPAL, "Type": "Service"})
_LAMBDA_TTL_IDENTITY = ',"userIdentity":' + _TTL_IDENTITY  # as to_lambda_dict writes it


_LAZY_FIELDS = frozenset({"event_id", "event_name", "keys_json", "old_json", "new_json", "commit_version", "by_ttl"})


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
        self.keys_json = compact_json(entry["keys"])  # the line's own text: it was written by compact_json
        self.old_json = None if entry["old_image"] is None else compact_json(entry["old_image"])
        self.new_json = None if entry["new_image"] is None else compact_json(entry["new_image"])
        self.commit_version = entry["commit_version"]
        self.by_ttl = entry["user_identity"] is not None
        return getattr(self, name)
