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
import io
import itertools
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from emulator.errors import FunctionNotFoundException, InvalidParameterValueException, ResourceConflictException

FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
FUNCTION_ARN = re.compile(r"^arn:aws[a-z-]*:lambda:([a-z0-9-]+):(\d{12}):function:([A-Za-z0-9_-]{1,64})(?::(\$LATEST|[A-Za-z0-9_-]+))?$")
MAX_UNZIPPED_BYTES = 250 * 1024 * 1024
_REVISIONS = itertools.count(1)


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
    #: unique to this version of the function's code and configuration: workers of another revision are stale
    revision: int = field(default_factory=lambda: next(_REVISIONS))

    @property
    def arn(self) -> str:
        return f"arn:aws:lambda:{self.region}:{self.account_id}:function:{self.name}"

    def changed(self) -> None:
        """Its code or configuration changed: workers running the old one are stale."""
        self.revision = next(_REVISIONS)

    def configuration(self) -> dict[str, Any]:
        """FunctionConfiguration, as the Lambda API returns it."""
        configuration: dict[str, Any] = {
            "FunctionName": self.name,
            "FunctionArn": self.arn,
            "Runtime": self.runtime,
            "Role": self.role,
            "Handler": self.handler,
            "CodeSize": self.code_size,
            "Description": self.description,
            "Timeout": self.timeout,
            "MemorySize": self.memory_size,
            "LastModified": self.last_modified,
            "CodeSha256": self.code_sha256,
            "Version": "$LATEST",
            "State": "Active",
            "LastUpdateStatus": "Successful",
            "PackageType": "Zip",
            "Architectures": ["x86_64"],
        }
        if self.environment:
            configuration["Environment"] = {"Variables": dict(self.environment)}
        return configuration


def timestamp(now: float) -> str:
    """Lambda's LastModified format, e.g. 2024-01-01T00:00:00.000+0000."""
    return datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+0000"


def unpack_zip(data: bytes, destination: Path) -> int:
    """Unpack a deployment package safely (no absolute paths, no '..', no links); returns the unpacked size."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InvalidParameterValueException("Could not unzip uploaded file. Please check your file, then try to upload again.") from None
    total = 0
    members = archive.infolist()
    for member in members:
        path = PurePosixPath(member.filename)
        if path.is_absolute() or ".." in path.parts or "\\" in member.filename:
            raise InvalidParameterValueException(f"Unsafe path in deployment package: {member.filename}")
        if stat.S_ISLNK(member.external_attr >> 16):
            raise InvalidParameterValueException(f"Links are not allowed in a deployment package: {member.filename}")
        total += member.file_size
    if total > MAX_UNZIPPED_BYTES:
        raise InvalidParameterValueException("Unzipped size must be smaller than 262144000 bytes")
    shutil.rmtree(destination, ignore_errors=True)
    destination.mkdir(parents=True)
    for member in members:
        target = destination.joinpath(*PurePosixPath(member.filename).parts)
        if member.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(member) as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out)
    return total


class FunctionRegistry:
    def __init__(self, directory: Path, observer: Any = None) -> None:
        self.directory = directory
        self.functions: dict[str, Function] = {}  # by ARN
        #: told of every function saved or deleted (persistence); has function_saved / function_deleted
        self.observer = observer

    def _put(self, function: Function, replace: bool) -> Function:
        if not replace and function.arn in self.functions:
            raise ResourceConflictException(f"Function already exist: {function.name}")
        self.functions[function.arn] = function
        self.saved(function)
        return function

    def saved(self, function: Function) -> None:
        """A function was created or its code or configuration changed."""
        function.changed()
        if self.observer is not None:
            self.observer.function_saved(function)

    def restore(self, function: Function) -> None:
        self.functions[function.arn] = function

    def register(self, name: str, target: Callable[[Any, Any], Any], *, account_id: str, region: str, now: float,
                 timeout: int = 3, environment: dict[str, str] | None = None, memory_size: int = 128) -> Function:
        """A Python callable as a Lambda function (registering a name again replaces it)."""
        if not FUNCTION_NAME.match(name):
            raise InvalidParameterValueException(f"Invalid function name: {name!r}")
        if not callable(target):
            raise TypeError("a function's handler must be callable as handler(event, context)")
        handler = f"{getattr(target, '__module__', 'handler')}.{getattr(target, '__qualname__', 'handler')}"
        code = handler.encode()
        return self._put(Function(
            name=name, account_id=account_id, region=region, handler=handler, timeout=int(timeout),
            memory_size=memory_size, environment=dict(environment or {}), target=target,
            role=f"arn:aws:iam::{account_id}:role/eddy-registered", code_sha256=_sha256(code),
            code_size=len(code), last_modified=timestamp(now),
        ), replace=True)

    def create(self, *, name: str, account_id: str, region: str, handler: str, runtime: str, zip_file: bytes,
               now: float, timeout: int, memory_size: int, environment: dict[str, str], role: str,
               description: str) -> Function:
        if f"arn:aws:lambda:{region}:{account_id}:function:{name}" in self.functions:
            raise ResourceConflictException(f"Function already exist: {name}")
        function = Function(name=name, account_id=account_id, region=region, handler=handler, runtime=runtime,
                            timeout=timeout, memory_size=memory_size, environment=environment, role=role,
                            description=description, last_modified=timestamp(now))
        self._store_code(function, zip_file)
        return self._put(function, replace=False)

    def _store_code(self, function: Function, zip_file: bytes) -> None:
        code_dir = self.directory / function.account_id / function.region / function.name / "code"
        unpack_zip(zip_file, code_dir)
        function.code_dir = code_dir
        function.code_sha256 = _sha256(zip_file)
        function.code_size = len(zip_file)
        function.changed()

    def update_code(self, function: Function, zip_file: bytes, now: float) -> Function:
        if function.target is not None:
            raise InvalidParameterValueException(f"{function.name} is a registered in-process function: register it again instead")
        self._store_code(function, zip_file)
        function.last_modified = timestamp(now)
        self.saved(function)
        return function

    def get(self, name_or_arn: str, account_id: str, region: str) -> Function:
        match = FUNCTION_ARN.match(name_or_arn)
        if match:
            region, account_id, name = match.group(1), match.group(2), match.group(3)
        else:
            name = name_or_arn
        arn = f"arn:aws:lambda:{region}:{account_id}:function:{name}"
        function = self.functions.get(arn)
        if function is None:
            raise FunctionNotFoundException(f"Function not found: {arn}")
        return function

    def list(self, account_id: str, region: str) -> list[Function]:
        return [f for f in self.functions.values() if f.account_id == account_id and f.region == region]

    def delete(self, function: Function) -> None:
        del self.functions[function.arn]
        if self.observer is not None:
            self.observer.function_deleted(function)
        if function.code_dir is not None:
            shutil.rmtree(function.code_dir.parent, ignore_errors=True)

    def reset(self) -> None:
        self.functions.clear()
        shutil.rmtree(self.directory, ignore_errors=True)


def _sha256(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).digest()).decode()
