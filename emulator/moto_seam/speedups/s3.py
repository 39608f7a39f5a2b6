"""moto's S3 reading of an aws-chunked request body, replaced by one with the same answers in linear time.

botocore sends PutObject and UploadPart bodies as `aws-chunked` with a checksum trailer
(`x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER`: chunks of up to 1 MiB, each `<hex size>\\r\\n<data>\\r\\n`,
then `0\\r\\n` and the trailer). moto's `S3Response._handle_encoded_body` joins the chunks by adding each to one bytes
object (`decoded_body += ...`), which copies everything read so far at every chunk: a 262 MB object took 96 s of the
server's CPU (cProfile, 2026-11-28), a 20 MB one about 1 s. Here the chunks are collected and joined once. The same
bytes for every body moto's reads, and the same error (ValueError) for a size line that is not hexadecimal.
"""

from __future__ import annotations

import io
from typing import Any

from moto.s3.responses import S3Response

from eddy.emulator.moto_seam import Patches

original_handle_encoded_body = S3Response._handle_encoded_body


def _handle_encoded_body(self: Any, body: io.BufferedIOBase | bytes) -> bytes:
    if not body:
        return b""
    if isinstance(body, bytes):
        body = io.BytesIO(body)
    chunks = []
    size = int(body.readline().strip(), 16)  # each chunk's size, in hexadecimal, on a line of its own
    while size > 0:
        chunks.append(body.read(size))
        body.readline()  # the \r\n after the chunk's data
        size = int(body.readline().strip(), 16)
    return b"".join(chunks)  # what follows the last (empty) chunk is the trailer: its checksum is not read here


_patches = Patches()


def install() -> None:
    _patches.set(S3Response, "_handle_encoded_body", _handle_encoded_body)


def uninstall() -> None:
    _patches.restore()
