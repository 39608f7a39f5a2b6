"""A function's published versions and aliases, as Lambda keeps them (VersionedRegistry: the registry's part).

    version = registry.publish_version(function, description=None)     # "1", "2", ...: frozen copies of $LATEST
    alias = Alias("live", "2", routing={"3": 0.1})                      # 10% of invocations run version 3

A version is a copy of $LATEST's code and configuration at PublishVersion, never changed afterwards; its number is
one more than the highest ever published for the function (a deleted version's number is not given again).
PublishVersion when neither code nor configuration changed since the last version answers that version again and
publishes nothing (AWS-recorded: LocalStack's test_lambda_api.snapshot.json, TestLambdaVersions::test_version_lifecycle,
"third_publish_response" is version 2 again, its Description unchanged). An alias names one version ($LATEST too),
and may send a share of invocations to one other version (RoutingConfig.AdditionalVersionWeights): Invoke picks the
version by those weights, each time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

LATEST = "$LATEST"
#: the configuration's members that are not its content: they change without the function changing
VOLATILE = ("FunctionArn", "Version", "RevisionId", "LastModified", "State", "StateReason", "StateReasonCode",
            "LastUpdateStatus", "LastUpdateStatusReason", "LastUpdateStatusReasonCode")
#: what ListVersionsByFunction leaves out of each version's configuration (AWS-recorded: test_version_lifecycle's
#: "list_versions_result": no State, no LastUpdateStatus)
NOT_LISTED = VOLATILE[4:]


@dataclass
class Alias:
    """One alias of a function: CreateAlias's Name, FunctionVersion, Description and RoutingConfig."""

    name: str
    function_version: str
    description: str = ""
    #: RoutingConfig.AdditionalVersionWeights: {version: share of invocations (0.0..1.0)}
    routing: dict[str, float] = field(default_factory=dict)
    revision_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    #: its own resource-based policy (AddPermission with the alias as Qualifier)
    policy: list[dict[str, Any]] = field(default_factory=list)
    #: its own PutFunctionEventInvokeConfig settings
    event_invoke_config: dict[str, Any] | None = None

    def configuration(self, function_arn: str) -> dict[str, Any]:
        """AliasConfiguration as CreateAlias, GetAlias and ListAliases answer it (RoutingConfig only when it has a
        weight: AWS-recorded test_alias_lifecycle, "create_alias_1_2" and "create_alias_empty_routingconfig")."""
        answer: dict[str, Any] = {"AliasArn": f"{function_arn}:{self.name}", "Name": self.name,
                                  "FunctionVersion": self.function_version, "Description": self.description,
                                  "RevisionId": self.revision_id}
        if self.routing:
            answer["RoutingConfig"] = {"AdditionalVersionWeights": dict(self.routing)}
        return answer

    def changed(self) -> None:
        self.revision_id = str(uuid.uuid4())

    def versions(self) -> set[str]:
        """The versions it sends invocations to."""
        return {self.function_version, *self.routing}

    def choose(self, draw: float) -> str:
        """The version an invocation runs, for a draw in [0, 1): each additional version takes its weight's share."""
        for version, weight in self.routing.items():
            if draw < weight:
                return version
            draw -= weight
        return self.function_version

    def to_state(self) -> dict[str, Any]:
        return {"name": self.name, "function_version": self.function_version, "description": self.description,
                "routing": dict(self.routing), "revision_id": self.revision_id, "policy": list(self.policy),
                "event_invoke_config": self.event_invoke_config}


def fingerprint(configuration: dict[str, Any]) -> str:
    """What a version is made of ($LATEST's code and configuration, without what changes by itself): publishing
    again when it is the last version's publishes nothing."""
    content = {key: value for key, value in configuration.items() if key not in VOLATILE}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def listed(configuration: dict[str, Any]) -> dict[str, Any]:
    """A version's configuration as ListVersionsByFunction lists it."""
    return {key: value for key, value in configuration.items() if key not in NOT_LISTED}


class VersionedRegistry:
    """The function registry's versions and aliases (functions/registry.py's FunctionRegistry is one): published,
    deleted, and resolved for the API and for invocations."""

    functions: dict[str, Any]
    observer: Any
    draw: Callable[[], float]
    recorded: Callable[..., None]

    def publish_version(self, function: Any, description: str | None) -> tuple[Any, bool]:
        """PublishVersion: $LATEST frozen as the next version, or the last version again when $LATEST has not
        changed since it was published: (the version, whether it is new)."""
        made_of = fingerprint(function.configuration())
        if function.versions:
            last = function.versions[max(function.versions, key=int)]
            if last.source_fingerprint == made_of:
                return last, False
        number = str(function.last_version + 1)
        version = dataclasses.replace(
            function, version=number, versions={}, aliases={}, latest=function, source_fingerprint=made_of,
            description=function.description if description is None else description, policy=[], tags={},
            event_invoke_config=None, reserved_concurrency=None, environment=dict(function.environment),
            layers=[dict(layer) for layer in function.layers], logging_config=dict(function.logging_config),
            )
        version.changed()  # its own revision: its workers are its own
        if function.code_dir is not None:  # its own copy: $LATEST's code may change, the version's never does
            home = function.code_dir.parent / "versions" / number
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(function.code_dir, home / "code", symlinks=True)
            if function.opt_dir is not None and function.opt_dir.exists():
                shutil.copytree(function.opt_dir, home / "opt", symlinks=True)
            version.code_dir = home / "code"
        function.last_version = int(number)
        function.versions[number] = version
        self.recorded(function)
        self.recorded(version)
        return version, True

    def delete_version(self, version: Any) -> None:
        version.root.versions.pop(version.version, None)
        if self.observer is not None:
            self.observer.function_deleted(version)
        if version.code_dir is not None:
            shutil.rmtree(version.code_dir.parent, ignore_errors=True)

    @staticmethod
    def qualified(function: Any, qualifier: str | None) -> Any:
        """What function:qualifier names: $LATEST, a version or an alias (None: nothing by that name)."""
        if qualifier in (None, LATEST):
            return function
        return function.versions.get(qualifier) if qualifier.isdigit() else function.aliases.get(qualifier)

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
