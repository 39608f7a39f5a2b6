"""SNS subscription filter policies checked and applied by Eddy's engine (event_patterns/sns_policies.py) in moto.

While an emulator is open:
- Subscribe with Attributes checks its FilterPolicyScope and FilterPolicy before moto makes anything, refusing in
  SNS's words ("Invalid parameter: Attributes Reason: FilterPolicy: ..."); SetSubscriptionAttributes checks a
  FilterPolicy against the subscription's scope and a FilterPolicyScope's value ("Invalid parameter: FilterPolicy:
  ..."). moto's own check (SNSBackend._validate_filter_policy, which refuses valid policies and words its refusals
  its own way) is skipped.
- every subscription's matcher is Eddy's (moto's FilterPolicyMatcher replaced where moto makes one), so what moto
  delivers itself (SQS, HTTP, email, ...) and what Eddy delivers (subscriptions.py: functions) is filtered alike.
While none is open, moto's own pieces run.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from moto.sns import models as sns_models
from moto.sns.exceptions import SNSInvalidParameter
from moto.sns.models import SNSBackend
from moto.sns.responses import SNSResponse

from eddy.emulator.event_patterns.sns_policies import (
    SCOPES,
    SET_ATTRIBUTES,
    SUBSCRIBE,
    FilterPolicy,
    InvalidFilterPolicy,
    invalid_scope,
)
from eddy.emulator.moto_seam import Patches
from eddy.emulator.moto_seam.notifications.target import active

original_matcher = sns_models.FilterPolicyMatcher
original_validate = SNSBackend._validate_filter_policy
original_set_attributes = SNSBackend.set_subscription_attributes
original_subscribe = SNSResponse.subscribe


class PolicyMatcher:
    """moto's FilterPolicyMatcher's face (``matches(message_attributes, message)``) over Eddy's FilterPolicy; kept
    in moto's state as the policy and scope only (snapshots pickle it), compiled again when first used."""

    def __init__(self, filter_policy: dict[str, Any], filter_policy_scope: str | None) -> None:
        self.source = json.dumps(filter_policy)
        self.scope = filter_policy_scope
        self._policy: FilterPolicy | None = None

    def matches(self, message_attributes: dict[str, Any] | None, message: str) -> bool:
        if self._policy is None:
            self._policy = FilterPolicy.compile(self.source, self.scope)
        return self._policy.matches(message_attributes, message)

    def __getstate__(self) -> dict[str, Any]:
        return {"source": self.source, "scope": self.scope}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.source, self.scope, self._policy = state["source"], state["scope"], None


_patches = Patches()


def install() -> None:
    _patches.set(sns_models, "FilterPolicyMatcher", _matcher)
    _patches.set(SNSBackend, "_validate_filter_policy", _validate)
    _patches.set(SNSBackend, "set_subscription_attributes", _set_attributes)
    _patches.set(SNSResponse, "subscribe", _subscribe)


def uninstall() -> None:
    _patches.restore()


def _matcher(filter_policy: dict[str, Any], filter_policy_scope: str | None = None) -> Any:
    if active.target is None:
        return original_matcher(filter_policy, filter_policy_scope)
    return PolicyMatcher(filter_policy, filter_policy_scope)


@functools.wraps(original_validate)
def _validate(self: SNSBackend, value: Any, scope: str | None) -> None:
    if active.target is None:
        original_validate(self, value, scope)  # otherwise checked already, as SNS checks it


@functools.wraps(original_set_attributes)
def _set_attributes(self: SNSBackend, arn: str, name: str, value: Any) -> None:
    subscription = next((s for s in self.subscriptions.values() if s.arn == arn), None)
    if active.target is not None and subscription is not None:
        if name == "FilterPolicyScope" and value not in SCOPES:
            raise SNSInvalidParameter(invalid_scope(value).message)
        if name == "FilterPolicy" and value:
            _check(value, subscription.attributes.get("FilterPolicyScope"), SET_ATTRIBUTES)
    original_set_attributes(self, arn, name, value)


@functools.wraps(original_subscribe)
def _subscribe(self: SNSResponse) -> Any:
    if active.target is not None:
        attributes = self._get_attributes() or {}
        scope = attributes.get("FilterPolicyScope")
        if scope is not None and scope not in SCOPES:
            raise SNSInvalidParameter(invalid_scope(scope).message)
        if attributes.get("FilterPolicy"):
            _check(attributes["FilterPolicy"], scope, SUBSCRIBE)
    return original_subscribe(self)


def _check(policy: str, scope: str | None, prefix: str) -> None:
    try:
        FilterPolicy.compile(policy, scope, prefix)
    except InvalidFilterPolicy as refusal:
        raise SNSInvalidParameter(refusal.message) from None
