"""moto's S3 objects stored and answered as S3 stores them: encrypted by default, their checksum's type told.

- Default encryption: since January 2023 S3 encrypts every new object with SSE-S3 when neither the request nor the
  bucket's encryption configuration names another, and answers `x-amz-server-side-encryption: AES256` for it
  (PutObject, GetObject, HeadObject, CopyObject, ...). moto stores such an object unencrypted and answers no
  encryption. Here S3Backend.put_object (which PutObject, CopyObject, POST uploads and CompleteMultipartUpload go
  through) stores it as `AES256`; a bucket with its own configuration, or a request naming one, is moto's as before.
- A checksum's type: botocore's S3 model, PutObjectOutput.ChecksumType: "For PutObject uploads, the checksum type is
  always FULL_OBJECT". moto keeps no type for a PutObject's checksum and answers none (its multipart uploads' it
  keeps). Here a single object's checksum is FULL_OBJECT: PutObject answers `x-amz-checksum-type`, GetObject (with
  ChecksumMode) and GetObjectAttributes answer it from the object as moto does for multipart ones, and HeadObject
  (with ChecksumMode), where moto answers the checksum without its type, answers it too.
AWS's recorded answers: LocalStack's AWS-validated test_s3.snapshot.json (TestS3PutObjectChecksum) and
test_s3_notifications_{sqs,eventbridge}.snapshot.json (test_object_created_put_versioned).
"""

from __future__ import annotations

import functools
from typing import Any

from moto.s3.models import S3Backend
from moto.s3.responses import S3Response

from eddy.emulator.moto_seam import Patches

#: what S3 encrypts an object with when nothing else is asked for (SSE-S3)
DEFAULT_ENCRYPTION = "AES256"
#: the type of a checksum computed over a whole object (a PutObject's, always)
FULL_OBJECT = "FULL_OBJECT"
CHECKSUM_HEADER = "x-amz-checksum-"
CHECKSUM_TYPE_HEADER = "x-amz-checksum-type"

original_put_object = S3Backend.put_object
original_response_put_object = S3Response.put_object
original_head_object = S3Response.head_object


def encrypted_by_default(put_object: Any) -> Any:
    """S3Backend.put_object (`put_object`: moto's, or another seam module's wrapper of it), the object encrypted
    with SSE-S3 unless the request or the bucket names an encryption, and a single object's checksum FULL_OBJECT."""

    @functools.wraps(put_object)
    def put(
        self: S3Backend,
        bucket_name: str,
        key_name: str,
        value: bytes,
        storage: str | None = None,
        etag: str | None = None,
        multipart: Any = None,
        encryption: str | None = None,
        **kwargs: Any,
    ) -> Any:
        bucket = self.buckets.get(bucket_name)
        if encryption is None and bucket is not None and not bucket.encryption:
            encryption = DEFAULT_ENCRYPTION
        key = put_object(
            self, bucket_name, key_name, value, storage=storage, etag=etag, multipart=multipart,
            encryption=encryption, **kwargs,
        )
        if key.checksum_value and key.checksum_type is None and multipart is None:
            key.checksum_type = FULL_OBJECT
        return key

    return put


def checksum_type_answered(put_object: Any) -> Any:
    """S3Response.put_object (`put_object`: moto's, or another seam module's wrapper of it), answering the
    checksum's type with the checksum (`x-amz-checksum-type`)."""

    @functools.wraps(put_object)
    def answered(self: S3Response) -> Any:
        status, headers, body = put_object(self)
        if _checksum_without_type(headers):
            headers[CHECKSUM_TYPE_HEADER] = FULL_OBJECT
        return status, headers, body

    return answered


def checksum_type_headed(head_object: Any) -> Any:
    """S3Response.head_object (moto's), answering the object's checksum type with its checksum (ChecksumMode
    ENABLED), as GetObject does: moto's HeadObject answers the checksum alone."""

    @functools.wraps(head_object)
    def headed(self: S3Response, bucket_name: str, query: dict[str, Any], key_name: str, headers: Any) -> Any:
        status, answer, body = head_object(self, bucket_name, query, key_name, headers=headers)
        if not _checksum_without_type(answer):
            return status, answer, body
        bucket = self.backend.buckets.get(bucket_name)
        version_id = (query.get("versionId") or [None])[0]
        versions = bucket.keys.getlist(key_name, []) if bucket is not None else []
        key = next((k for k in versions if str(k.version_id) == str(version_id)), None) if version_id else (
            versions[-1] if versions else None)
        if getattr(key, "checksum_type", None):
            answer[CHECKSUM_TYPE_HEADER] = key.checksum_type
        return status, answer, body

    return headed


def _checksum_without_type(headers: dict[str, Any]) -> bool:
    """Whether an answer's headers carry a checksum (`x-amz-checksum-crc32`, ...) but not its type."""
    names = {name.lower() for name in headers}
    return CHECKSUM_TYPE_HEADER not in names and any(name.startswith(CHECKSUM_HEADER) for name in names)


_patches = Patches()


def install() -> None:
    _patches.set(S3Backend, "put_object", encrypted_by_default(S3Backend.put_object))
    _patches.set(S3Response, "put_object", checksum_type_answered(S3Response.put_object))
    _patches.set(S3Response, "head_object", checksum_type_headed(S3Response.head_object))


def uninstall() -> None:
    _patches.restore()
