"""The function registry's part that publishes, deletes and resolves versions and aliases, and a FunctionName in any
of its forms with its qualifier (VersionedRegistry: the registry, functions/registry.py, is one)."""

from __future__ import annotations

import re
import shutil
from typing import Any, Callable

from eddy.emulator.errors import FunctionNotFoundException, reachable
from eddy.emulator.functions.packages import package_of
from eddy.emulator.functions.versions.aliases import LATEST, Alias, fingerprint
from eddy.emulator.functions.configuration import function_configuration

#: a FunctionName in any of its forms (name, name:qualifier, partial ARN, ARN), as the API model's pattern reads it
FUNCTION_NAME_FORMS = re.compile(
    r"^(?:arn:aws[a-zA-Z-]*:lambda:)?(?:(?P<region>[a-z]{2}[a-z0-9-]*-\d):)?"
    r"(?:(?P<account>\d{12}):)?(?:function:)?(?P<name>[a-zA-Z0-9-_.]+)(?::(?P<qualifier>.+))?$"
)


class VersionedRegistry:
    """The function registry's versions and aliases (functions/registry.py's FunctionRegistry is one): published,
    deleted, and resolved for the API and for invocations."""

    functions: dict[str, Any]
    observer: Any
    draw: Callable[[], float]
    recorded: Callable[..., None]
    after_commit: Callable[[Callable[[], Any]], None]
    remove_unused: Callable[[Any, Callable[[], None]], None]
    _home: Callable[[Any], Any]

    def publish_version(self, function: Any, description: str | None) -> tuple[Any, bool]:
        """PublishVersion: $LATEST frozen as the next version, or the last version again when $LATEST has not
        changed since it was published: (the version, whether it is new)."""
        made_of = fingerprint(function_configuration(function))
        if function.versions:
            last = function.versions[max(function.versions, key=int)]
            if last.source_fingerprint == made_of:
                return last, False
        number = str(function.last_version + 1)
        version = function.copied(
            version=number,
            source_fingerprint=made_of,
            description=function.description if description is None else description,
            policy=[],
            tags={},
            event_invoke_config=None,
            reserved_concurrency=None,
        )
        version.changed()  # its own revision: its workers are its own
        if function.code_dir is not None:  # its own copy: $LATEST's code may change, the version's never does
            home = self._home(function) / "versions" / number
            shutil.rmtree(home, ignore_errors=True)
            if self.observer is not None:  # refused with its request: its copy is not left behind
                self.observer.on_undo(lambda: shutil.rmtree(home, ignore_errors=True))
            shutil.copytree(function.code_dir, home / "code", symlinks=True)
            if package_of(function.code_dir).is_file():  # the package it was published with (Code.Location's)
                shutil.copyfile(package_of(function.code_dir), package_of(home / "code"))
            if function.opt_dir is not None and function.opt_dir.exists():
                shutil.copytree(function.opt_dir, home / "opt", symlinks=True)
            version.code_dir = home / "code"
        function.last_version = int(number)
        function.versions[number] = version
        # publishing is a new revision of $LATEST too (AWS-recorded: test_lambda_api.snapshot.json,
        # TestLambdaRevisions::test_function_revisions_version_and_alias, rev2 before and rev3 after PublishVersion)
        self.recorded(function, new_revision=True)
        self.recorded(version)
        return version, True

    def delete_version(self, version: Any) -> None:
        version.root.versions.pop(version.version, None)
        if self.observer is not None:
            self.observer.function_deleted(version)  # refused with its request: not deleted
        if version.code_dir is not None:  # its files, once its request is written down
            home = version.code_dir.parent
            self.after_commit(lambda: self.remove_unused(home, lambda: shutil.rmtree(home, ignore_errors=True)))

    @staticmethod
    def qualified(function: Any, qualifier: str | None) -> Any:
        """What function:qualifier names: $LATEST, a version or an alias (None: nothing by that name)."""
        if qualifier in (None, LATEST):
            return function
        return function.versions.get(qualifier) if qualifier.isdigit() else function.aliases.get(qualifier)

    def get(self, name_or_arn: str, account_id: str, region: str) -> Any:
        """$LATEST of the function a name or unqualified ARN names (a qualifier other than $LATEST: not found)."""
        function, qualifier = self.target(name_or_arn, account_id, region)
        if qualifier not in (None, LATEST):
            raise FunctionNotFoundException(f"Function not found: {function.arn}:{qualifier}")
        return function

    def target(self, name_or_arn: str, account_id: str, region: str) -> tuple[Any, str | None]:
        """The function a FunctionName names in any of its forms (name, name:qualifier, a partial ARN, an ARN), and
        the qualifier it carries, which exists (else ResourceNotFoundException "Function not found: <ARN>")."""
        match = FUNCTION_NAME_FORMS.match(name_or_arn)
        if match is None:
            raise FunctionNotFoundException(f"Function not found: {name_or_arn}")
        reachable(match.group("region"), region)
        arn = (
            f"arn:aws:lambda:{match.group('region') or region}:{match.group('account') or account_id}:function:"
            f"{match.group('name')}"
        )
        qualifier = match.group("qualifier")
        function = self.functions.get(arn)
        if function is None:
            raise FunctionNotFoundException(f"Function not found: {arn}")
        if self.qualified(function, qualifier) is None:
            raise FunctionNotFoundException(f"Function not found: {arn}:{qualifier}")
        return function, qualifier

    def qualified_target(self, name_or_arn: str, account_id: str, region: str) -> tuple[Any, str]:
        """The function a FunctionName names and the ARN it names it by (qualified when it names a version or an
        alias: an event source mapping invokes that)."""
        function, qualifier = self.target(name_or_arn, account_id, region)
        return function, f"{function.arn}:{qualifier}" if qualifier else function.arn

    def version_of(self, function: Any, qualifier: str | None, *, weighted: bool = False) -> Any:
        """The version function:qualifier runs: an alias's own version, or (weighted) the one its weights pick."""
        target = self.qualified(function, qualifier)
        if not isinstance(target, Alias):
            return target
        chosen = target.choose(self.draw()) if weighted else target.function_version
        return function if chosen == LATEST else function.versions.get(chosen)

    def runnable(self, arn: str) -> Any:
        """The version an invocation of an ARN runs (unqualified: $LATEST; an alias's by its weights); None if the
        function, version or alias does not exist."""
        function, qualifier = self._named(arn)
        return None if function is None else self.version_of(function, qualifier, weighted=True)

    def invoke_settings(self, arn: str) -> dict[str, Any] | None:
        """The event invoke config of what an ARN names (each qualifier has its own: the function's is $LATEST's)."""
        function, qualifier = self._named(arn)
        target = None if function is None else self.qualified(function, qualifier)
        return None if target is None else target.event_invoke_config

    def _named(self, arn: str) -> tuple[Any, str | None]:
        base, _, qualifier = arn.partition(":function:")[2].partition(":")
        return self.functions.get(arn.rsplit(":", 1)[0] if qualifier else arn), qualifier or None
