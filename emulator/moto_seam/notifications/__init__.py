"""The seam between moto's pushes and Eddy's: S3 event notifications and SNS subscriptions to functions and queues
(moto's S3 and SNS internals for them are touched only in this package).

    configurations.py  PutBucketNotificationConfiguration checked as S3 checks it: filter rule names (either case),
                       every destination exists (each missing one named in ArgumentName1/ArgumentValue1, ... as
                       AWS's recorded answers do), no two configurations overlap; GetBucketNotificationConfiguration
                       answered as S3 answers it (filter rule names, EventBridgeConfiguration)
    object_events.py   moto's S3 events answered by Eddy: S3's whole record, one event per operation, a versioned
                       bucket's deletes as S3 tells them, the s3:TestEvent, delivery to queues, topics and functions
    subscriptions.py   SNS subscriptions: a function's invoked asynchronously with Lambda's SNS event, a queue's left
                       to moto (its X-Ray header added), a Firehose stream's put to it; all counted
    filter_policies.py SNS filter policies checked (Subscribe, SetSubscriptionAttributes) and matched by Eddy's
                       engine (event_patterns/sns_policies.py) for every subscription, moto's deliveries too
    http_subscriptions.py  SNS's HTTP and HTTPS subscriptions: pending until confirmed (the SubscriptionConfirmation
                       POSTed, ConfirmSubscription by token, "pending confirmation"), notifications with SNS's headers,
                       raw or signed, the UnsubscribeConfirmation
    subscription_principals.py  a subscription's SubscriptionPrincipal: the identity whose Subscribe made it
    topic_attributes.py  GetTopicAttributes as SNS answers it: DeliveryPolicy kept, EffectiveDeliveryPolicy derived;
                       a topic's DataProtectionPolicy (Put/GetDataProtectionPolicy, which moto lacks)
    fifo_topics.py     FIFO topics: messages numbered (SequenceNumber answered), deduplicated by the topic for 5 minutes
    sns_answers.py     moto's SNS answers in SNS's shapes: GetSMSAttributes (every attribute asked for, the default
                       MonthlySpendLimit), the listings' NextToken (base64 text; moto's: a page offset)
    sns_errors.py      moto's SNS errors in SNS's words (an unknown topic, target or subscription; AddPermission's)
    destinations.py    a destination's ARN read, whether its queue or topic exists, a subscription's dead-letter queue
    target.py          what the seam needs of Eddy (notifications/notifications.py), and the one active

The patches of configurations.py and object_events.py go on when moto's S3 is loaded, those of subscriptions.py and
filter_policies.py when its SNS is, while an emulator is open (moto_seam/__init__.py); importing this package loads
neither. While no emulator is open every patched piece does what moto does. Each configuration's and subscription's
deliveries are counted on the target (delivered / failed / filtered out): the dashboard's per-trigger figures.
"""

from __future__ import annotations

from eddy.emulator.moto_seam.notifications.target import Target, active

__all__ = ["Target", "activate", "deactivate"]


def activate(target: Target) -> None:
    """moto's pushes become Eddy's, delivered for `target`."""
    active.target = target


def deactivate() -> None:
    active.target = None
