"""The region and credentials a process talking to Eddy uses when it has none configured, as moto's mock_aws does.

A machine without AWS configuration (a CI runner, a new laptop) has no region and no credentials: boto3 then
refuses to make a client (NoRegionError) or to sign a request (NoCredentialsError) before Eddy sees anything.
`emulate()`, the pytest plugin and the `eddy` commands that call Eddy fill in only what is missing: a region
(us-east-1, Eddy's default) and fake credentials. What the process has configured (environment variables, a
profile in ~/.aws/config or ~/.aws/credentials) is left alone.

    with local_aws_environment():           # AWS_DEFAULT_REGION and fake keys only where none are configured
        boto3.client("dynamodb")             # no NoRegionError
    session_for(endpoint_url, region=None)   # a boto3 Session for one endpoint, same defaults
    fresh_session(region_name=...)           # a new boto3 Session reading botocore's models once per process

Credentials are looked for without asking an instance metadata service or a container's credentials
endpoint (each would wait for a timeout on a machine that has none): environment, shared files, profiles.

A client made before emulate() (a handler module's client made at import, as Lambda code does) reaches Eddy
while an emulate() block is active, even one made before moto was imported, and signs with fake keys if it found
no credentials: `send_to_eddy` and `sign_without_credentials`, botocore built-in handlers from the moment
botocore's handlers are loaded, whoever loads them (`register_when_botocore_loads`: the pytest plugin asks for
them without loading botocore or moto itself).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from threading import Lock
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # imported where used: the pytest plugin reads the region without loading botocore
    import boto3

DEFAULT_REGION = "us-east-1"
#: what a process without credentials signs with (the values moto's and LocalStack's documentation use)
FAKE_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
#: credential providers that ask a service over the network: not asked whether credentials are configured
_NETWORK_PROVIDERS = ("iam-role", "container-role")


def variable(name: str) -> str | None:
    """os.environ.get(name), without its cost for a name that is not set: what Eddy asks on every request
    (MOTO_ACCOUNT_ID) or every commit (a test's fault flag) is almost never set, and CPython's os.environ answers an
    unset name by raising a KeyError (os._Environ.__getitem__) that Mapping.get catches, some 8k instructions a
    question. os.environ keeps its names and values encoded in a dict of its own (`_data`), which every change made
    through it (os.environ[name] = ..., del, monkeypatch.setenv, mock.patch.dict) updates: asked there, the answer is
    os.environ.get's, read afresh each time (nothing is cached, so a test that sets the name is seen at once).
    Pinned against os.environ.get by tests/emulator/test_callers.py."""
    environ = os.environ
    encoded = getattr(environ, "_data", None)
    if type(encoded) is not dict or not _POSIX:  # replaced by a test's plain dict, or Windows' (upper-case str names)
        return environ.get(name)
    value = encoded.get(name.encode(_FILE_SYSTEM_ENCODING, "surrogateescape"))  # os.environ.encodekey's, inline
    return None if value is None else environ.decodevalue(value)


#: how os.environ encodes names on POSIX (os.py: the file system's encoding, surrogateescape)
_POSIX, _FILE_SYSTEM_ENCODING = os.name == "posix", sys.getfilesystemencoding()


def configured_region() -> str | None:
    """The region boto3 would use: AWS_DEFAULT_REGION, or the profile's region in ~/.aws/config. Without either
    variable and without a config file, there is none, and botocore is not loaded to say so."""
    if os.environ.get("AWS_DEFAULT_REGION"):
        return os.environ["AWS_DEFAULT_REGION"]
    if not Path(os.environ.get("AWS_CONFIG_FILE") or "~/.aws/config").expanduser().is_file():
        return os.environ.get("AWS_REGION") or None
    import botocore.session

    return botocore.session.Session().get_config_variable("region") or os.environ.get("AWS_REGION") or None


#: where botocore's providers other than the network's read credentials from: variables, and files by default
_CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_WEB_IDENTITY_TOKEN_FILE",
                         "AWS_CREDENTIAL_FILE", "BOTO_CONFIG")  # fmt: skip
_CREDENTIAL_FILES = (("AWS_SHARED_CREDENTIALS_FILE", "~/.aws/credentials"), ("AWS_CONFIG_FILE", "~/.aws/config"),
                     (None, "/etc/boto.cfg"), (None, "~/.boto"))  # fmt: skip


def credentials_configured() -> bool:
    """Whether boto3 finds credentials without the network (environment, shared files, profiles, processes).
    Keys in the environment, or no variable and no file any provider reads, answer without building botocore's
    credential chain (some 0.05 to 0.1 s, at every emulate())."""
    if os.environ.get("AWS_ACCESS_KEY_ID") and os.environ.get("AWS_SECRET_ACCESS_KEY"):
        return True  # botocore's first provider, the environment's, finds them
    if not any(os.environ.get(name) for name in _CREDENTIAL_VARIABLES) and not any(
        Path((variable and os.environ.get(variable)) or default).expanduser().is_file()
        for variable, default in _CREDENTIAL_FILES
    ):
        return False
    import botocore.session

    session = botocore.session.Session()
    resolver = session.get_component("credential_provider")
    for name in _NETWORK_PROVIDERS:
        resolver.remove(name)
    try:
        return resolver.load_credentials() is not None
    except Exception:  # a profile that names no credentials, a broken credential_process: none usable
        return False


def missing_variables() -> dict[str, str]:
    """The variables to set so that boto3 has a region and credentials: only those not configured."""
    missing: dict[str, str] = {}
    if configured_region() is None:
        missing["AWS_DEFAULT_REGION"] = DEFAULT_REGION
    if not credentials_configured():
        missing.update(FAKE_CREDENTIALS)
    return missing


@contextmanager
def local_aws_environment() -> Iterator[dict[str, str]]:
    """Set the missing region and credentials in os.environ for the block; restore what was there after.
    Yields what it set."""
    missing = missing_variables()
    saved = {name: os.environ.get(name) for name in missing}
    os.environ.update(missing)
    try:
        yield missing
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def session_for(endpoint_url: str | None, region: str | None = None) -> boto3.session.Session:
    """A boto3 Session for talking to Eddy at `endpoint_url`: `region` or the configured one or us-east-1, and
    fake credentials when none are configured (None: AWS itself, whose credentials are the caller's business)."""
    import boto3

    region = region or configured_region() or DEFAULT_REGION
    if endpoint_url is not None and not credentials_configured():
        return boto3.session.Session(
            region_name=region, **{name.lower(): value for name, value in FAKE_CREDENTIALS.items()}
        )
    return boto3.session.Session(region_name=region)


# -- sessions that share botocore's loaded models -------------------------------------------------------------
# A botocore session reads its models afresh: the endpoints and partitions (about 1 MB of JSON) and each service's
# model, some 0.1 to 0.3 s before its first client answers. moto's mock_aws sets boto3's default session aside each
# time it starts, so that a block's clients read their credentials anew: every emulate() block, and every client Eddy
# makes for itself, would pay that again. A session made here is as fresh (its credentials, configuration and event
# handlers are its own) but reads models through one loader per data path, filled by the first session of the
# process. botocore treats what it loads as read-only: the clients of one session already share it.

# Its event handlers start as a copy of botocore's built-in ones registered once per process: a botocore session
# registers its 130 built-in handlers one by one, each inspected for its keyword arguments (inspect.getfullargspec),
# a third of emulate()'s start; a copy of the emitter they were registered in (botocore's HierarchicalEmitter copies
# its handlers' structure, not the handlers, as botocore does for each client it makes) holds the same handlers in
# the same order. The copy is made again whenever the built-in handlers change (moto and register_when_botocore_loads
# add theirs to botocore.handlers.BUILTIN_HANDLERS).

_loaders: dict[Any, Any] = {}
_loaders_lock = Lock()
#: the built-in handlers the emitter was made from, and the emitter (botocore's HierarchicalEmitter)
_builtin_emitter: list[Any] = [None, None]


def fresh_session(**options: Any) -> boto3.Session:
    """A new boto3 Session (`options` as boto3.Session takes them) whose models come from the process's loader."""
    import boto3
    import botocore.session

    botocore_session = botocore.session.Session(event_hooks=_builtin_handlers(), include_builtin_handlers=False)
    session = boto3.Session(botocore_session=botocore_session, **options)
    path = botocore_session.get_config_variable("data_path")
    with _loaders_lock:
        loader = _loaders.get(path)
        if loader is None:
            loader = _loaders[path] = _known_services_first(botocore_session.get_component("data_loader"))
    botocore_session.register_component("data_loader", loader)
    return session


def _builtin_handlers() -> Any:
    """A new event emitter holding botocore's built-in handlers as they are now, registered as a new botocore Session
    registers them (Session._register_builtin_handlers: through its event aliases, in order, first and last ones
    where they ask; not by making a Session, whose initializers would add their handlers to every copy)."""
    import copy

    from botocore import handlers
    from botocore.hooks import EventAliaser, HierarchicalEmitter

    with _loaders_lock:
        builtin, emitter = _builtin_emitter
        if builtin != handlers.BUILTIN_HANDLERS:
            builtin, emitter = list(handlers.BUILTIN_HANDLERS), HierarchicalEmitter()
            events = EventAliaser(emitter)
            for event_name, handler, *register_type in builtin:
                if not register_type:
                    events.register(event_name, handler)
                elif register_type[0] is handlers.REGISTER_FIRST:
                    events.register_first(event_name, handler)
                elif register_type[0] is handlers.REGISTER_LAST:
                    events.register_last(event_name, handler)
            _builtin_emitter[:] = builtin, emitter
        return copy.copy(emitter)


def shared_loader() -> Any:
    """The process's botocore loader (the one fresh_session's sessions read models through). Where no config file
    could name a data path (`data_path` in a profile), a session's is AWS_DATA_PATH: the loader is then made as a
    boto3 Session makes it, without making a session (botocore's 130 built-in handlers registered and inspected:
    some 0.05 s of a server's first request)."""
    with _loaders_lock:
        if _loaders:
            return next(iter(_loaders.values()))
        if not Path(os.environ.get("AWS_CONFIG_FILE") or "~/.aws/config").expanduser().is_file():
            path = os.environ.get("AWS_DATA_PATH")
            return _loaders.setdefault(path, _session_loader(path))
    return fresh_session()._session.get_component("data_loader")


def _session_loader(data_path: str | None) -> Any:
    """The loader a boto3 Session has for `data_path`: botocore's (its data_loader component) with boto3's data
    folder after botocore's (boto3.Session._setup_loader)."""
    import boto3
    from botocore.loaders import create_loader

    loader = create_loader(data_path)
    loader.search_paths.append(os.path.join(os.path.dirname(boto3.__file__), "data"))
    return _known_services_first(loader)


def _known_services_first(loader: Any) -> Any:
    """`loader` (botocore's Loader), whose load_service_model finds the latest version of a service's model from the
    service's own folders (botocore's determine_latest_version), so that the first model it loads does not list
    every service's folders first (list_available_services: some 0.02 to 0.05 s, once per loader). A service with
    no such model is refused by botocore's own method (UnknownServiceError), as is any call naming its api_version;
    the model, its extras and the cache are botocore's."""
    from botocore.exceptions import DataNotFoundError
    from botocore.loaders import instance_cache

    original = loader.load_service_model

    @instance_cache
    def load_service_model(self: Any, service_name: str, type_name: str, api_version: str | None = None) -> Any:
        if api_version is not None:
            return original(service_name, type_name, api_version)
        try:
            api_version = self.determine_latest_version(service_name, type_name)
        except DataNotFoundError:  # no model of that type under that name: botocore's refusal, in its words
            return original(service_name, type_name)
        model = self.load_data(os.path.join(service_name, api_version, type_name))
        self._extras_processor.process(model, self._find_extras(service_name, type_name, api_version))
        return model

    loader.load_service_model = load_service_model.__get__(loader)
    return loader


def renew_default_session() -> None:
    """boto3's default session (boto3.client's) made anew, sharing the loaded models: for a block mock_aws started,
    which set the previous one aside and gives it back when it stops."""
    import boto3

    boto3.DEFAULT_SESSION = fresh_session()


# -- clients without credentials, while emulate() is active ---------------------------------------------------

#: True while an emulate() block is active in this process (api/inprocess.py sets it)
signing_for_eddy = False


def sign_without_credentials(request: Any, request_signer: Any, **_: Any) -> None:
    """botocore's before-sign event: a client that has no credentials signs with fake ones while emulate() is
    active (the request goes to Eddy, which does not check signatures). botocore's per-request credentials
    (the request context's signing.request_credentials) carry them; the client itself is not changed."""
    if signing_for_eddy and getattr(request_signer, "_credentials", None) is None:
        from botocore.credentials import Credentials

        fake = Credentials(FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"], FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"])
        request.context.setdefault("signing", {}).setdefault("request_credentials", fake)


def send_to_eddy(request: Any, **kwargs: Any) -> Any:
    """botocore's before-send event, while emulate() is active: the request goes through moto's hook (which
    emulate() started, and Eddy's router is in front of), also from a client whose session was made before moto
    was imported and so has no moto hook of its own. A client that has both is answered once: the hook that
    answers an attempt first marks it (moto_seam/botocore_hook.py), the other one passes."""
    models = sys.modules.get("moto.core.models")
    if not signing_for_eddy or models is None or _answered(request):
        return None
    return models.botocore_stubber(request=request, **kwargs)


def _answered(request: Any) -> bool:
    """Whether Eddy's hook has answered this attempt of the request already (moto_seam/botocore_hook.py marks it, and
    passes an attempt so marked): botocore asks every before-send handler, and a client made while an emulator is
    open has moto's own hook before this one, which answers first. Asked here, the hook is not called again."""
    marked = getattr(request, "eddy_answered_attempt", None)
    if marked is None:
        return False
    context = getattr(request, "context", None) or {}
    return marked == (context.get("retries") or {}).get("attempt")


def _register(handlers: ModuleType) -> None:
    for entry in (("before-sign", sign_without_credentials), ("before-send", send_to_eddy)):
        if entry not in handlers.BUILTIN_HANDLERS:
            handlers.BUILTIN_HANDLERS.append(entry)


def register_when_botocore_loads() -> None:
    """`sign_without_credentials` among botocore's built-in handlers: now if botocore's handlers are loaded, else
    as soon as they are (every client made after that has it; nothing is loaded here)."""
    handlers = sys.modules.get("botocore.handlers")
    if handlers is not None:
        _register(handlers)
    elif not any(isinstance(finder, _HandlersFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _HandlersFinder())


class _HandlersFinder(importlib.abc.MetaPathFinder):
    """Finds botocore.handlers as the path finder does, and registers the handler once it has run."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "botocore.handlers":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _register(module)
