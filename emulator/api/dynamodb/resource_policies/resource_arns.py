"""A ResourceArn of Put/Get/DeleteResourcePolicy read as DynamoDB reads it: a table's or one of its streams', of the
caller's account, region and partition; anything else refused in DynamoDB's words.

AWS-recorded (the ack-api-quirks DynamoDB finding DDB-TABLE-212, verified 2026-10-09): a bare name "One or more
parameter values were invalid: ARNs must start with 'arn:': <name>"; another region or partition "... Invalid
resource Arn: <ARN>"; another account "This action is only supported by accounts that match the resource owner’s
account."; an index's ARN "... Invalid resource arn provided, only table or stream is accepted. Provided resource
arn: <ARN>"; a backup's "... Provided Arn is not a DynamoDB resource arn: <ARN>".
"""

from __future__ import annotations

from dataclasses import dataclass

from eddy.emulator.errors import ValidationException

INVALID = "One or more parameter values were invalid: "
OTHER_ACCOUNT = "This action is only supported by accounts that match the resource owner’s account."


@dataclass(frozen=True)
class Resource:
    arn: str
    table_name: str
    stream_label: str | None  # None: the table itself


def partition(region: str) -> str:
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def read(arn: str, account_id: str, region: str) -> Resource:
    """The table or stream `arn` names for a caller of `account_id` in `region` (ValidationException if none)."""
    if not arn.startswith("arn:"):
        raise ValidationException(f"{INVALID}ARNs must start with 'arn:': {arn}")
    parts = arn.split(":", 5)
    if len(parts) < 6 or parts[2] != "dynamodb" or not parts[5].startswith("table/"):
        raise ValidationException(f"{INVALID}Provided Arn is not a DynamoDB resource arn: {arn}")
    if parts[1] != partition(region) or parts[3] != region:
        raise ValidationException(f"{INVALID}Invalid resource Arn: {arn}")
    if parts[4] != account_id:
        raise ValidationException(OTHER_ACCOUNT)
    path = parts[5].split("/")
    if len(path) == 2 and path[1]:
        return Resource(arn, path[1], None)
    if len(path) == 4 and path[1] and path[3] and path[2] in ("stream", "index"):
        if path[2] == "index":
            raise ValidationException(
                f"{INVALID}Invalid resource arn provided, only table or stream is accepted. "
                f"Provided resource arn: {arn}"
            )
        return Resource(arn, path[1], path[3])
    raise ValidationException(f"{INVALID}Provided Arn is not a DynamoDB resource arn: {arn}")
