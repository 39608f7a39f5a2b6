"""moto's S3 versioning as S3 keeps it once a bucket's versioning is Suspended, and versions answered as S3 answers them.

moto treats a bucket whose versioning is Suspended as one never versioned: a PutObject replaces every version of the
key, a DeleteObject removes them all, and HeadObject with a VersionId is refused (400). S3 (Amazon S3 User Guide,
"Working with objects in a versioning-suspended bucket"): the versions a bucket has stay; a PutObject stores the null
version (replacing only the null version there was); a DeleteObject without a VersionId removes the null version and
puts a delete marker whose version is null; one with a VersionId deletes that version, as in a bucket with versioning
Enabled. Here, while an emulator is open:
  - S3Backend.put_object in a Suspended bucket keeps the key's other versions beneath the null one moto stores;
  - S3Backend.delete_object in a Suspended bucket: without a VersionId, the null version replaced by a null delete
    marker (answered `x-amz-delete-marker: true`, `x-amz-version-id: null`); with one, moto's own deletion for a
    versioned bucket (`versioned_here`);
  - a version deleted by its VersionId that was a delete marker is answered `x-amz-delete-marker: true` (botocore's S3
    model, DeleteObjectOutput.DeleteMarker: "whether the specified object version that was permanently deleted was
    (true) or was not (false) a delete marker"), where moto answered it only for a marker of a marker;
  - HeadObject with a VersionId in a Suspended bucket is answered (moto's for a versioned bucket);
  - GetObject, HeadObject and CopyObject answer a null version's `VersionId: null` in a bucket whose versioning was
    ever set (Enabled or Suspended), where moto answered none; a PutObject in a Suspended bucket answers no VersionId.
AWS's recorded answers: LocalStack's AWS-validated test_s3.snapshot.json (TestS3::test_s3_put_object_versioned,
::test_s3_copy_object_in_place_versioned, ::test_s3_copy_object_in_place_suspended_only) and
test_s3_notifications_{sqs,eventbridge}.snapshot.json (test_object_created_put_versioned: del-delete-marker).
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from moto.s3.models import FakeBucket, FakeDeleteMarker, S3Backend
from moto.s3.responses import S3Response

from eddy.emulator.moto_seam import Patches

ENABLED, SUSPENDED = "Enabled", "Suspended"
#: the version id of an object stored while versioning is not Enabled (the null version)
NULL = "null"
VERSION_HEADER = "x-amz-version-id"

original_is_versioned = FakeBucket.is_versioned
original_put_object = S3Backend.put_object
original_delete_object = S3Backend.delete_object

#: per thread: set while moto's code for a versioned bucket runs for a Suspended one (`versioned_here`)
_versioned = threading.local()


def versioning_set(bucket: Any) -> bool:
    """Whether the bucket's versioning was ever set (Enabled or Suspended): its versions are kept and named."""
    return bucket.versioning_status in (ENABLED, SUSPENDED)


def _is_versioned(bucket: FakeBucket) -> bool:
    """FakeBucket.is_versioned: Enabled, or Suspended while moto's code for a versioned bucket runs for it here."""
    return bucket.versioning_status == ENABLED or (
        bucket.versioning_status == SUSPENDED and getattr(_versioned, "active", False))


def versioned_here(operation: Any, *args: Any, **kwargs: Any) -> Any:
    """`operation` run with a Suspended bucket taken for a versioned one (moto's code for versions)."""
    before = getattr(_versioned, "active", False)
    _versioned.active = True
    try:
        return operation(*args, **kwargs)
    finally:
        _versioned.active = before


def keeping_versions(put_object: Any) -> Any:
    """S3Backend.put_object (`put_object`: moto's, or a seam module's wrapper of it): in a Suspended bucket, the null
    version moto stores put above the key's other versions, which stay."""

    @functools.wraps(put_object)
    def put(self: S3Backend, bucket_name: str, key_name: str, *args: Any, **kwargs: Any) -> Any:
        bucket = self.buckets.get(bucket_name)
        if bucket is None or bucket.versioning_status != SUSPENDED:
            return put_object(self, bucket_name, key_name, *args, **kwargs)
        versions = bucket.keys.getlist(key_name, [])
        kept = [version for version in versions if str(version.version_id) != NULL]
        if not kept:
            return put_object(self, bucket_name, key_name, *args, **kwargs)
        # moto replaces (and disposes of: their content is gone) every version it finds: it is shown the null one only
        _store(bucket, key_name, [version for version in versions if str(version.version_id) == NULL])
        try:
            key = put_object(self, bucket_name, key_name, *args, **kwargs)
        except Exception:
            _store(bucket, key_name, versions)  # refused (moto's error): as it was
            raise
        bucket.keys.setlist(key_name, kept + [key])
        return key

    return put


