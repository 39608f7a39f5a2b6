"""moto's services as one file and back: the state a snapshot folds the request journal into.

Every moto backend in use (BackendDict._instances: S3, SQS, SNS, Lambda's layers, IAM, ... whatever moto serves
next), except those Eddy keeps itself (DynamoDB, DynamoDB Streams, Kinesis), is pickled whole, all in one
pass so objects two backends share stay shared. What pickle cannot carry is carried by reference:
  - a lock, condition or event: a fresh one (nothing waits on it across a restart);
  - a weak-value dictionary: its entries, whose objects the rest of the state keeps alive;
  - a dict that stores its entries in its own way (moto's, such as S3's versioned key store):
    its entries as stored;
  - a defaultdict whose factory is a lambda returning an empty dict, list or set: that type as its factory;
  - another backend (moto's models keep references to their own and other services' backends): the live one;
  - bytes over BODY_INLINE_LIMIT (object bodies, layer zips): a file named by its SHA-256 (`put_body`).
Restoring puts each backend's attributes back into moto's live backend objects, so every reference to a
backend that moto or Eddy holds stays valid.
"""

from __future__ import annotations

import io
import pickle
import threading
import weakref
from collections import defaultdict
from typing import Any, Callable, Iterator

import moto
from moto.backends import get_backend
from moto.core.base_backend import BackendDict, BaseBackend
from moto.s3.models import FakeDeleteMarker

#: the services Eddy keeps in its own log and snapshot entries (tables, streams, Kinesis records)
EDDY_OWNED = frozenset({"dynamodb", "dynamodbstreams", "kinesis", "moto_api"})
BODY_INLINE_LIMIT = 1024
FORMAT = 1

_LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))
#: held by Eddy's code that writes into moto's backends outside a request (function logs into CloudWatch Logs),
#: and by `dump`, so a snapshot never pickles a backend in the middle of such a write
direct_writes = threading.RLock()


def services_in_use() -> Iterator[tuple[str, str, str, BaseBackend]]:
    """(service, account, region or partition, backend) for every backend moto has made."""
    for backends in list(BackendDict._instances):
        if backends.service_name in EDDY_OWNED:
            continue
        for account_id, regions in list(backends.items()):
            for region, backend in list(regions.items()):
                yield backends.service_name, account_id, region, backend


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BufferedIOBase, put_body: Callable[[bytes], str]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.put_body = put_body
        self.bodies: set[str] = set()
        self.backends: dict[int, tuple[str, str, str]] = {
            id(backend): (service, account_id, region) for service, account_id, region, backend in services_in_use()}

    def persistent_id(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is bytes:
            if len(obj) <= BODY_INLINE_LIMIT:
                return None
            digest = self.put_body(obj)
            self.bodies.add(digest)
            return ("body", digest)
        if kind in _LOCK_TYPES:
            return ("lock", "rlock" if kind is _LOCK_TYPES[1] else "lock")
        if kind is threading.Condition:
            return ("condition",)
        if kind is threading.Event:
            return ("event",)
        if isinstance(obj, BaseBackend) and id(obj) in self.backends:
            return ("backend", *self.backends[id(obj)])
        if isinstance(obj, BackendDict):
            return ("backends", obj.service_name)
        return None

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is weakref.WeakValueDictionary:
            return weakref.WeakValueDictionary, (dict(obj.items()),)
        if kind is defaultdict and getattr(obj.default_factory, "__name__", "") == "<lambda>":
            # moto's `defaultdict(lambda: {})`: a lambda cannot be pickled, the empty value's type can
            empty = obj.default_factory()
            if type(empty) in (dict, list, set, int, str) and not empty:
                return defaultdict, (type(empty), dict(obj))
        if isinstance(obj, dict) and kind.__module__.startswith("moto.") and (
                kind.__setitem__ is not dict.__setitem__ or kind.items is not dict.items):
            # a dict that stores or lists differently from a dict (S3's versioned key store keeps every version
            # of a key, and lists the latest): its entries as stored, put back as stored
            return _stored_dict, (kind, list(dict.items(obj)), getattr(obj, "__dict__", {}))
        return NotImplemented


def _stored_dict(kind: type, entries: list[tuple[Any, Any]], attributes: dict[str, Any]) -> dict[Any, Any]:
    stored = kind.__new__(kind)
    dict.update(stored, entries)
    stored.__dict__.update(attributes)
    return stored


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BufferedIOBase, get_body: Callable[[str], bytes]) -> None:
        super().__init__(file)
        self.get_body = get_body

    def persistent_load(self, pid: Any) -> Any:
        kind = pid[0]
        if kind == "body":
            return self.get_body(pid[1])
        if kind == "lock":
            return threading.RLock() if pid[1] == "rlock" else threading.Lock()
        if kind == "condition":
            return threading.Condition()
        if kind == "event":
            return threading.Event()
        if kind == "backend":
            return get_backend(pid[1])[pid[2]][pid[3]]
        if kind == "backends":
            return get_backend(pid[1])
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")


def dump(file: io.BufferedIOBase, put_body: Callable[[bytes], str]) -> set[str]:
    """Write every backend in use to `file`; answers the bodies (SHA-256s) the state refers to."""
    pickler = _Pickler(file, put_body)
    with direct_writes:
        pickler.dump({"format": FORMAT, "moto": moto.__version__,
                      "backends": [(service, account_id, region, backend.__dict__)
                                   for service, account_id, region, backend in services_in_use()]})
    return pickler.bodies


def load(file: io.BufferedIOBase, get_body: Callable[[str], bytes]) -> None:
    """Put the state `dump` wrote back into moto's backends (ValueError when it is not such a state)."""
    state = _Unpickler(file, get_body).load()
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError("not a state of moto's services")
    if state["moto"] != moto.__version__:
        raise ValueError(f"written with moto {state['moto']}, this is moto {moto.__version__}: "
                         "install that version or start on a new state directory")
    for service, account_id, region, attributes in state["backends"]:
        backend = get_backend(service)[account_id][region]
        backend.__dict__.clear()
        backend.__dict__.update(attributes)


def inventory() -> dict[str, dict[str, int]]:
    """What moto's services hold, counted the way a user counts it, per service (for recovery's report).

    A service moto serves that is not named here is reported by the number of its backends that hold state."""
    counts: dict[str, dict[str, int]] = {}

    def add(service: str, **figures: int) -> None:
        mine = counts.setdefault(service, {})
        for noun, figure in figures.items():
            mine[noun] = mine.get(noun, 0) + figure

    for service, account_id, region, backend in services_in_use():
        state = vars(backend)
        if service == "s3":
            buckets = state.get("buckets", {})
            add("s3", buckets=len(buckets), objects=sum(
                1 for bucket in buckets.values() for key in bucket.keys.values() if not isinstance(key, FakeDeleteMarker)))
        elif service == "sqs":
            queues = state.get("queues", {})
            add("sqs", queues=len(queues), messages=sum(len(q._messages) for q in queues.values()))
        elif service == "sns":
            add("sns", topics=len(state.get("topics", {})), subscriptions=len(state.get("subscriptions", {})))
        elif service == "lambda":
            layers = getattr(state.get("_layers"), "_layers", {})
            add("lambda", **{"layer versions": sum(len(layer.layer_versions) for layer in layers.values())})
        elif service == "iam":
            policies = [p for p in state.get("managed_policies", {}).values() if f":{account_id}:" in p.arn]
            add("iam", roles=len(state.get("roles", {})), users=len(state.get("users", {})), policies=len(policies))
        else:
            add(service, backends=1)
    return counts
