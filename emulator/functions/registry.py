"""Lambda functions: registered Python callables, or code uploaded as a zip through the Lambda API.

    arn = emu.register_function("on-order", handler, timeout=3, environment={"TABLE": "replica"})

A registered function runs in a thread of this process; a function created with CreateFunction
(`Code={"ZipFile": ...}`, `Handler="module.func"`) is unpacked under the state directory and runs in a
worker subprocess with its own environment variables. Either way it exists for the Lambda API
(GetFunction, ListFunctions, Invoke) and for event source mappings.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import random
import re
import shutil
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from eddy.emulator.errors import InvalidParameterValueException, ResourceConflictException
from eddy.emulator.functions.layers import Layer, lay_out
from eddy.emulator.functions.logs.logging_configs import logging_config
from eddy.emulator.functions.packages import package_of, remove_code, unpack_zip
from eddy.emulator.functions.versions import LATEST, Alias, VersionedRegistry

FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
FUNCTION_ARN = re.compile(
    r"^arn:aws[a-z-]*:lambda:([a-z0-9-]+):(\d{12}):function:([A-Za-z0-9_-]{1,64})(?::(\$LATEST|[A-Za-z0-9_-]+))?$"
)
_REVISIONS = itertools.count(1)
#: AWS's limit of tags on a function
MAX_TAGS = 50


def checked_tags(tags: Any, existing: dict[str, str] | None = None) -> dict[str, str]:
    """Tags as CreateFunction or TagResource gives them, merged over `existing`, within AWS's limit (its words:
    LocalStack's AWS-recorded snapshots, test_lambda_api.snapshot.json TestLambdaTags)."""
    if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
        raise InvalidParameterValueException("An error occurred and the request cannot be processed.")
    merged = {**(existing or {}), **tags}
    if len(merged) > MAX_TAGS:
        raise InvalidParameterValueException("Number of tags exceeds resource tag limit.")
    return merged


