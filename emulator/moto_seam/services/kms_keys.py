"""KMS keys drawn in the request's moment (moments.py): moto draws them from os.urandom and OpenSSL. A key's
symmetric material comes from the moment's generator, like an id; its asymmetric private key (which no seed makes
again) is made as moto makes it and kept, as DER, with the request (`Moment.kept`, the journal entry's "kept"), so
a replay puts that key back. Installed when moto's KMS is loaded while an emulator is open (moto_seam/__init__.py)."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives import serialization
from moto.kms import models as kms_models
from moto.kms.utils import MASTER_KEY_LEN

from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.services.moments import current

_original_master_key, _original_private_key = kms_models.generate_master_key, kms_models.generate_private_key


def _master_key() -> bytes:
    moment = current()
    return moment.random.randbytes(MASTER_KEY_LEN) if moment is not None else _original_master_key()


def _private_key(key_spec: str) -> Any:
    """moto's private key for a KMS key spec (its wrapper: signing algorithms and all); in a moment, its key is the
    one the request drew when it first ran (kept), or is kept for the request's journal entry."""
    key = _original_private_key(key_spec)
    moment = current()
    if moment is not None and moment.replaying:
        if moment.kept:  # a request logged before keys were kept draws a new one, as it did then
            key.private_key = serialization.load_der_private_key(moment.kept.pop(0), password=None)
    elif moment is not None:
        moment.kept.append(
            key.private_key.private_bytes(
                serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return key


_patches = Patches()


def install() -> None:
    _patches.set(kms_models, "generate_master_key", _master_key)
    _patches.set(kms_models, "generate_private_key", _private_key)


def uninstall() -> None:
    _patches.restore()
