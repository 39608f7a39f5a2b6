"""The attributes an SNS subscription has, in the SNS API reference's words (SetSubscriptionAttributes' AttributeName,
Subscribe's Attributes): what the SNS door lets through (api/sns/refusals.py) and what AWS::SNS::Subscription passes
on from its properties of the same names (cloudformation/resource_types/messaging.py)."""

SUBSCRIPTION_ATTRIBUTES = (
    "DeliveryPolicy",
    "FilterPolicy",
    "FilterPolicyScope",
    "RawMessageDelivery",
    "RedrivePolicy",
    "SubscriptionRoleArn",
    "ReplayPolicy",
)
