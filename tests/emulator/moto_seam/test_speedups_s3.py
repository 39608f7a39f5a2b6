"""moto_seam/speedups/s3.py pinned against moto's own reading of an aws-chunked body: the same bytes for the bodies
botocore sends (several chunks, a trailer, one chunk, none), the same error for a size line that is not hexadecimal,
and moto's own method again once the emulator closes; and objects of several chunks put through boto3 in both doors
read back whole, with the checksum S3 answers for them."""

from __future__ import annotations

import base64
import io
import zlib

import boto3
import pytest
from moto.s3.responses import S3Response

from eddy import emulate
from eddy.emulator.moto_seam.speedups import s3 as s3_speedups
from tests.conftest import QUIET


def chunked(data: bytes, chunk: int, trailer: bytes = b"x-amz-checksum-crc32:AAAAAA==\r\n") -> bytes:
    """`data` as botocore's AwsChunkedWrapper writes it: `<hex size>\\r\\n<data>\\r\\n` a chunk, `0\\r\\n`, the trailer."""
    parts = [b"%x\r\n%s\r\n" % (len(data[at:at + chunk]), data[at:at + chunk]) for at in range(0, len(data), chunk)]
    return b"".join(parts) + b"0\r\n" + trailer + b"\r\n"


BODIES = {
    "several chunks": chunked(bytes(range(256)) * 40, 1000),
    "one chunk": chunked(b"hello", 1 << 20),
    "no data": chunked(b"", 1 << 20),
    "no trailer": chunked(b"abc" * 10, 7, trailer=b""),
    "empty": b"",
}


@pytest.mark.parametrize("name", list(BODIES))
@pytest.mark.parametrize("as_stream", [False, True], ids=["bytes", "stream"])
def test_a_chunked_body_reads_as_motos_own_reading(name, as_stream):
    def read(method):
        body = BODIES[name]
        try:
            return method(None, io.BytesIO(body) if as_stream else body)
        except ValueError as error:  # an empty stream has no size line: moto's error, as moto's
            return repr(error)

    assert read(s3_speedups._handle_encoded_body) == read(s3_speedups.original_handle_encoded_body)


def test_a_size_line_that_is_not_hexadecimal_fails_as_in_moto():
    for method in (s3_speedups._handle_encoded_body, s3_speedups.original_handle_encoded_body):
        with pytest.raises(ValueError, match="invalid literal for int"):
            method(None, b"zz\r\nabc\r\n0\r\n\r\n")


def test_the_patch_is_on_while_an_emulator_is_open_only():
    with emulate(**QUIET):
        boto3.client("s3", region_name="us-east-1").list_buckets()  # moto's S3 loads with its first request
        assert S3Response._handle_encoded_body is s3_speedups._handle_encoded_body
    assert S3Response._handle_encoded_body is s3_speedups.original_handle_encoded_body


def test_an_object_of_several_chunks_reads_back_whole_with_its_checksum(door):
    s3 = door.client("s3")
    s3.create_bucket(Bucket="big")
    data = bytes(range(256)) * 12_289  # 3 MiB and 256 bytes: botocore sends four chunks
    put = s3.put_object(Bucket="big", Key="k", Body=data, ChecksumAlgorithm="CRC32")
    crc32 = base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()
    assert put["ChecksumCRC32"] == crc32
    got = s3.get_object(Bucket="big", Key="k", ChecksumMode="ENABLED")
    assert (got["Body"].read(), got["ContentLength"], got["ChecksumCRC32"]) == (data, len(data), crc32)
