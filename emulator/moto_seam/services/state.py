"""moto's services as one file and back: the state a snapshot folds the request journal into.

Every moto backend in use (BackendDict._instances: S3, SQS, SNS, Lambda's layers, IAM, ... whatever moto serves
next), except those Eddy keeps itself (DynamoDB, DynamoDB Streams, Kinesis), is pickled whole, all in one
pass so objects two backends share stay shared. What pickle cannot carry is carried by reference:
  - a lock, condition or event: a fresh one (nothing waits on it across a restart);
  - a weak-value dictionary: its entries, whose objects the rest of the state keeps alive;
  - a dict class of moto's (S3's versioned key store stores its entries in its own way, SSM's ParameterDict is
    made from an account and a region): its entries as stored, its attributes and its default factory;
  - a defaultdict whose factory is a lambda (SSM's tags: `defaultdict(lambda: defaultdict(dict))`): a factory
    that makes what the lambda makes, a copy of its empty value (the type itself for a dict, list, set, ...);
  - a key of the `cryptography` package (KMS's keys, Cognito-IdP's signing key inside joserfc's RSAKey): its
    DER encoding (PKCS #8 for a private key, SubjectPublicKeyInfo for a public one), loaded back as the same key;
    an X.509 certificate or CSR (ACM, IoT): its DER encoding;
  - another backend (moto's models keep references to their own and other services' backends): the live one;
  - bytes over BODY_INLINE_LIMIT (object bodies, layer zips): a file named by its SHA-256 (`put_body`).
Restoring puts each backend's attributes back into moto's live backend objects, so every reference to a
backend that moto or Eddy holds stays valid.
"""

from __future__ import annotations

import copy
import io
import pickle
import threading
import weakref
from collections import defaultdict
from typing import Any, Callable, Iterator

import moto
from moto.backends import get_backend
from moto.core.base_backend import BackendDict, BaseBackend

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
            id(backend): (service, account_id, region) for service, account_id, region, backend in services_in_use()
        }

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
            factory = _fresh_factory(obj.default_factory)
            if factory is not None:
                return defaultdict, (factory,), None, None, iter(obj.items())
        if kind.__module__.startswith("cryptography."):
            return _cryptography_reduction(obj)
        if isinstance(obj, dict) and kind.__module__.startswith("moto."):
            # a dict of moto's own: it may store or list differently from a dict (S3's versioned key store keeps
            # every version of a key, and lists the latest) or be made differently (SSM's ParameterDict, a
            # defaultdict made from an account and a region): its entries as stored, put back as stored
            factory = getattr(obj, "default_factory", None)
            if getattr(factory, "__name__", "") == "<lambda>":
                factory = _fresh_factory(factory)
                if factory is None:
                    return NotImplemented  # pickle refuses it: persistence keeps the services' journal instead
            return _stored_dict, (kind, list(dict.items(obj)), getattr(obj, "__dict__", {}), factory)
        return NotImplemented


class FreshCopy:
    """A picklable stand-in for a lambda that makes an empty value: calling it makes a copy of that value."""

    def __init__(self, empty: Any) -> None:
        self.empty = empty

    def __call__(self) -> Any:
        return copy.deepcopy(self.empty)


_PLAIN_EMPTY = (dict, list, set, int, str)


def _fresh_factory(factory: Callable[[], Any]) -> Any:
    """What makes what `factory` (a lambda without a closure) makes; None when that is not an empty value whose
    copies are equal to what the lambda makes each time."""
    if factory.__closure__:
        return None
    empty = factory()
    if empty or empty != factory() or empty is factory():
        return None
    return type(empty) if type(empty) in _PLAIN_EMPTY else FreshCopy(empty)


def _cryptography_reduction(obj: Any) -> Any:
    """A key, certificate or CSR of the `cryptography` package by its DER encoding (NotImplemented: anything else,
    which pickle then tries, and refuses, as it is). `cryptography`'s modules are imported here, where one of its
    objects is already in hand, not with this module (0.15 s and some MB before a server's first answer)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    der = serialization.Encoding.DER
    if isinstance(obj, x509.Certificate):
        return _loaded, ("certificate", obj.public_bytes(der))
    if isinstance(obj, x509.CertificateSigningRequest):
        return _loaded, ("csr", obj.public_bytes(der))
    if hasattr(obj, "private_bytes"):
        return _loaded, (
            "private key",
            obj.private_bytes(der, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        )
    if hasattr(obj, "public_bytes"):
        return _loaded, ("public key", obj.public_bytes(der, serialization.PublicFormat.SubjectPublicKeyInfo))
    return NotImplemented


def _loaded(kind: str, der: bytes) -> Any:
    """The `cryptography` object `_cryptography_reduction` encoded (its loaders are Rust built-ins, which pickle
    cannot name)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    if kind == "certificate":
        return x509.load_der_x509_certificate(der)
    if kind == "csr":
        return x509.load_der_x509_csr(der)
    if kind == "private key":
        return serialization.load_der_private_key(der, password=None)
    return serialization.load_der_public_key(der)


def _stored_dict(
    kind: type, entries: list[tuple[Any, Any]], attributes: dict[str, Any], factory: Callable[[], Any] | None = None
) -> dict[Any, Any]:
    stored = kind.__new__(kind)
    if factory is not None:
        stored.default_factory = factory
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
        pickler.dump(
            {
                "format": FORMAT,
                "moto": moto.__version__,
                "backends": [
                    (service, account_id, region, backend.__dict__)
                    for service, account_id, region, backend in services_in_use()
                ],
            }
        )
    return pickler.bodies


def reset() -> None:
    """Every backend in use (but Eddy's own) made new, in place, as moto's reset makes it (every reference to a backend
    stays valid): what `load` and the journal's replay then fill again."""
    with direct_writes:
        for _, _, _, backend in list(services_in_use()):
            backend.reset()


def load(file: io.BufferedIOBase, get_body: Callable[[str], bytes]) -> None:
    """Put the state `dump` wrote back into moto's backends (ValueError when it is not such a state)."""
    state = _Unpickler(file, get_body).load()
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError("not a state of moto's services")
    if state["moto"] != moto.__version__:
        raise ValueError(
            f"written with moto {state['moto']}, this is moto {moto.__version__}: "
            "install that version or start on a new state directory"
        )
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
            from moto.s3.models import FakeDeleteMarker  # loaded: S3 is in use

            buckets = state.get("buckets", {})
            add(
                "s3",
                buckets=len(buckets),
                objects=sum(
                    1
                    for bucket in buckets.values()
                    for key in bucket.keys.values()
                    if not isinstance(key, FakeDeleteMarker)
                ),
            )
        elif service == "sqs":
            queues = state.get("queues", {})
            add("sqs", queues=len(queues), messages=sum(len(q._messages) for q in queues.values()))
        elif service == "sns":
            add("sns", topics=len(state.get("topics", {})), subscriptions=len(state.get("subscriptions", {})))
        elif service == "lambda":
            layers = getattr(state.get("_layers"), "_layers", {})
            add("lambda", **{"layer versions": sum(len(layer.layer_versions) for layer in layers.values())})
        elif service == "sts":  # the sessions AssumeRole made, a function's execution role's among them
            add("sts", **{"role sessions": len(state.get("assumed_roles", []))})
        elif service == "iam":
            policies = [p for p in state.get("managed_policies", {}).values() if f":{account_id}:" in p.arn]
            add("iam", roles=len(state.get("roles", {})), users=len(state.get("users", {})), policies=len(policies))
        else:
            add(service, backends=1)
    return counts
