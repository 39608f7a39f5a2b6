"""moto's IAM models loaded only when a request needs IAM. Every request moto's own handlers set up
(BaseResponse.setup_class: each service's request through moto's server, DynamoDB's operations off the fast path)
imports moto.iam.models for two answers: the account of the request's access key (`get_account_id_from`) and the
record of the key's last use (`mark_account_as_visited`). Those models are 13 MB of a process's memory (AWS's
managed policies as one 4.7 MB string, and the `cryptography` modules they import) and a tenth of a second of a
first request; yet until they are loaded moto knows no access key (its IAM and STS APIs, which make every key it
knows, keep them in those models): every key is moto's default account's, and a visit has nothing to record.

While an emulator is open and moto's IAM models are not loaded, `sys.modules["moto.iam.models"]` holds a stand-in
(`Standin`) that gives those two answers, and loads the real module the first time anything asks it for anything
else (moto's IAM or STS package importing its models, `from moto.iam.models import iam_backends`, a patch's
`mock.patch`): from then on the real module is in sys.modules and the stand-in's two functions are the real ones'.
`uninstall` takes the stand-in out if the real module was never loaded. Installed when moto.core is loaded
(moto_seam/__init__.py); pinned by tests/emulator/moto_seam/services/test_access_keys.py."""

from __future__ import annotations

import importlib
import sys
import threading
import types
from typing import Any

from moto.core import DEFAULT_ACCOUNT_ID

MODELS = "moto.iam.models"


class Standin(types.ModuleType):
    """moto.iam.models until something needs more of it than the account of an access key and a visit's record."""

    def __init__(self) -> None:
        super().__init__(MODELS, "moto's IAM models, loaded on first use (eddy.emulator.moto_seam.services.access_keys)")
        self.__spec__ = None  # the import system reads it: no lookup of it may load the real module
        self._lock = threading.Lock()
        self._real: types.ModuleType | None = None

    def get_account_id_from(self, access_key: str) -> str:
        """moto's account of `access_key`: its default account while moto's IAM has made no key."""
        real = self._real
        return DEFAULT_ACCOUNT_ID if real is None else real.get_account_id_from(access_key)

    def mark_account_as_visited(self, account_id: str, access_key: str, service: str, region: str) -> None:
        """moto's record of the key's last use: none while moto's IAM has made no key."""
        real = self._real
        if real is not None:
            real.mark_account_as_visited(account_id=account_id, access_key=access_key, service=service, region=region)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system's and tools' probes (__path__, __file__, ...) load nothing
            raise AttributeError(name)
        return getattr(self.load(), name)

    def load(self) -> types.ModuleType:
        """The real moto.iam.models, imported now if it is not yet (in this stand-in's place in sys.modules)."""
        with self._lock:
            if self._real is None:
                if sys.modules.get(MODELS) is self:
                    del sys.modules[MODELS]
                try:
                    self._real = importlib.import_module(MODELS)
                except BaseException:
                    sys.modules.setdefault(MODELS, self)
                    raise
            return self._real


_standin: Standin | None = None


def install() -> None:
    global _standin
    if MODELS not in sys.modules:
        _standin = Standin()
        sys.modules[MODELS] = _standin


def uninstall() -> None:
    global _standin
    if _standin is not None and sys.modules.get(MODELS) is _standin:
        del sys.modules[MODELS]
    _standin = None