@dataclass
class Function:
    name: str
    account_id: str
    region: str
    handler: str
    runtime: str = "python3.11"
    timeout: int = 3
    memory_size: int = 128
    environment: dict[str, str] = field(default_factory=dict)
    role: str = ""
    description: str = ""
    #: a registered in-process callable, or None for uploaded code
    target: Callable[[Any, Any], Any] | None = None
    #: where uploaded code was unpacked
    code_dir: Path | None = None
    code_sha256: str = ""
    code_size: int = 0
    last_modified: str = ""
    #: the function's layers in order, as FunctionConfiguration lists them: [{"Arn": ..., "CodeSize": ...}]
    layers: list[dict[str, Any]] = field(default_factory=list)
    #: PutFunctionEventInvokeConfig's settings (MaximumRetryAttempts, MaximumEventAgeInSeconds, DestinationConfig)
    event_invoke_config: dict[str, Any] | None = None
    #: DeadLetterConfig.TargetArn: where a failed asynchronous event goes (SQS queue or SNS topic)
    dead_letter_target: str | None = None
    #: unique to this version of the function's code and configuration: workers of another revision are stale
    revision: int = field(default_factory=lambda: next(_REVISIONS))
    #: LoggingConfig, as the Lambda API answers it (functions/logs/log_groups.py): Text into /aws/lambda/<name> unless set
    logging_config: dict[str, str] = field(default_factory=dict)
    #: the function's tags (CreateFunction's Tags, TagResource)
    tags: dict[str, str] = field(default_factory=dict)
    #: its resource-based policy's statements, in the order AddPermission added them (api/lambda_/resources/)
    policy: list[dict[str, Any]] = field(default_factory=list)
    #: PutFunctionConcurrency's ReservedConcurrentExecutions: at most this many invocations at once (None: unreserved)
    reserved_concurrency: int | None = None
    #: PutProvisionedConcurrencyConfig's by version or alias, on $LATEST: {qualifier: {"requested": N, "since": time}}
    provisioned_concurrency: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: CreateFunctionUrlConfig's, on $LATEST, by alias ("" for the function's own URL): {"UrlId", "AuthType", ...}
    url_configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: RevisionId, as GetFunction and GetPolicy answer it: new with each change of code, configuration or policy
    revision_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    #: "$LATEST", or a published version's number (functions/versions.py: a frozen copy of $LATEST)
    version: str = LATEST
    #: $LATEST's published versions by number and its aliases by name (a version has neither)
    versions: dict[str, "Function"] = field(default_factory=dict)
    aliases: dict[str, Alias] = field(default_factory=dict)
    #: the highest version number ever published: a deleted version's number is never given again
    last_version: int = 0
    #: a version's: what $LATEST was made of when it was published (functions/versions.py fingerprint)
    source_fingerprint: str = ""
    #: a version's $LATEST (not written down: recovery links them again)
    latest: "Function | None" = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.logging_config = logging_config(None, self.name, self.logging_config or None)

    @property
    def opt_dir(self) -> Path | None:
        """Where the function's layers are laid, in order, as Lambda lays them in /opt (None without layers)."""
        return self.code_dir.parent / "opt" if self.layers and self.code_dir is not None else None

    @property
    def arn(self) -> str:
        """The function's ARN (unqualified, whichever version this is)."""
        return f"arn:aws:lambda:{self.region}:{self.account_id}:function:{self.name}"

    @property
    def version_arn(self) -> str:
        return f"{self.arn}:{self.version}"

    @property
    def qualified_arn(self) -> str:
        """The ARN the registry knows this by: the function's for $LATEST, qualified by its number for a version."""
        return self.arn if self.version == LATEST else self.version_arn

    @property
    def root(self) -> "Function":
        """$LATEST: what holds the function's tags, concurrency, versions and aliases."""
        return self.latest or self

    def changed(self) -> None:
        """Its code or configuration changed: workers running the old one are stale."""
        self.revision = next(_REVISIONS)
        self.revision_id = str(uuid.uuid4())

    def configuration(self, moment: str = "", arn: str | None = None) -> dict[str, Any]:
        """FunctionConfiguration, as the Lambda API returns it. `moment`: "created" for CreateFunction's answer (State
        Pending, the function is being created) and "updated" for an update's (LastUpdateStatus InProgress), as AWS
        answers them (LocalStack's AWS-validated snapshots: test_lambda.snapshot.json test_function_state, and
        test_lambda_api.snapshot.json's update_func_conf_response); the function is Active, its update Successful,
        as soon as that answer is given (Eddy's functions are ready at once), so every later read says so. `arn`:
        the FunctionArn answered (a version's is qualified; $LATEST's only when the request named it)."""
        configuration: dict[str, Any] = {
            "FunctionName": self.name,
            "FunctionArn": arn or self.qualified_arn,
            "Runtime": self.runtime,
            "Role": self.role,
            "Handler": self.handler,
            "CodeSize": self.code_size,
            "Description": self.description,
            "Timeout": self.timeout,
            "MemorySize": self.memory_size,
            "LastModified": self.last_modified,
            "CodeSha256": self.code_sha256,
            "Version": self.version,
            **_STATES.get(moment, _STATES[""]),
            "PackageType": "Zip",
            "Architectures": ["x86_64"],
            "RevisionId": self.revision_id,
        }
        if self.environment:
            configuration["Environment"] = {"Variables": dict(self.environment)}
        if self.layers:
            configuration["Layers"] = [dict(layer) for layer in self.layers]
        configuration["LoggingConfig"] = dict(self.logging_config)
        if self.dead_letter_target:
            configuration["DeadLetterConfig"] = {"TargetArn": self.dead_letter_target}
        return configuration


