"""Lambda functions: registered Python callables, or code uploaded as a zip through the Lambda API.

    arn = emu.register_function("on-order", handler, timeout=3, environment={"TABLE": "replica"})

The registry (FunctionRegistry) holds every function (each a Function: function.py). A registered function runs in
a thread of this process; a function created with CreateFunction (`Code={"ZipFile": ...}`, `Handler="module.func"`)
is unpacked under the state directory and runs in a worker subprocess with its own environment variables. Either way
it exists for the Lambda API (GetFunction, ListFunctions, Invoke) and for event source mappings.
"""

from __future__ import annotations

import base64
import hashlib
import random
import shutil
import uuid
from pathlib import Path
from typing import Any, Callable

from eddy.emulator.errors import InvalidParameterValueException, ResourceConflictException
from eddy.emulator.functions.function import FUNCTION_NAME, Function, timestamp
from eddy.emulator.functions.layers import Layer, lay_out
from eddy.emulator.functions.packages import package_of, remove_code, unpack_zip
from eddy.emulator.functions.versions import LATEST
from eddy.emulator.functions.versions.published import VersionedRegistry


class FunctionRegistry(VersionedRegistry):
    def __init__(self, directory: Path, observer: Any = None, draw: Callable[[], float] = random.random) -> None:
        self.directory = directory
        self.functions: dict[str, Function] = {}  # $LATEST, by the function's ARN (versions hang from it)
        #: told of every function saved or deleted (persistence); has function_saved / function_deleted
        self.observer = observer
        #: a number in [0, 1) for each invocation of an alias with weights: which version runs
        self.draw = draw
        #: when_unused(folder, remove): remove() once no worker runs in the folder (the Invoker's execution
        #: environments, set when it is made; at once before: no worker runs yet)
        self.when_unused: Callable[[Path, Callable[[], None]], None] = lambda folder, remove: remove()

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
        settings: dict[str, Any] | None = None,
        role_session: dict[str, str] | None = None,
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
            **(settings or {}),
            role_session=role_session,
        )
        self._store_code(function, zip_file)
        self._lay_out(function, layers or [])
        return self._put(function, replace=False)

    def _store_code(self, function: Function, zip_file: bytes, beside: bool = False) -> None:
        """The package unpacked in the function's code directory (`beside`: a new one in a folder of its own, while
        the code it replaces stays for the function as it was before until the update completes: `_completed`)."""
        code_dir = self._home(function) / "code"
        if beside:
            code_dir = self._beside(function)
            if function.opt_dir is not None:  # its layers, unchanged, beside the new code too
                shutil.copytree(function.opt_dir, code_dir.parent / "opt", symlinks=True)
        unpack_zip(zip_file, code_dir)
        package_of(code_dir).write_bytes(zip_file)  # what GetFunction's Code.Location downloads
        function.code_dir = code_dir
        function.code_sha256 = _sha256(zip_file)
        function.code_size = len(zip_file)
        function.changed()

    def _home(self, function: Function) -> Path:
        """The folder of a function's files: its first code and layers (code, opt), its versions' (versions/<n>), and
        the code and layers each update brings (<id>/code, <id>/opt)."""
        return self.directory / function.account_id / function.region / function.name

    def _beside(self, function: Function) -> Path:
        """A new code folder in a folder of its own (<id>/code, its layers in <id>/opt, as Lambda's are in /opt),
        removed again should the change that made it be refused."""
        code_dir = self._home(function) / uuid.uuid4().hex[:12] / "code"
        if self.observer is not None:
            self.observer.on_undo(lambda: shutil.rmtree(code_dir.parent, ignore_errors=True))
        return code_dir

    def set_layers(self, function: Function, layers: list[Layer]) -> None:
        """UpdateFunctionConfiguration's Layers: the whole list, in order ([] removes them all), laid out with a copy
        of the function's code in a folder of their own: the function as it was runs its own until the update
        completes."""
        if function.target is not None:
            raise InvalidParameterValueException(
                f"{function.name} is a registered in-process function: it has no layers"
            )
        assert function.code_dir is not None
        code_dir = self._beside(function)
        shutil.copytree(function.code_dir, code_dir, symlinks=True)
        if package_of(function.code_dir).is_file():  # the package Code.Location downloads
            shutil.copyfile(package_of(function.code_dir), package_of(code_dir))
        function.code_dir = code_dir
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
        self._store_code(function, zip_file, beside=True)
        function.last_modified = timestamp(now)
        return function

    def settle(self, function: Function, now: float) -> bool:
        """An update of $LATEST whose time on the clock is over (Function.update_started) completed: whether one was.
        Not written down: recovery completes it again from its end on the clock, which only moves forward."""
        if function.update is None or function.updating(now):
            return False
        self._completed(function, function.update_completed(), at_once=True)
        return True

    def update_read(self, function: Function, now: float) -> Function | None:
        """Its state was read (GetFunction, GetFunctionConfiguration): its update or, for a version UpdateFunctionCode
        published, its creation in progress is complete (Function.update_read). Written down: after a restart it is
        still complete. Answers the $LATEST whose update completed, or None.

        A version UpdateFunctionCode published read Active (its creation complete: its read before answered Pending)
        completes the update it was published with too: it runs that update's code, which is then in place, as AWS
        recorded (LocalStack's test_lambda.snapshot.json, TestLambdaVersions::test_lambda_versions_with_code_changes:
        after a waiter on version 3 alone, "invocation_result_latest_end" runs version3's code in $LATEST); its first
        read, Pending, does not (test_lambda_api.snapshot.json, TestLambdaVersions::test_publish_with_update:
        "get_function_latest_result" InProgress after "get_function_version_result" Pending)."""
        root = function.root
        if self.settle(root, now):
            return root
        if function.transition is not None and function.transition[0] == "created":
            function.update_read()
            return None
        if root.update is None or (function is not root and root.update.published != function.version):
            return None
        self._completed(root, root.update_read(), at_once=False)
        self.recorded(root)  # refused with its request: in progress still (the log's state put back)
        return root

    def _completed(self, function: Function, previous: Function | None, *, at_once: bool) -> None:
        """$LATEST's update complete: the code folder and layers it ran before are removed, once the completion is
        written down (`at_once`: it need not be)."""
        if previous is None or previous.code_dir is None or previous.code_dir == function.code_dir:
            return
        code_dir, home = previous.code_dir, self._home(function)

        def remove() -> None:
            remove_code(code_dir)
            shutil.rmtree(code_dir.parent / "opt", ignore_errors=True)
            if code_dir.parent != home:  # an earlier update's folder
                shutil.rmtree(code_dir.parent, ignore_errors=True)

        if at_once:
            self.remove_unused(code_dir, remove)
        else:
            self.after_commit(lambda: self.remove_unused(code_dir, remove))

    def list(self, account_id: str, region: str) -> list[Function]:
        return [f for f in self.functions.values() if f.account_id == account_id and f.region == region]

    def delete(self, function: Function) -> None:
        """The function, its versions and its aliases."""
        del self.functions[function.arn]
        if self.observer is not None:
            self.observer.function_deleted(function)  # refused with its request: not deleted
        if function.code_dir is not None:  # its files, once its request is written down
            home = self._home(function)
            self.after_commit(lambda: self.remove_unused(home, lambda: shutil.rmtree(home, ignore_errors=True)))

    def remove_unused(self, folder: Path, remove: Callable[[], None]) -> None:
        """remove() once no worker runs in `folder` or below it: an invocation in flight while its function's update
        completes or the function is deleted finishes on the code it started with, as on Lambda. Not at all if a
        function's code is there again by then (one of the same name created meanwhile)."""

        def unused() -> None:
            codes = [f.code_dir for root in self.functions.values() for f in (root, *root.versions.values())]
            if not any(code is not None and (code == folder or folder in code.parents) for code in codes):
                remove()

        self.when_unused(folder, unused)

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
