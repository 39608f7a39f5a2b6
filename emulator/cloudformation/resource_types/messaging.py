"""AWS::SQS::Queue, AWS::SQS::QueuePolicy, AWS::SNS::Topic, AWS::SNS::Subscription and AWS::SNS::TopicPolicy
through the SQS and SNS APIs."""

from __future__ import annotations

import json
import uuid

from typing import Any

from botocore.exceptions import ClientError

from eddy.emulator.cloudformation.errors import ResourceFailed
from eddy.emulator.notifications.subscription_attributes import SUBSCRIPTION_ATTRIBUTES
from eddy.emulator.cloudformation.resource_types.base import (
    Created,
    Provisioning,
    ResourceType,
    already_exists,
    json_text,
    not_found,
    required,
    tags_list,
)

_QUEUE_ATTRIBUTES = (
    "DelaySeconds",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "ReceiveMessageWaitTimeSeconds",
    "VisibilityTimeout",
    "RedrivePolicy",
    "RedriveAllowPolicy",
    "FifoQueue",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
    "KmsMasterKeyId",
    "KmsDataKeyReusePeriodSeconds",
    "SqsManagedSseEnabled",
)
#: what SQS's attributes return to when a property is taken out of the template
_QUEUE_DEFAULTS = {
    "DelaySeconds": "0",
    "MaximumMessageSize": "262144",
    "MessageRetentionPeriod": "345600",
    "ReceiveMessageWaitTimeSeconds": "0",
    "VisibilityTimeout": "30",
    "RedrivePolicy": "",
}


def _attribute(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return json_text(value) if isinstance(value, (dict, list)) else str(value)


class Queue(ResourceType):
    type_name = "AWS::SQS::Queue"
    replacing = frozenset({"QueueName", "FifoQueue"})
    name_property = "QueueName"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        fifo = str(properties.get("FifoQueue", "")).lower() == "true"
        name = properties.get("QueueName") or provisioning.name(80, suffix=".fifo" if fifo else "")
        attributes = {key: _attribute(properties[key]) for key in _QUEUE_ATTRIBUTES if key in properties}
        request: dict[str, Any] = {"QueueName": name, "Attributes": attributes}
        if properties.get("Tags"):
            request["tags"] = {tag["Key"]: str(tag["Value"]) for tag in properties["Tags"]}
        sqs = provisioning.client("sqs")
        if properties.get("QueueName"):
            try:
                sqs.get_queue_url(QueueName=name)
            except ClientError:
                pass  # none yet: made below
            else:
                raise already_exists(self.type_name, name)
        url = sqs.create_queue(**request)["QueueUrl"]
        return Created(url, self._attributes(provisioning, url))

    @staticmethod
    def _attributes(provisioning: Provisioning, url: str) -> dict[str, Any]:
        arn = provisioning.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
        return {"Arn": arn["Attributes"]["QueueArn"], "QueueName": url.rsplit("/", 1)[-1], "QueueUrl": url}

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        changed = {key: _attribute(new[key]) for key in _QUEUE_ATTRIBUTES if key in new and old.get(key) != new[key]}
        changed.update({key: _QUEUE_DEFAULTS[key] for key in _QUEUE_DEFAULTS if key in old and key not in new})
        sqs = provisioning.client("sqs")
        if changed:
            sqs.set_queue_attributes(QueueUrl=physical_id, Attributes=changed)
        if old.get("Tags") != new.get("Tags"):
            if old.get("Tags"):
                sqs.untag_queue(QueueUrl=physical_id, TagKeys=[tag["Key"] for tag in old["Tags"]])
            if new.get("Tags"):
                sqs.tag_queue(QueueUrl=physical_id, Tags={tag["Key"]: str(tag["Value"]) for tag in new["Tags"]})
        return self._attributes(provisioning, physical_id)

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            provisioning.client("sqs").delete_queue(QueueUrl=physical_id)
        except ClientError as error:
            if not not_found(error) and "NonExistentQueue" not in str(error):
                raise


class QueuePolicy(ResourceType):
    type_name = "AWS::SQS::QueuePolicy"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "PolicyDocument", "Queues")
        self._apply(provisioning, properties["Queues"], json_text(properties["PolicyDocument"]))
        return Created(provisioning.name(255), {"Id": provisioning.logical_id})

    @staticmethod
    def _apply(provisioning: Provisioning, queues: list[str], policy: str) -> None:
        for url in queues:
            provisioning.client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": policy})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        self._apply(provisioning, [url for url in old["Queues"] if url not in new["Queues"]], "")
        self._apply(provisioning, new["Queues"], json_text(new["PolicyDocument"]))
        return {"Id": provisioning.logical_id}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        for url in properties.get("Queues") or []:
            try:
                provisioning.client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": ""})
            except ClientError:
                continue  # the queue is gone already: so is its policy


#: a LoggingConfig's Protocol and the prefix of the topic attributes it stands for
_LOGGING_PROTOCOLS = {"http/s": "HTTP", "sqs": "SQS", "lambda": "Lambda", "firehose": "Firehose",
                      "application": "Application"}
