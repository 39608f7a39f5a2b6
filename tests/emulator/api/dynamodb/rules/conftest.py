"""What the DynamoDB rules' tests share: a client that sends what botocore's own validation would stop, AWS's whole
error answer (HTTP status, error type, message), and a table made as users make them."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from botocore.exceptions import ClientError

TABLE = "orders"
RANGE_TABLE = "lines"


def refused(call: Callable[[], Any]) -> tuple[int, str, str]:
    """The whole error answer of `call`: (HTTP status, error type, message)."""
    with pytest.raises(ClientError) as error:
        call()
    answer = error.value.response
    return answer["ResponseMetadata"]["HTTPStatusCode"], answer["Error"]["Code"], answer["Error"]["Message"]


def invalid(message: str) -> tuple[int, str, str]:
    return 400, "ValidationException", message


@pytest.fixture
def dynamodb(door):
    """A client without botocore's parameter validation (AWS's own checks answer), with two tables: `orders` (key pk)
    and `lines` (keys pk, sk)."""
    client = door.client("dynamodb", validate=False)
    client.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    client.create_table(TableName=RANGE_TABLE, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "sk", "AttributeType": "S"}])
    return client


def items(client: Any, table: str = TABLE) -> list[dict[str, Any]]:
    return client.scan(TableName=table)["Items"]