_STATES: dict[str, dict[str, str]] = {
    "": {"State": "Active", "LastUpdateStatus": "Successful"},
    "created": {"State": "Pending", "StateReason": "The function is being created.", "StateReasonCode": "Creating"},
    "updated": {
        "State": "Active",
        "LastUpdateStatus": "InProgress",
        "LastUpdateStatusReason": "The function is being created.",
        "LastUpdateStatusReasonCode": "Creating",
    },
}


def timestamp(now: float) -> str:
    """Lambda's LastModified format, e.g. 2024-01-01T00:00:00.000+0000."""
    return datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+0000"


class FunctionRegistry(VersionedRegistry):
    def __init__(self, directory: Path, observer: Any = None, draw: Callable[[], float] = random.random) -> None:
        self.directory = directory
        self.functions: dict[str, Function] = {}  # $LATEST, by the function's ARN (versions hang from it)
        #: told of every function saved or deleted (persistence); has function_saved / function_deleted
        self.observer = observer
        #: a number in [0, 1) for each invocation of an alias with weights: which version runs
        self.draw = draw

    def _put(self, function: Function, replace: bool) -> Function:
        if not replace and function.arn in self.functions:
            raise ResourceConflictException(f"Function already exist: {function.name}")
        self.functions[function.arn] = function
        self.saved(function)  # refused with its request: not made (the observer puts back what the log holds)
        return function

    def saved(self, function: Function) -> None:
        """A function was created or its code or configuration changed."""
        function.changed()
        if self.observer is not None:
            self.observer.function_saved(function)

    def recorded(self, function: Function, *, new_revision: bool = False) -> None:
        """Its tags, policy or concurrency changed (made durable; its workers stay: its code and configuration did
        not change). A policy's change is a new RevisionId, as on Lambda."""
        if new_revision:
            function.revision_id = str(uuid.uuid4())
        if self.observer is not None:
            self.observer.function_saved(function)

    def restore(self, function: Function) -> None:
        """A function or version as written down (recovery): a version under its $LATEST, a $LATEST written down
        again keeping the versions published before."""
        if function.version != LATEST:
            function.latest = self.functions[function.arn]
            function.latest.versions[function.version] = function
            return
        if (existing := self.functions.get(function.arn)) is not None:
            function.versions = existing.versions
            for version in function.versions.values():
                version.latest = function
        self.functions[function.arn] = function

    def forget(self, arn: str) -> None:
        """A function, or one version (a qualified ARN), written down as deleted (recovery)."""
        base, _, version = arn.partition(":function:")[2].partition(":")
        unqualified = arn.rsplit(":", 1)[0] if version else arn
        if version and (function := self.functions.get(unqualified)) is not None:
            function.versions.pop(version, None)
        elif not version:
            self.functions.pop(arn, None)

    def register(
        self,
        name: str,
        target: Callable[[Any, Any], Any],
        *,
        account_id: str,
        region: str,
        now: float,
        timeout: int = 3,
        environment: dict[str, str] | None = None,
        memory_size: int = 128,
    ) -> Function:
        """A Python callable as a Lambda function (registering a name again replaces it)."""
        if not FUNCTION_NAME.match(name):
            raise InvalidParameterValueException(f"Invalid function name: {name!r}")
        if not callable(target):
            raise TypeError("a function's handler must be callable as handler(event, context)")
        handler = f"{getattr(target, '__module__', 'handler')}.{getattr(target, '__qualname__', 'handler')}"
        code = handler.encode()
        return self._put(
            Function(
                name=name,
                account_id=account_id,
                region=region,
                handler=handler,
                timeout=int(timeout),
                memory_size=memory_size,
                environment=dict(environment or {}),
                target=target,
                role=f"arn:aws:iam::{account_id}:role/eddy-registered",
                code_sha256=_sha256(code),
                code_size=len(code),
                last_modified=timestamp(now),
            ),
            replace=True,
        )

    def create(
        self,
        *,
        name: str,
        account_id: str,
        region: str,
        handler: str,
        runtime: str,
        zip_file: bytes,
        now: float,
        timeout: int,
        memory_size: int,
        environment: dict[str, str],
        role: str,
        description: str,
        layers: list[Layer] | None = None,
        logging: dict[str, str] | None = None,
        tags: dict[str, str] | None = None,
    ) -> Function:
        if f"arn:aws:lambda:{region}:{account_id}:function:{name}" in self.functions:
            raise ResourceConflictException(f"Function already exist: {name}")
        function = Function(
            name=name,
            account_id=account_id,
            region=region,
            handler=handler,
            runtime=runtime,
            timeout=timeout,
            memory_size=memory_size,
            environment=environment,
            role=role,
            description=description,
            last_modified=timestamp(now),
            logging_config=logging or {},
            tags=dict(tags or {}),
        )
        self._store_code(function, zip_file)
        self._lay_out(function, layers or [])
        return self._put(function, replace=False)

    def _store_code(self, function: Function, zip_file: bytes, beside: bool = False) -> None:
        """The package unpacked in the function's code directory (`beside`: a new one next to the code it replaces,
        which stays until the change is written down)."""
        code_dir = self.directory / function.account_id / function.region / function.name / "code"
        if beside:
            code_dir = code_dir.with_name(f"code-{uuid.uuid4().hex[:12]}")
        unpack_zip(zip_file, code_dir)
        package_of(code_dir).write_bytes(zip_file)  # what GetFunction's Code.Location downloads
        function.code_dir = code_dir
        function.code_sha256 = _sha256(zip_file)
        function.code_size = len(zip_file)
        function.changed()

    def set_layers(self, function: Function, layers: list[Layer]) -> None:
        """UpdateFunctionConfiguration's Layers: the whole list, in order ([] removes them all)."""
        if function.target is not None:
            raise InvalidParameterValueException(
                f"{function.name} is a registered in-process function: it has no layers"
            )
        self._lay_out(function, layers)

    def _lay_out(self, function: Function, layers: list[Layer]) -> None:
        assert function.code_dir is not None
        opt_dir = function.code_dir.parent / "opt"
        if layers:
            lay_out(layers, opt_dir)
        else:
            shutil.rmtree(opt_dir, ignore_errors=True)
        function.layers = [layer.configuration() for layer in layers]
        function.changed()

    def update_code(self, function: Function, zip_file: bytes, now: float) -> Function:
        if function.target is not None:
            raise InvalidParameterValueException(
                f"{function.name} is a registered in-process function: register it again instead"
            )
        replaced = function.code_dir
        self._store_code(function, zip_file, beside=True)
        function.last_modified = timestamp(now)
        self.saved(function)  # refused with its request: the code it replaces runs on
        code_dir = function.code_dir
        if self.observer is not None:
            self.observer.on_undo(lambda: remove_code(code_dir))
        if replaced is not None:
            self.after_commit(lambda: remove_code(replaced))
        return function

    def list(self, account_id: str, region: str) -> list[Function]:
        return [f for f in self.functions.values() if f.account_id == account_id and f.region == region]

    def delete(self, function: Function) -> None:
        """The function, its versions and its aliases."""
        del self.functions[function.arn]
        if self.observer is not None:
            self.observer.function_deleted(function)  # refused with its request: not deleted
        if function.code_dir is not None:  # its files, once its request is written down
            self.after_commit(lambda: shutil.rmtree(function.code_dir.parent, ignore_errors=True))

    def after_commit(self, action: Callable[[], Any]) -> None:
        """Done once the request that changed a function is written down (at once without an observer)."""
        if self.observer is None:
            action()
        else:
            self.observer.after_commit(action)

    def restore_deleted(self, function: Function) -> None:
        """A function or version whose deletion the disk refused, back where it was."""
        if function.version == LATEST:
            self.functions[function.arn] = function
        else:
            function.root.versions[function.version] = function

    def reset(self) -> None:
        self.functions.clear()
        shutil.rmtree(self.directory, ignore_errors=True)


def _sha256(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).digest()).decode()

