"""Shard iterators: signed positions in a shard that expire 15 minutes after they are issued.

An iterator reads `<StreamArn>|1|<opaque>`, as DynamoDB Streams' do (LocalStack's AWS-recorded
test_dynamodb_streams snapshots; DynamoDB Streams API reference, GetShardIterator). The opaque part names the
shard, the next sequence number to read and when it was issued, and carries an HMAC over all of it and the
stream's ARN, so that a forged or garbled iterator is refused (ValidationException) rather than read from.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from dataclasses import dataclass
from enum import Enum

from eddy.emulator.clock import Clock
from eddy.emulator.errors import ExpiredIteratorException, ValidationException

MAX_ITERATOR_LENGTH = 2048
VERSION = "1"  # the iterator format's version, between the stream's ARN and the opaque part


class ShardIteratorType(str, Enum):
    TRIM_HORIZON = "TRIM_HORIZON"
    LATEST = "LATEST"
    AT_SEQUENCE_NUMBER = "AT_SEQUENCE_NUMBER"
    AFTER_SEQUENCE_NUMBER = "AFTER_SEQUENCE_NUMBER"


@dataclass(frozen=True)
class Position:
    stream_arn: str
    shard_id: str
    #: the next sequence number to read: records with this number or above
    sequence_number: int


class ShardIterators:
    def __init__(self, clock: Clock, ttl_seconds: float, secret: bytes | None = None) -> None:
        self.clock = clock
        self.ttl_seconds = ttl_seconds
        self._secret = secret or os.urandom(32)

    def _sign(self, payload: bytes) -> str:
        return base64.urlsafe_b64encode(hmac.new(self._secret, payload, hashlib.sha256).digest()[:18]).decode()

    def issue(self, position: Position) -> str:
        issued_ms = int(self.clock.now() * 1000)
        opaque = f"{position.shard_id}|{position.sequence_number}|{issued_ms}"
        signature = self._sign(f"{position.stream_arn}|{opaque}".encode())
        return f"{position.stream_arn}|{VERSION}|{base64.urlsafe_b64encode(opaque.encode()).decode()}.{signature}"

    def parse(self, iterator: str) -> Position:
        invalid = ValidationException(
            "Invalid ShardIterator: the iterator is malformed or was not issued by this stream"
        )
        if not isinstance(iterator, str) or not 1 <= len(iterator) <= MAX_ITERATOR_LENGTH:
            raise invalid
        stream_arn, version, opaque = (iterator.split("|", 2) + ["", ""])[:3]
        encoded, _, signature = opaque.rpartition(".")
        try:
            payload = base64.urlsafe_b64decode(encoded.encode())
        except (binascii.Error, ValueError):
            raise invalid from None
        if version != VERSION or not hmac.compare_digest(
            signature.encode(), self._sign(stream_arn.encode() + b"|" + payload).encode()
        ):
            raise invalid
        shard_id, sequence_number, issued_ms = payload.decode().split("|")
        if self.clock.now() * 1000 - int(issued_ms) > self.ttl_seconds * 1000:
            raise ExpiredIteratorException("The provided iterator exceeds the maximum age allowed.")
        return Position(stream_arn, shard_id, int(sequence_number))
