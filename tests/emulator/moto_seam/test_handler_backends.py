"""The fast path's moto handler finds its DynamoDB backend once a request (moto_seam/actions.py `_Handler`): by two
dict lookups where moto has made it, the very backend moto's own lookup gives; by moto's lookup, which makes it,
where it has not (a region or an account no request has used yet, or after moto's reset)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends

from eddy.emulator.moto_seam import actions

KEY_SCHEMA = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
              "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
              "BillingMode": "PAY_PER_REQUEST"}


def test_the_backend_found_is_the_one_moto_s_lookup_gives_and_none_is_made(emu):
    import boto3

    boto3.client("dynamodb", region_name="eu-west-1").create_table(TableName="table", **KEY_SCHEMA)
    assert actions._existing_backend(DEFAULT_ACCOUNT_ID, "eu-west-1") is dynamodb_backends[DEFAULT_ACCOUNT_ID]["eu-west-1"]
    assert actions._existing_backend(DEFAULT_ACCOUNT_ID, "ap-southeast-4") is None
    assert actions._existing_backend("111122223333", "eu-west-1") is None
    assert "ap-southeast-4" not in dict.keys(dynamodb_backends[DEFAULT_ACCOUNT_ID])  # asking made nothing
    assert "111122223333" not in dict.keys(dynamodb_backends)


def test_item_operations_in_a_region_moto_has_not_made_yet_are_answered_as_moto_answers_them(door):
    dynamodb = door.client("dynamodb", region="ap-southeast-4")
    with pytest.raises(ClientError) as missing:
        dynamodb.get_item(TableName="nowhere", Key={"pk": {"S": "a"}})
    assert missing.value.response["Error"] == {"Code": "ResourceNotFoundException",
                                               "Message": "Requested resource not found"}
    with pytest.raises(ClientError) as missing:
        door.client("dynamodb", region="ap-southeast-3").put_item(TableName="nowhere", Item={"pk": {"S": "a"}})
    assert missing.value.response["Error"] == {"Code": "ResourceNotFoundException",
                                               "Message": "Requested resource not found"}
    dynamodb.create_table(TableName="here", **KEY_SCHEMA)
    assert dynamodb.put_item(TableName="here", Item={"pk": {"S": "a"}, "n": {"N": "1"}})["ResponseMetadata"][
        "HTTPStatusCode"] == 200
    answer = dynamodb.get_item(TableName="here", Key={"pk": {"S": "a"}})
    answer.pop("ResponseMetadata")
    assert answer == {"Item": {"pk": {"S": "a"}, "n": {"N": "1"}}}
