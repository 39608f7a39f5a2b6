"""The seam between moto's S3 and Eddy's object change capture.

Every object write in moto goes through S3Backend.put_object (PutObject, CopyObject, and
CompleteMultipartUpload call it) and every delete through S3Backend.delete_object (DeleteObjects calls it per
key); Eddy wraps the two, once, and reports each change to the active ObjectChanges, in both front doors.
"""

from __future__ import annotations

from typing import Any

from moto.s3.models import FakeDeleteMarker, S3Backend

from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.services import moments
from eddy.emulator.objects.object_changes import ObjectChanges, ObjectImage

_changes: ObjectChanges | None = None


def activate(changes: ObjectChanges) -> None:
    """Report moto's object writes and deletes to `changes` (installs the wrappers the first time)."""
    global _changes
    _changes = changes


def deactivate() -> None:
    global _changes
    _changes = None


def _image(backend: S3Backend, bucket_name: str, key_name: str) -> ObjectImage | None:
    bucket = backend.buckets.get(bucket_name)
    key = bucket.keys.get(key_name) if bucket is not None else None
    if key is None or isinstance(key, FakeDeleteMarker):  # a versioned bucket's delete leaves a marker
        return None
    return {
        "key": key_name,
        "size": key.size,
        "etag": key.etag.strip('"'),
        "last_modified_time": key.last_modified_ISO8601,
    }


_patches = Patches()


def install() -> None:
    """moto's S3Backend.put_object and delete_object report each change to the active ObjectChanges (`activate`)."""
    put_object, delete_object = S3Backend.put_object, S3Backend.delete_object

    def captured(operation: Any, key_of: Any) -> Any:
        def wrapper(self: S3Backend, *args: Any, **kwargs: Any) -> Any:
            changes = _changes
            if changes is None or moments.replaying():  # a replayed request's changes are in the change log already
                return operation(self, *args, **kwargs)
            bucket_name, key_name = key_of(*args, **kwargs)
            old = _image(self, bucket_name, key_name)
            result = operation(self, *args, **kwargs)
            changes.changed(
                self.account_id, self.region_name, bucket_name, key_name, old, _image(self, bucket_name, key_name)
            )
            return result

        return wrapper

    _patches.set(
        S3Backend, "put_object", captured(put_object, lambda bucket_name, key_name, *a, **k: (bucket_name, key_name))
    )
    _patches.set(
        S3Backend,
        "delete_object",
        captured(delete_object, lambda bucket_name, key_name, *a, **k: (bucket_name, key_name)),
    )


def uninstall() -> None:
    _patches.restore()
