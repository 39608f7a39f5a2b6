"""moto's EventBridge rules as the dashboard lists them: each rule on each bus, its state, pattern and targets
(moto keeps them; Eddy delivers the Lambda and SQS targets' events, eventbridge/rules.py)."""

from __future__ import annotations

from typing import Any

from moto.events.models import events_backends


def rules() -> list[dict[str, Any]]:
    """Every rule of every event bus, in ListRules' and ListTargetsByRule's words."""
    found = []
    for account_id in list(events_backends.keys()):
        for region in list(events_backends[account_id].keys()):
            for bus in list(events_backends[account_id][region].event_buses.values()):
                for rule in list(bus.rules.values()):
                    entry: dict[str, Any] = {
                        "Name": rule.name,
                        "Arn": rule.arn,
                        "EventBusName": bus.name,
                        "Region": region,
                        "State": rule.state,
                        "Targets": [{"Id": target["Id"], "Arn": target["Arn"]} for target in rule.targets],
                    }
                    if rule.event_pattern._raw_pattern:
                        entry["EventPattern"] = rule.event_pattern._raw_pattern
                    if rule.scheduled_expression:
                        entry["ScheduleExpression"] = rule.scheduled_expression
                    found.append(entry)
    return sorted(found, key=lambda entry: (entry["EventBusName"], entry["Name"]))