_LOGGING_MEMBERS = ("SuccessFeedbackRoleArn", "SuccessFeedbackSampleRate", "FailureFeedbackRoleArn")


def _logging_attributes(configs: Any) -> dict[str, str]:
    """A topic's DeliveryStatusLogging as the SNS attributes it sets: each LoggingConfig's members under its
    protocol's prefix (LambdaSuccessFeedbackRoleArn, HTTPSuccessFeedbackSampleRate, ...; the CloudFormation reference's
    AWS::SNS::Topic LoggingConfig, Protocol http/s | sqs | lambda | firehose | application, and the SNS Developer
    Guide's "Configuring delivery status logging using AWS CloudFormation")."""
    attributes: dict[str, str] = {}
    for index, config in enumerate(configs or []):
        protocol = config.get("Protocol") if isinstance(config, dict) else None
        if protocol not in _LOGGING_PROTOCOLS:
            what = f"#/DeliveryStatusLogging/{index}"
            raise ResourceFailed(
                f"Properties validation failed for resource with message: {what}: required key [Protocol] not found"
                if protocol is None else
                f"Properties validation failed for resource with message: {what}/Protocol: {protocol} is not a valid "
                "enum value"
            )
        for member in _LOGGING_MEMBERS:
            if config.get(member) is not None:
                attributes[_LOGGING_PROTOCOLS[protocol] + member] = str(config[member])
    return attributes


class Topic(ResourceType):
    type_name = "AWS::SNS::Topic"
    replacing = frozenset({"TopicName", "FifoTopic"})
    name_property = "TopicName"
    _ATTRIBUTES = (
        "DisplayName",
        "KmsMasterKeyId",
        "ContentBasedDeduplication",
        "SignatureVersion",
        "TracingConfig",
        "FifoTopic",
        "ArchivePolicy",
    )

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        fifo = str(properties.get("FifoTopic", "")).lower() == "true"
        name = properties.get("TopicName") or provisioning.name(256, suffix=".fifo" if fifo else "")
        attributes = {key: _attribute(properties[key]) for key in self._ATTRIBUTES if key in properties}
        attributes.update(_logging_attributes(properties.get("DeliveryStatusLogging")))
        sns = provisioning.client("sns")
        if properties.get("TopicName"):
            arn = provisioning.arn("sns", name)
            try:
                sns.get_topic_attributes(TopicArn=arn)
            except ClientError:
                pass  # none yet: made below
            else:
                raise already_exists(self.type_name, arn)
        request: dict[str, Any] = {"Name": name, "Attributes": attributes}
        if properties.get("Tags"):
            request["Tags"] = tags_list(properties)
        arn = sns.create_topic(**request)["TopicArn"]
        for subscription in properties.get("Subscription") or []:
            sns.subscribe(TopicArn=arn, Protocol=subscription["Protocol"], Endpoint=subscription["Endpoint"])
        return Created(arn, {"TopicArn": arn, "TopicName": arn.rsplit(":", 1)[-1]})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        sns = provisioning.client("sns")
        for key in self._ATTRIBUTES:
            if key != "FifoTopic" and old.get(key) != new.get(key):
                sns.set_topic_attributes(
                    TopicArn=physical_id, AttributeName=key, AttributeValue=_attribute(new.get(key, ""))
                )
        logging_before = _logging_attributes(old.get("DeliveryStatusLogging"))
        logging_after = _logging_attributes(new.get("DeliveryStatusLogging"))
        for key in sorted(logging_before.keys() | logging_after.keys()):
            if logging_before.get(key) != logging_after.get(key):  # one taken out is emptied: no logs
                sns.set_topic_attributes(
                    TopicArn=physical_id, AttributeName=key, AttributeValue=logging_after.get(key, "")
                )
        before = [(entry["Protocol"], entry["Endpoint"]) for entry in old.get("Subscription") or []]
        after = [(entry["Protocol"], entry["Endpoint"]) for entry in new.get("Subscription") or []]
        if before != after:
            existing = sns.list_subscriptions_by_topic(TopicArn=physical_id)["Subscriptions"]
            for subscription in existing:
                key = (subscription["Protocol"], subscription["Endpoint"])
                if key in before and key not in after:
                    sns.unsubscribe(SubscriptionArn=subscription["SubscriptionArn"])
            for protocol, endpoint in after:
                if (protocol, endpoint) not in before:
                    sns.subscribe(TopicArn=physical_id, Protocol=protocol, Endpoint=endpoint)
        return {"TopicArn": physical_id, "TopicName": physical_id.rsplit(":", 1)[-1]}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        sns = provisioning.client("sns")
        for subscription in (
            properties.get("Subscription") and sns.list_subscriptions_by_topic(TopicArn=physical_id)["Subscriptions"]
        ) or []:
            sns.unsubscribe(SubscriptionArn=subscription["SubscriptionArn"])
        sns.delete_topic(TopicArn=physical_id)


