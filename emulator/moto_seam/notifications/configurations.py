"""PutBucketNotificationConfiguration checked as S3 checks it, before moto keeps the configuration:

  - a destination's ARN that is not one of its service's is S3's InvalidArgument "The ARN could not be parsed"
    (ArgumentName Queue, Topic or CloudFunction, ArgumentValue the ARN given), where moto's says "The ARN is not
    well formed" and names nothing;
  - a key filter's rule names in either case ("Prefix" is how S3 answers them; moto accepted only "prefix" and
    "suffix" and answered others with a 404); another name is S3's InvalidArgument "filter rule name must be either
    prefix or suffix" (ArgumentName FilterRule.Name), as AWS's recorded answer has it; a rule's empty value kept
    (moto refused it with a 404), matching every key;
  - every destination exists (unless the request says x-amz-skip-destination-validation: true, as
    SkipDestinationValidation does): "Unable to validate the following destination configurations", each missing one
    named in ArgumentName1/ArgumentValue1, ... (moto's model of InvalidArgument has one ArgumentName only, so the
    S3 error body gets them here);
  - no two configurations share an event type for keys both could match ("Configurations overlap. ...").
GetBucketNotificationConfiguration answers as S3 does: rule names "Prefix" then "Suffix", and
`"EventBridgeConfiguration": {}` for a bucket that sends its events to EventBridge.
AWS's answers: LocalStack's AWS-validated snapshots tests/aws/services/s3/test_s3_notifications_{sqs,lambda}
.snapshot.json; a missing topic's words are LocalStack's (no recorded answer was found).
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any, Iterator

import xmltodict
from moto.core import serialize as moto_serialize
from moto.s3.exceptions import InvalidArgumentError, InvalidFilterRuleName, S3ClientError
from moto.s3.models import FakeBucket, NotificationConfiguration
from moto.s3.responses import S3Response

from eddy.emulator.moto_seam.notifications.destinations import queue_exists, topic_exists
from eddy.emulator.moto_seam.notifications.target import active
from eddy.emulator.moto_seam import Patches
from eddy.emulator.notifications.s3_events import overlapping

KINDS = (
    ("queue", "QueueConfiguration"),
    ("topic", "TopicConfiguration"),
    ("cloud_function", "CloudFunctionConfiguration"),
)
#: a destination S3 cannot validate, per kind, as (ArgumentName, ArgumentValue)
UNVALIDATED = {
    "queue": lambda arn: (arn, "The destination queue does not exist"),
    "topic": lambda arn: (arn, "The destination topic does not exist"),
    "cloud_function": lambda arn: (f"{arn}, null", f"Not authorized to invoke function [{arn}]"),
}
OVERLAP = "Configurations overlap. Configurations on the same bucket cannot share a common event type."
#: each destination's element in the request (moto's name for the configuration without "Configuration") and service
DESTINATIONS = (("Queue", "sqs"), ("Topic", "sns"), ("CloudFunction", "lambda"))
#: per thread: the request being read asked S3 to skip the destinations' validation
_skipping = threading.local()


class DestinationsNotValidated(S3ClientError):
    """InvalidArgument naming each destination S3 could not validate (ArgumentName1, ArgumentValue1, ...)."""

    code = "InvalidArgument"

    def __init__(self, arguments: list[tuple[str, str]]) -> None:
        super().__init__("InvalidArgument", "Unable to validate the following destination configurations")
        self.arguments = arguments


_patches = Patches()


def install() -> None:
    set_configuration = FakeBucket.set_notification_configuration

    @functools.wraps(set_configuration)
    def checked(self: FakeBucket, notification_config: dict[str, Any] | None) -> None:
        target = active.target
        skip, _skipping.active = getattr(_skipping, "active", False), False
        if target is not None and notification_config and not skip:
            check(
                target.function_exists,
                NotificationConfiguration(
                    topic=notification_config.get("TopicConfiguration"),
                    queue=notification_config.get("QueueConfiguration"),
                    cloud_function=notification_config.get("CloudFunctionConfiguration"),
                ),
            )
        set_configuration(self, notification_config)

    _patches.set(FakeBucket, "set_notification_configuration", checked)
    _patches.set(
        S3Response, "_notification_config_from_body", _read_as_s3_does(S3Response._notification_config_from_body)
    )
    _patches.set(S3Response, "get_bucket_notification", _answered_as_s3_does(S3Response.get_bucket_notification))
    _patches.set(
        moto_serialize.S3Serializer,
        "_serialize_error_metadata",
        _with_arguments(moto_serialize.S3Serializer._serialize_error_metadata),
    )


def uninstall() -> None:
    _patches.restore()


def check(function_exists: Any, configuration: NotificationConfiguration) -> None:
    exists = {"queue": queue_exists, "topic": topic_exists, "cloud_function": function_exists}
    every = [(kind, n) for kind, _ in KINDS for n in getattr(configuration, kind)]
    missing = [UNVALIDATED[kind](n.arn) for kind, n in every if not exists[kind](n.arn)]
    if missing:
        raise DestinationsNotValidated(missing)
    shapes = [(list(n.events), *prefix_suffix(n)) for _, n in every]
    for index, first in enumerate(shapes):
        if any(overlapping(first, second) for second in shapes[index + 1 :]):
            raise S3ClientError("InvalidArgument", OVERLAP)


def each_configuration(bucket: Any) -> Iterator[tuple[str, str, Any, str, str]]:
    """A bucket's notification configurations: (kind, moto's name for it, the configuration, prefix, suffix)."""
    configuration = bucket.notification_configuration
    if configuration is None:
        return
    for kind, name in KINDS:
        for notification in getattr(configuration, kind):
            yield (kind, name, notification, *prefix_suffix(notification))


def prefix_suffix(notification: Any) -> tuple[str, str]:
    """A configuration's key filter: (prefix, suffix), "" where it has none."""
    rules = notification.filters.get("S3Key", {}).get("FilterRule", []) if notification.filters else []
    if isinstance(rules, dict):
        rules = [rules]
    values = {rule["Name"].lower(): rule["Value"] for rule in rules}
    return values.get("prefix", ""), values.get("suffix", "")