def _store(bucket: FakeBucket, key_name: str, versions: list[Any]) -> None:
    """The key's versions set as they are, none disposed of (moto's _VersionedKeyStore.setlist disposes of those it
    does not keep: a plain dict's item set)."""
    if versions:
        dict.__setitem__(bucket.keys, key_name, versions)
    else:
        dict.pop(bucket.keys, key_name, None)


def deleting_versions(delete_object: Any) -> Any:
    """S3Backend.delete_object (`delete_object`: moto's, or a seam module's wrapper of it), a Suspended bucket's
    versions deleted as S3 deletes them, a delete marker deleted by its version answered as one."""

    @functools.wraps(delete_object)
    def delete(
        self: S3Backend, bucket_name: str, key_name: str, version_id: str | None = None, bypass: bool = False
    ) -> Any:
        bucket = self.buckets.get(bucket_name)
        if bucket is None or not versioning_set(bucket):
            return delete_object(self, bucket_name, key_name, version_id=version_id, bypass=bypass)
        versions = bucket.keys.getlist(key_name, [])
        if version_id is None and bucket.versioning_status == SUSPENDED:
            return _null_delete_marker(bucket, key_name, versions)
        marker = any(
            isinstance(version, FakeDeleteMarker) and str(version.version_id) == str(version_id) for version in versions
        )
        deleted, meta = versioned_here(delete_object, self, bucket_name, key_name, version_id=version_id, bypass=bypass)
        if marker and version_id is not None:
            meta["delete-marker"] = "true"
        return deleted, meta

    return delete


def _null_delete_marker(bucket: FakeBucket, key_name: str, versions: list[Any]) -> tuple[bool, dict[str, str]]:
    """A DeleteObject without a VersionId in a Suspended bucket: the null version replaced by a null delete marker
    (a key with no version at all left as it is: moto's answer for a versioned bucket, nothing deleted)."""
    if not versions:
        return False, {}
    marker = FakeDeleteMarker(key=versions[-1])
    marker._version_id = NULL
    bucket.keys.setlist(key_name, [version for version in versions if str(version.version_id) != NULL] + [marker])
    return True, {"version-id": NULL, "delete-marker": "true"}


def null_version_named(answer: Any, bucket_of: Any) -> Any:
    """An S3Response method (GetObject, HeadObject, CopyObject) whose answer names a null version `null` in a bucket
    whose versioning was ever set (`bucket_of(self, args, kwargs)`: its bucket's name)."""

    @functools.wraps(answer)
    def answered(self: S3Response, *args: Any, **kwargs: Any) -> Any:
        bucket = self.backend.buckets.get(bucket_of(self, args, kwargs))
        if bucket is None or bucket.versioning_status != SUSPENDED or not _asks_for_version(args, kwargs):
            status, headers, body = answer(self, *args, **kwargs)
        else:
            status, headers, body = versioned_here(answer, self, *args, **kwargs)
        if bucket is not None and versioning_set(bucket) and status < 300 and VERSION_HEADER not in headers:
            headers[VERSION_HEADER] = NULL  # moto names every version but the null one
        return status, headers, body

    return answered


def _asks_for_version(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a HeadObject (bucket_name, query, key_name) names a VersionId."""
    query = kwargs.get("query", args[1] if len(args) > 1 else None)
    return isinstance(query, dict) and bool(query.get("versionId"))


_patches = Patches()


def install() -> None:
    _patches.set(FakeBucket, "is_versioned", property(_is_versioned))
    _patches.set(S3Backend, "put_object", keeping_versions(S3Backend.put_object))
    _patches.set(S3Backend, "delete_object", deleting_versions(S3Backend.delete_object))
    _patches.set(S3Response, "get_object", null_version_named(S3Response.get_object, lambda r, a, k: r.bucket_name))
    _patches.set(S3Response, "copy_object", null_version_named(S3Response.copy_object, lambda r, a, k: r.bucket_name))
    _patches.set(S3Response, "head_object", null_version_named(
        S3Response.head_object, lambda r, a, k: k.get("bucket_name", a[0] if a else None)))


def uninstall() -> None:
    _patches.restore()