class Subscription(ResourceType):
    """Made in its topic's region (Region, else the stack's). Region is not among the properties that replace it
    (the type's registry schema: createOnlyProperties Endpoint, Protocol, TopicArn; its reference: "Update requires:
    No interruption"): an update may change it only from none to the stack's region or back, anything else fails
    NotUpdatable (the resource handler's validateRegionUpdate, aws-cloudformation-resource-providers-sns #78)."""

    type_name = "AWS::SNS::Subscription"
    replacing = frozenset({"Endpoint", "Protocol", "TopicArn"})
    _ATTRIBUTES = SUBSCRIPTION_ATTRIBUTES

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "Protocol", "TopicArn")
        attributes = {key: _attribute(properties[key]) for key in self._ATTRIBUTES if key in properties}
        request: dict[str, Any] = {
            "TopicArn": properties["TopicArn"],
            "Protocol": properties["Protocol"],
            "Attributes": attributes,
            "ReturnSubscriptionArn": True,
        }
        if "Endpoint" in properties:
            request["Endpoint"] = properties["Endpoint"]
        arn = _sns_in(provisioning, _region(provisioning, properties)).subscribe(**request)["SubscriptionArn"]
        return Created(arn, {"Arn": arn})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        if _region(provisioning, old) != _region(provisioning, new):
            raise ResourceFailed(
                f"Resource handler returned message: \"Resource of type '{self.type_name}' with identifier "
                f"'{new.get('Region')}' is not updatable with parameters provided.\" (RequestToken: {uuid.uuid4()}, "
                "HandlerErrorCode: NotUpdatable)"
            )
        sns = _sns_in(provisioning, _arn_region(physical_id))
        for key in self._ATTRIBUTES:
            if old.get(key) != new.get(key):
                value = _attribute(new[key]) if key in new else ("false" if key == "RawMessageDelivery" else "")
                sns.set_subscription_attributes(SubscriptionArn=physical_id, AttributeName=key, AttributeValue=value)
        return {"Arn": physical_id}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        try:
            _sns_in(provisioning, _arn_region(physical_id)).unsubscribe(SubscriptionArn=physical_id)
        except ClientError as error:
            if not not_found(error):
                raise


def _region(provisioning: Provisioning, properties: dict[str, Any]) -> str:
    """A subscription's region: its Region, else the stack's ("CloudFormation uses the region of the caller")."""
    return properties.get("Region") or provisioning.region


def _arn_region(arn: str) -> str:
    return arn.split(":")[3]


def _sns_in(provisioning: Provisioning, region: str) -> Any:
    return provisioning.client("sns") if region == provisioning.region else provisioning.client_in("sns", region)


def default_topic_policy(arn: str) -> str:
    """The access policy SNS gives a topic it makes: its owner's account may do the eight topic actions (as recorded
    from AWS: DataBiosphere/azul#5651 shows it, SNS:Receive aside, which topics made since no longer get: LocalStack
    #12831, getmoto/moto#9041)."""
    actions = ["GetTopicAttributes", "SetTopicAttributes", "AddPermission", "RemovePermission", "DeleteTopic",
               "Subscribe", "ListSubscriptionsByTopic", "Publish"]  # fmt: skip
    return json.dumps({
        "Version": "2008-10-17", "Id": "__default_policy_ID",
        "Statement": [{"Sid": "__default_statement_ID", "Effect": "Allow", "Principal": {"AWS": "*"},
                       "Action": [f"SNS:{action}" for action in actions], "Resource": arn,
                       "Condition": {"StringEquals": {"AWS:SourceOwner": arn.split(":")[4]}}}],
    })  # fmt: skip


class TopicPolicy(ResourceType):
    """Deleting it, or an update's leaving a topic out of Topics, gives the topic back SNS's default policy, as the
    resource handler does (LocalStack #12831: "Deleting a topic policy via cloudformation now correctly resets the
    topic's policy to the default policy")."""

    type_name = "AWS::SNS::TopicPolicy"

    def create(self, provisioning: Provisioning, properties: dict[str, Any]) -> Created:
        required(properties, "PolicyDocument", "Topics")
        for arn in properties["Topics"]:
            provisioning.client("sns").set_topic_attributes(
                TopicArn=arn, AttributeName="Policy", AttributeValue=json_text(properties["PolicyDocument"])
            )
        return Created(provisioning.name(255), {"Id": provisioning.logical_id})

    def update(
        self, provisioning: Provisioning, physical_id: str, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        self._reset(provisioning, [arn for arn in old.get("Topics") or [] if arn not in new.get("Topics", [])])
        self.create(provisioning, new)
        return {"Id": provisioning.logical_id}

    def delete(self, provisioning: Provisioning, physical_id: str, properties: dict[str, Any]) -> None:
        self._reset(provisioning, properties.get("Topics") or [])

    @staticmethod
    def _reset(provisioning: Provisioning, topics: list[str]) -> None:
        for arn in topics:
            try:
                provisioning.client("sns").set_topic_attributes(
                    TopicArn=arn, AttributeName="Policy", AttributeValue=default_topic_policy(arn)
                )
            except ClientError as error:
                if not not_found(error):  # a topic deleted already has no policy to give back
                    raise


TYPES = [Queue(), QueuePolicy(), Topic(), Subscription(), TopicPolicy()]