def _read_as_s3_does(parse: Any) -> Any:
    """S3Response._notification_config_from_body while an emulator is open: the destinations' ARNs checked and the
    rule names read in either case (the request's body, its names lowercased, is what moto parses), and whether the
    request skips the destinations' validation noted for FakeBucket.set_notification_configuration."""

    @functools.wraps(parse)
    def parsed(self: S3Response) -> dict[str, Any]:
        body = self.body
        if active.target is None or not body:
            return parse(self)
        _skipping.active = str(self.headers.get("x-amz-skip-destination-validation", "")).lower() == "true"
        empty: list[tuple[str, int, int]] = []
        self.body = _checked_body(body, empty)
        try:
            configuration = parse(self)
        finally:
            self.body = body
        for element, entry, rule in empty:  # moto takes no empty value: given it one, it is put back empty here
            entries = configuration[element] if isinstance(configuration[element], list) else [configuration[element]]
            entries[entry]["Filter"]["S3Key"]["FilterRule"][rule]["Value"] = ""
        return configuration

    return parsed


def _answered_as_s3_does(get: Any) -> Any:
    """S3Response.get_bucket_notification while an emulator is open: the filter rules named as S3 names them ("Prefix"
    before "Suffix", whatever the case they were put in; moto kept them lowercased), and a bucket sending its events
    to EventBridge says so (`"EventBridgeConfiguration": {}`), which moto's answer left out."""

    @functools.wraps(get)
    def answered(self: S3Response) -> Any:
        configuration = self.backend.get_bucket_notification_configuration(self.bucket_name)
        if active.target is None or configuration is None:
            return get(self)
        status, headers, body = get(self)
        if not body:
            return status, headers, body
        answer = xmltodict.parse(body).get("NotificationConfiguration") or {}
        for name in ("QueueConfiguration", "TopicConfiguration", "CloudFunctionConfiguration"):
            entries = answer.get(name) or []
            for entry in entries if isinstance(entries, list) else [entries]:
                key = (entry.get("Filter") or {}).get("S3Key") or {}
                if key.get("FilterRule"):
                    key["FilterRule"] = as_s3_names_them(key["FilterRule"])
        if configuration.event_bridge is not None:
            answer["EventBridgeConfiguration"] = None  # an empty element, as S3 writes it
        return status, headers, xmltodict.unparse({"NotificationConfiguration": answer})

    return answered


def as_s3_names_them(rules: Any) -> list[dict[str, Any]]:
    """A key filter's rules as S3 answers them (AWS's recorded answer to rules put as "suffix" and "PREFIX":
    LocalStack's test_s3_notifications_sqs.snapshot.json, test_filter_rules_case_insensitive)."""
    named = [
        {**rule, "Name": str(rule["Name"]).capitalize()} for rule in (rules if isinstance(rules, list) else [rules])
    ]
    return sorted(named, key=lambda rule: rule["Name"] != "Prefix")


def _checked_body(body: bytes | str, empty: list[tuple[str, int, int]]) -> str:
    """The request's body as moto reads it: rule names lowercased, an empty rule value given one for moto (which
    refuses "" where S3 keeps it: AWS's recorded test_filter_rules_empty_value), noted in `empty` as (configuration's
    element, its index, the rule's index) to be put back."""
    document = xmltodict.parse(body)
    configuration = document.get("NotificationConfiguration") or {}
    for name, service in DESTINATIONS:
        entries = configuration.get(f"{name}Configuration") or []
        for index, entry in enumerate(entries if isinstance(entries, list) else [entries]):
            arn = str(entry.get(name) or "")
            if not re.match(rf"arn:aws[a-z-]*:{service}:", arn):
                raise InvalidArgumentError("The ARN could not be parsed", name, arn)
            rules = ((entry.get("Filter") or {}).get("S3Key") or {}).get("FilterRule") or []
            for number, rule in enumerate(rules if isinstance(rules, list) else [rules]):
                if str(rule.get("Name", "")).lower() not in ("prefix", "suffix"):
                    raise InvalidFilterRuleName(rule.get("Name"))
                rule["Name"] = rule["Name"].lower()
                if not rule.get("Value"):
                    rule["Value"] = "-"
                    empty.append((f"{name}Configuration", index, number))
    return xmltodict.unparse(document)


def _with_arguments(serialize_error_metadata: Any) -> Any:
    """moto's S3 error body, with ArgumentName1, ArgumentValue1, ... for an error that carries `arguments`."""

    @functools.wraps(serialize_error_metadata)
    def serialized(self: Any, serialized: Any, error: Exception, shape: Any) -> None:
        serialize_error_metadata(self, serialized, error, shape)
        for number, (name, value) in enumerate(getattr(error, "arguments", None) or [], start=1):
            serialized[f"ArgumentName{number}"] = name
            serialized[f"ArgumentValue{number}"] = value

    return serialized
