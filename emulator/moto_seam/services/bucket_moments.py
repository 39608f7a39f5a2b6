"""moto's two S3 reads that bypass MotoRandom and utcnow (moments.py), drawn in the request's moment: a bucket's
creation date is the moment's instant, a multipart upload's id comes from the moment's generator. Installed when
moto's S3 is loaded while an emulator is open (moto_seam/__init__.py)."""

from __future__ import annotations

import base64
from datetime import datetime, timezone
from typing import Any

from moto.moto_api._internal import mock_random
from moto.s3.models import UPLOAD_ID_BYTES, FakeBucket, FakeMultipart

from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.services.moments import now

_original_bucket_init, _original_multipart_init = FakeBucket.__init__, FakeMultipart.__init__


def _bucket_init(self: FakeBucket, *args: Any, **kwargs: Any) -> None:
    _original_bucket_init(self, *args, **kwargs)
    self.creation_date = datetime.fromtimestamp(now(), timezone.utc)


def _multipart_init(self: FakeMultipart, *args: Any, **kwargs: Any) -> None:
    _original_multipart_init(self, *args, **kwargs)
    drawn = mock_random.getrandbits(UPLOAD_ID_BYTES * 8).to_bytes(UPLOAD_ID_BYTES, "little")
    self.id = base64.b64encode(drawn).decode().replace("=", "").replace("+", "").replace("/", "")


_patches = Patches()


def install() -> None:
    _patches.set(FakeBucket, "__init__", _bucket_init)
    _patches.set(FakeMultipart, "__init__", _multipart_init)


def uninstall() -> None:
    _patches.restore()
