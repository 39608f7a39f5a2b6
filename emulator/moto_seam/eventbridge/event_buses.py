"""moto's EventBridge event buses answered as AWS answers (LocalStack's AWS-validated tests/aws/services/events/
test_events.py and its test_events.snapshot.json, localstack/localstack at 8b9a79f05846):

  - CreateEventBus answers the Description it was given beside EventBusArn, and ListEventBuses lists each bus with
    its CreationTime, LastModifiedTime and Description (moto: name, ARN and policy only; test_create_list_describe_
    delete_custom_event_buses, test_list_event_buses_with_prefix, test_list_event_buses_with_limit);
  - PutPermission adds or replaces the statement of its StatementId only (moto also dropped every other statement of
    the same principal), an account's principal as `arn:aws:iam::<account>:root` and "*" as "*" (moto wrote
    `arn:aws:iam::*:root`); PutPermission with a Policy makes that policy the bus's whole policy (test_put_permission);
  - RemovePermission of a statement id the bus does not have is "Statement with the provided id does not exist.",
    policy or none (test_remove_permission_non_existing_sid; moto: "EventBus does not have a policy.");
  - DescribeRule of a missing rule names its bus: "Rule <name> does not exist on EventBus <bus>."
    (test_describe_nonexistent_rule);
  - ListTargetsByRule's NextToken goes on after the page it came with, targets told apart by their Id (moto's by
    their Arn, the same for a rule's targets on one queue, so it started again; test_list_target_by_rule_limit).
"""

from __future__ import annotations

import json
from typing import Any

from moto.core.exceptions import JsonRESTError
from moto.events import models as events_models
from moto.events import utils as events_utils
from moto.events.exceptions import ResourceNotFoundException
from moto.events.models import EventBus, EventsBackend
from moto.events.responses import EventsHandler

from eddy.emulator.moto_seam import Patches

_patches = Patches()
_original_list_event_buses = EventsHandler.list_event_buses
_original_create_event_bus = EventsHandler.create_event_bus
_original_remove_permission = EventsBackend.remove_permission
_original_describe_rule = EventsBackend.describe_rule
#: moto's pagination of ListTargetsByRule, and Eddy's: targets told apart by their Id
_MOTO_TARGETS_PAGES = dict(events_utils.PAGINATION_MODEL["list_targets_by_rule"])
_TARGETS_PAGES = dict(_MOTO_TARGETS_PAGES, unique_attribute="Id")


def install() -> None:
    _patches.set(EventsHandler, "list_event_buses", _list_event_buses)
    _patches.set(EventsHandler, "create_event_bus", _create_event_bus)
    _patches.set(EventBus, "add_permission", _add_permission)
    _patches.set(EventBus, "add_policy", _add_policy)
    _patches.set(EventsBackend, "remove_permission", _remove_permission)
    _patches.set(EventsBackend, "describe_rule", _describe_rule)
    events_utils.PAGINATION_MODEL["list_targets_by_rule"] = _TARGETS_PAGES


def uninstall() -> None:
    events_utils.PAGINATION_MODEL["list_targets_by_rule"] = _MOTO_TARGETS_PAGES
    _patches.restore()


def _list_event_buses(self: EventsHandler) -> tuple[str, dict[str, Any]]:
    body, headers = _original_list_event_buses(self)
    answer = json.loads(body)
    backend = self.events_backend
    for entry in answer["EventBuses"]:
        bus = backend.event_buses[entry["Name"]]
        entry.update(_times_and_description(bus))
    if answer.get("NextToken") is None:
        answer.pop("NextToken", None)
    return json.dumps(answer), headers


def _times_and_description(bus: EventBus) -> dict[str, Any]:
    described: dict[str, Any] = {"CreationTime": bus.creation_time, "LastModifiedTime": bus.last_modified_time}
    if bus.description:
        described["Description"] = bus.description
    return described


def _create_event_bus(self: EventsHandler) -> tuple[str, dict[str, Any]]:
    body, headers = _original_create_event_bus(self)
    answer = json.loads(body)
    for member in ("Description", "KmsKeyIdentifier", "DeadLetterConfig"):
        if self._get_param(member):
            answer[member] = self._get_param(member)
    return json.dumps(answer), headers


def _add_permission(
    self: EventBus, statement_id: str, action: str, principal: dict[str, str], condition: dict[str, Any] | None
) -> None:
    everyone = principal.get("AWS", "").endswith(":iam::*:root")
    self._statements[statement_id] = events_models.EventBusPolicyStatement(
        sid=statement_id,
        action=action,
        principal="*" if everyone else principal,  # type: ignore[arg-type]
        condition=condition,
        resource=self.arn,
    )


def _add_policy(self: EventBus, policy: dict[str, Any]) -> None:
    self._statements.clear()
    for statement in policy["Statement"]:
        self._statements[statement["Sid"]] = events_models.EventBusPolicyStatement.from_dict(statement)


def _remove_permission(
    self: EventsBackend, event_bus_name: str | None, statement_id: str, remove_all_permissions: bool
) -> None:
    bus = self.describe_event_bus(event_bus_name or "default")
    if not remove_all_permissions and statement_id not in bus._statements:
        raise JsonRESTError(
            "ResourceNotFoundException", "Statement with the provided id does not exist."
        )
    _original_remove_permission(self, event_bus_name, statement_id, remove_all_permissions)


def _describe_rule(self: EventsBackend, name: str, event_bus_arn: str | None) -> Any:
    bus_name = self._normalize_event_bus_arn(event_bus_arn)
    bus = self._get_event_bus(bus_name)
    if name not in bus.rules:
        raise ResourceNotFoundException(f"Rule {name} does not exist on EventBus {bus.name}.")
    return _original_describe_rule(self, name, event_bus_arn)
