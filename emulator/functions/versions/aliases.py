"""A function's aliases and what a version is made of (pure): Alias (a version, and weights to one other version),
fingerprint (what PublishVersion compares), listed (a version as ListVersionsByFunction lists it)."""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

LATEST = "$LATEST"
#: the configuration's members that are not its content: they change without the function changing
VOLATILE = (
    "FunctionArn",
    "Version",
    "RevisionId",
    "LastModified",
    "State",
    "StateReason",
    "StateReasonCode",
    "LastUpdateStatus",
    "LastUpdateStatusReason",
    "LastUpdateStatusReasonCode",
)
#: what ListVersionsByFunction and ListFunctions leave out of each configuration (AWS-recorded: test_version_lifecycle's
#: "list_versions_result" and test_list_functions' "list_all": no State, no LastUpdateStatus, no RuntimeVersionConfig)
NOT_LISTED = (*VOLATILE[4:], "RuntimeVersionConfig")


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
        answer: dict[str, Any] = {
            "AliasArn": f"{function_arn}:{self.name}",
            "Name": self.name,
            "FunctionVersion": self.function_version,
            "Description": self.description,
            "RevisionId": self.revision_id,
        }
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
        return {
            "name": self.name,
            "function_version": self.function_version,
            "description": self.description,
            "routing": dict(self.routing),
            "revision_id": self.revision_id,
            "policy": list(self.policy),
            "event_invoke_config": self.event_invoke_config,
        }


def fingerprint(configuration: dict[str, Any]) -> str:
    """What a version is made of ($LATEST's code and configuration, without what changes by itself): publishing
    again when it is the last version's publishes nothing."""
    content = {key: value for key, value in configuration.items() if key not in VOLATILE}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def listed(configuration: dict[str, Any]) -> dict[str, Any]:
    """A version's configuration as ListVersionsByFunction lists it."""
    return {key: value for key, value in configuration.items() if key not in NOT_LISTED}
