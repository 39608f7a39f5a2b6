"""SNS subscriptions to functions and queues and S3 buckets' notification configurations, as the dashboard lists
them (moto keeps both; moto_seam/notifications/ delivers what they push)."""

from __future__ import annotations

from typing import Any

from moto.s3.models import s3_backends
from moto.sns.models import sns_backends

from eddy.emulator.moto_seam.notifications.configurations import each_configuration

#: the destinations whose subscriptions the dashboard lists (the pipeline's hops), in the Subscribe API's words
PIPELINE_PROTOCOLS = ("lambda", "sqs")


def subscriptions() -> list[dict[str, Any]]:
    """Every SNS subscription that delivers to a function or a queue, as GetSubscriptionAttributes names it."""
    found = []
    for account_id in list(sns_backends.keys()):
        for region in list(sns_backends[account_id].keys()):
            for subscription in list(sns_backends[account_id][region].subscriptions.values()):
                if subscription.protocol not in PIPELINE_PROTOCOLS:
                    continue
                attributes = subscription.attributes
                entry = {
                    "SubscriptionArn": subscription.arn,
                    "TopicArn": subscription.topic.arn,
                    "Protocol": subscription.protocol,
                    "Endpoint": subscription.endpoint,
                    "Region": region,
                    "RawMessageDelivery": str(attributes.get("RawMessageDelivery", "false")).lower() == "true",
                }
                if attributes.get("FilterPolicy"):
                    entry["FilterPolicy"] = attributes["FilterPolicy"]
                    entry["FilterPolicyScope"] = attributes.get("FilterPolicyScope", "MessageAttributes")
                found.append(entry)
    return sorted(found, key=lambda entry: (entry["TopicArn"], entry["Endpoint"]))


def bucket_notifications() -> list[dict[str, Any]]:
    """Every bucket's notification configurations: one entry per configuration, with its events, filter and
    destination (a queue, a topic or a function)."""
    found = []
    for account_id in list(s3_backends.keys()):
        for partition in list(s3_backends[account_id].keys()):
            for bucket in list(s3_backends[account_id][partition].buckets.values()):
                for _, name, notification, prefix, suffix in each_configuration(bucket):
                    entry: dict[str, Any] = {
                        "Bucket": bucket.name,
                        "Id": notification.id,
                        "Configuration": name,
                        "Events": list(notification.events),
                        "Destination": notification.arn,
                    }
                    rules = [{"Name": n, "Value": v} for n, v in (("prefix", prefix), ("suffix", suffix)) if v]
                    if rules:
                        entry["Filter"] = {"Key": {"FilterRules": rules}}
                    found.append(entry)
    return sorted(found, key=lambda entry: (entry["Bucket"], entry["Id"]))
