"""A request's moment: the one instant and the one random stream a request to moto's services runs in.

A request that changes one of moto's services (S3, SQS, SNS, Lambda layers, IAM, ...) runs inside a moment:
every id moto draws (message ids, receipt handles, subscription ARNs, version ids, upload ids) comes from a
random generator seeded by the moment's seed, and every time moto reads (LastModified, SentTimestamp, visibility,
delays, deduplication windows) is the moment's instant on the emulator's clock. The journal logs the seed and
the instant with the request, so replaying it (storage recovery) draws the same ids at the same time: the
state after a restart is exactly the state before it.

Outside a moment, moto's time is still the emulator's clock (`activate`), so a virtual clock moves SQS
visibility and delays as it moves stream retention. What this module changes in moto, each pinned by a test:
  - MotoRandom (moto's one source of ids): `random` and `getrandbits` draw from the moment's generator;
  - moto.core.utils.utcnow (every moto clock read, whatever name a module imported it under): its code;
and, each in a module of its own whose patches go on when moto loads that service (moto_seam/__init__.py):
  - bucket_moments.py: FakeBucket's creation date and FakeMultipart's upload id (moto's two reads that bypass
    the above);
  - kms_keys.py: KMS keys (moto draws them from os.urandom and OpenSSL): a key's symmetric material from the
    moment's generator, like an id; its asymmetric private key (which no seed makes again) made as moto makes it
    and kept, as DER, with the request (`Moment.kept`, the journal entry's "kept"), so a replay puts that key back;
  - long_polls.py: SQSBackend.receive_message: a long poll waits with the journal's lock released, and each
    attempt runs at its own instant (the moment is moved on); a replayed receive does not wait at all.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from random import Random
from typing import Any, Callable

import moto.core.utils as moto_utils
from moto.moto_api._internal import mock_random

from eddy.emulator.moto_seam import Patches


class Moment:
    """One request's instant (seconds since the epoch) and random generator, and what it drew that no seed makes
    again (`kept`: asymmetric KMS keys, as DER; given back to a replay in the order they were drawn)."""

    __slots__ = ("seed", "now", "replaying", "random", "kept")

    def __init__(self, seed: int, now: float, replaying: bool = False, kept: list[bytes] | None = None) -> None:
        self.seed, self.now, self.replaying = seed, now, replaying
        self.random = Random(seed)
        self.kept = list(kept or ())

    def move_to(self, now: float) -> None:
        """Start over at `now` (a long poll's next attempt): the same seed, so a replay draws what it drew."""
        self.now = now
        self.random = Random(self.seed)


_local = threading.local()
#: the emulator's clock while Eddy is active (None: moto's own, the computer's)
_clock: Callable[[], float] | None = None
#: waits for another request to change moto's services (the journal's condition); given by activate
_wait_for_change: Callable[[float], None] | None = None


def current() -> Moment | None:
    return getattr(_local, "moment", None)


def replaying() -> bool:
    """True while a logged request runs again at recovery: what it pushed to Eddy's own side (a function's event,
    a rule's delivery) is in the log already and must not happen twice."""
    moment = current()
    return moment is not None and moment.replaying


def keep(fact: bytes) -> None:
    """Keep `fact` with the request's journal entry (`Moment.kept`): something a replay cannot find out again, e.g.
    that a function Eddy keeps (not moto) was gone when an SNS notification was sent to it."""
    moment = current()
    if moment is not None and not moment.replaying:
        moment.kept.append(fact)


def kept(fact: bytes) -> bool:
    """While a request is replayed: whether its first run kept `fact` (taken, so each is read once)."""
    moment = current()
    if moment is None or fact not in moment.kept:
        return False
    moment.kept.remove(fact)
    return True


def next_seed() -> int:
    """A new moment's seed, drawn from moto's own generator: a test that seeds moto (POST /moto-api/seed) gets
    the same ids run after run, as it does from moto."""
    return _shared_getrandbits(63)


def begin(seed: int, now: float, replaying: bool = False, kept: list[bytes] | None = None) -> Moment:
    moment = Moment(seed, now, replaying, kept)
    _local.moment = moment
    return moment


def end() -> None:
    _local.moment = None


def now() -> float:
    """moto's time: the moment's instant, else the emulator's clock, else the computer's."""
    moment = current()
    if moment is not None:
        return moment.now
    return _clock() if _clock is not None else time.time()


def change_waiter() -> Callable[[float], None] | None:
    """What waits (up to its seconds) for another request to change moto's services; None while no emulator gives one."""
    return _wait_for_change


def clock_now() -> float:
    """The emulator's clock (outside any moment), else the computer's."""
    return _clock() if _clock is not None else time.time()


def activate(clock: Callable[[], float], wait_for_change: Callable[[float], None]) -> None:
    global _clock, _wait_for_change
    _clock, _wait_for_change = clock, wait_for_change


def deactivate(clock: Callable[[], float]) -> None:
    """Back to the computer's time, unless another emulator activated its clock since `clock`'s."""
    global _clock, _wait_for_change
    if _clock == clock:
        _clock, _wait_for_change = None, None


# -- the patches ----------------------------------------------------------------------------------------

_shared_random, _shared_getrandbits = mock_random.random, mock_random.getrandbits


def _random() -> float:
    moment = current()
    return moment.random.random() if moment is not None else _shared_random()


def _getrandbits(bits: int) -> int:
    moment = current()
    return moment.random.getrandbits(bits) if moment is not None else _shared_getrandbits(bits)


def _utcnow() -> datetime:
    return datetime.fromtimestamp(now(), timezone.utc).replace(tzinfo=None)


def _eddy_utcnow() -> Any:  # its code becomes moto.core.utils.utcnow's: the names resolve in that module
    return _eddy_moment_utcnow()  # type: ignore[name-defined]  # noqa: F821


_original_utcnow_code = moto_utils.utcnow.__code__


_patches = Patches()


def install() -> None:
    """moto's ids and time drawn in a request's moment."""
    _patches.set(mock_random, "random", _random)
    _patches.set(mock_random, "getrandbits", _getrandbits)
    _patches.set(moto_utils, "_eddy_moment_utcnow", _utcnow)
    moto_utils.utcnow.__code__ = _eddy_utcnow.__code__  # every name moto imported utcnow under sees it


def uninstall() -> None:
    """moto as it was (the seam tests compare with it)."""
    moto_utils.utcnow.__code__ = _original_utcnow_code
    _patches.restore()
