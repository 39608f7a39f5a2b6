"""A table given by its ARN where DynamoDB takes "the name of the table or its ARN": read as the table's name, once,
at the door, so that moto, change capture, streams and persistence only ever see names.

AWS takes `arn:aws:dynamodb:<region>:<account>:table/<name>` in every TableName of DynamoDB's API, in the keys of
BatchGetItem's and BatchWriteItem's RequestItems and in each TransactItems action's TableName; CreateTable's table
is named by the ARN's last part. A batch's answer keys its tables as the request did (moto's AWS-verified
test_batch_write_using_arn: BatchGetItem's Responses by the ARN); other answers name tables by their names.

    resolve("PutItem", {"TableName": "arn:aws:dynamodb:us-east-1:123456789012:table/orders", ...},
            "123456789012", "us-east-1")   # -> {"orders": "arn:..."}, params["TableName"] == "orders"

An ARN that cannot name a table is refused in AWS's words: one that is not a table's ARN by validation (`problem`:
"Valid ARN format is ...", "Invalid resource type in ...", "Invalid AWS partition in ..."), one of another region
by `resolve` ("1 validation error detected: Invalid AWS region in '<ARN>'"). Only an ARN of the caller's own account
names a table here: another account's is refused as IAM refuses a principal no resource-based policy lets in
(`denied`: AccessDeniedException, HTTP 400, "User: arn:aws:iam::<caller>:root is not authorized to perform:
dynamodb:<Operation> on resource: <ARN> because no resource-based policy allows the dynamodb:<Operation> action"; the
AWS-run conformance suite nubo-db/dynamodb-conformance, tests/tier2/tags/basic.test.ts: ListTagsOfResource of another
account's table is AccessDeniedException; the words are IAM's for a cross-account request, as Lambda words them for a
layer). Eddy keeps resource-based policies but does not evaluate them, so no policy lets another account in.
CreateTable refuses an ARN as a table name.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from eddy.emulator.errors import AccessDeniedException, ValidationException

#: AWS's constraint for a TableName that starts as an ARN but names no table (an index's or a stream's ARN, a
#: name DynamoDB does not allow), in the words ExtendDB recorded from DynamoDB (its table_arns.rs)
ARN_FORMAT = (
    "Valid ARN format is 'arn:<awsPartition>:<vendor>:<region>:<subscriber>:resourceType/resourceName', "
    "where Resource name must have length less than or equal to 255, Resource name must have length greater "
    "than or equal to 3, Resource name must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
)
_PARTITION = re.compile(r"aws(?:-[a-z]+)*")
_NAME = re.compile(r"[a-zA-Z0-9_.-]{3,255}")
_ACCOUNT = re.compile(r"[0-9]{12}")
KEYED_BY_TABLE = ("BatchGetItem", "BatchWriteItem")  # RequestItems: a map from table to requests
_TRANSACTIONS = ("TransactGetItems", "TransactWriteItems")  # TransactItems: each action names its table


def given(operation: str, params: dict[str, Any]) -> bool:
    """Whether the request names any table by an ARN (every request asks it: a plain TableName costs a look at its
    first characters)."""
    name = params.get("TableName")
    if type(name) is str and name.startswith("arn:"):
        return True
    if operation not in KEYED_BY_TABLE and operation not in _TRANSACTIONS:
        return False
    return any(name.startswith("arn:") for name in _table_names(operation, params))


@lru_cache(maxsize=None)
def name_shape(model: Any) -> Any:
    """The service model's TableName shape, which a table given by its name where its ARN may stand is held to (3 to
    255 characters of [a-zA-Z0-9_.-]): one Shape per model (shape_for makes a new one, its metadata read anew)."""
    return model.shape_for("TableName")


def problem(arn: str, path: str) -> str | None:
    """What DynamoDB's request validation says of `arn`, given at `path` where a table's name or ARN belongs (None:
    it has the form of a table's ARN)."""
    parts = arn.split(":", 5)
    if len(parts) < 6 or "/" not in parts[5]:
        return f"Value '{arn}' at '{path}' failed to satisfy constraint: {ARN_FORMAT}"
    kind, name = parts[5].split("/", 1)
    if not _PARTITION.fullmatch(parts[1]):
        return f"Invalid AWS partition in '{arn}'"
    if parts[2] != "dynamodb" or kind != "table":
        return f"Invalid resource type in '{arn}'"
    if not _NAME.fullmatch(name):
        return f"Value '{arn}' at '{path}' failed to satisfy constraint: {ARN_FORMAT}"
    return None


def denied(operation: str, arn: Any, account_id: str) -> AccessDeniedException | None:
    """The AccessDeniedException for `arn` if it is a table's ARN (or its index's or stream's) of another account
    than the caller's `account_id`; None for anything else."""
    parts = arn.split(":", 5) if isinstance(arn, str) and arn.startswith("arn:") else ()
    if (
        len(parts) < 6
        or parts[2] != "dynamodb"
        or not _ACCOUNT.fullmatch(parts[4])
        or parts[4] == account_id
        or not parts[5].startswith("table/")
    ):
        return None
    error = AccessDeniedException(
        f"User: arn:aws:iam::{account_id}:root is not authorized to perform: dynamodb:"
        f"{operation} on resource: {arn} because no resource-based policy allows the "
        f"dynamodb:{operation} action"
    )
    error.status = 400  # DynamoDB's JSON protocol answers every client error 400
    return error


def resolve(operation: str, params: dict[str, Any], account_id: str, region: str) -> dict[str, str]:
    """Replace, in place, every ARN of a table of this account and region by the table's name; {name: ARN} of each
    replaced (empty: none was). An ARN of this account and another region is refused as AWS refuses it, one of
    another account as IAM refuses it (`denied`)."""
    if operation != "CreateTable":
        for name in _table_names(operation, params):
            if (error := denied(operation, name, account_id)) is not None:
                raise error
    given: dict[str, str] = {}
    name = params.get("TableName")
    if isinstance(name, str) and (resolved := _name(name, account_id, region)) is not None:
        params["TableName"], given[resolved] = resolved, name
    if operation in KEYED_BY_TABLE and isinstance(params.get("RequestItems"), dict):
        renamed = {}
        for key, value in params["RequestItems"].items():
            resolved = _name(key, account_id, region)
            if resolved is not None:
                given[resolved] = key
            renamed[resolved or key] = value
        params["RequestItems"] = renamed
    if operation in _TRANSACTIONS:
        for action in _actions(params):
            name = action.get("TableName")
            if isinstance(name, str) and (resolved := _name(name, account_id, region)) is not None:
                action["TableName"], given[resolved] = resolved, name
    return given


def keyed_as_given(operation: str, answer: dict[str, Any], given: dict[str, str]) -> dict[str, Any]:
    """A batch's answer with its maps by table (Responses, UnprocessedKeys/Items, ItemCollectionMetrics) keyed by
    the ARNs the request gave, where it gave one."""
    if operation in KEYED_BY_TABLE:
        for member in ("Responses", "UnprocessedKeys", "UnprocessedItems", "ItemCollectionMetrics"):
            if isinstance(answer.get(member), dict):
                answer[member] = {given.get(name, name): value for name, value in answer[member].items()}
    return answer


def _name(arn: str, account_id: str, region: str) -> str | None:
    """The table's name if `arn` is a table's ARN of this account (None: not a table ARN, or another account's)."""
    parts = arn.split(":", 5) if arn.startswith("arn:") else ()
    if (
        len(parts) < 6
        or parts[2] != "dynamodb"
        or parts[4] != account_id
        or not _ACCOUNT.fullmatch(parts[4])
        or not parts[5].startswith("table/")
        or not _NAME.fullmatch(parts[5][len("table/") :])
    ):
        return None
    if parts[3] != region:  # the account's first, as AWS checks a resource ARN (ExtendDB's finding for tagging)
        raise ValidationException(f"1 validation error detected: Invalid AWS region in '{arn}'")
    return parts[5][len("table/") :]


def _table_names(operation: str, params: dict[str, Any]) -> list[str]:
    names = [params["TableName"]] if isinstance(params.get("TableName"), str) else []
    if operation in KEYED_BY_TABLE and isinstance(params.get("RequestItems"), dict):
        names.extend(params["RequestItems"])
    if operation in _TRANSACTIONS:
        names.extend(action["TableName"] for action in _actions(params) if isinstance(action.get("TableName"), str))
    return names


def _actions(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Each TransactItems entry's actions (Get; ConditionCheck, Put, Delete, Update) that are objects."""
    items = params.get("TransactItems")
    if not isinstance(items, list):
        return []
    return [action for item in items if isinstance(item, dict) for action in item.values() if isinstance(action, dict)]
