"""The in-process door's hook (moto_seam/botocore_hook.py) reads a request as botocore prepared it: its headers as
botocore's own Mapping interface hands them out, and each answer carries a request id as uuid4().hex writes one."""

from __future__ import annotations

import uuid

import boto3
from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders

from eddy.emulator.moto_seam.botocore_hook import plain_headers


class _EmptyBody:
    """An answer's raw body of `{}`, as botocore reads it (AWSResponse.content streams its raw)."""

    def stream(self):
        return iter([b"{}"])


def _prepared_request():
    """A PutItem as botocore sends it (signed, with a header a before-sign handler added in mixed case), answered by
    nothing: the client's before-send event keeps the request and answers `{}`."""
    sent = []

    def keep(request, **_):
        sent.append(request)
        return AWSResponse(request.url, 200, {}, _EmptyBody())

    client = boto3.client("dynamodb", region_name="eu-west-1", aws_access_key_id="AKID", aws_secret_access_key="s")
    client.meta.events.register("before-sign.dynamodb.PutItem",
                                lambda request, **_: request.headers.__setitem__("X-Custom-Trace", "t-1"))
    client.meta.events.register_first("before-send.dynamodb", keep)
    assert client.put_item(TableName="orders", Item={"pk": {"S": "a"}})["ResponseMetadata"]["HTTPStatusCode"] == 200
    return sent[0]


def test_the_headers_are_the_ones_botocores_mapping_hands_out():
    request = _prepared_request()
    assert type(request.headers).__name__ == "HeadersDict"  # the case plain_headers reads directly
    headers = plain_headers(request.headers)
    assert list(headers.items()) == list(dict(request.headers.items()).items())  # the same names, values and order
    assert (headers["X-Custom-Trace"], headers["X-Amz-Target"]) == (b"t-1", b"DynamoDB_20120810.PutItem")  # as sent
    assert set(headers) >= {"Authorization", "X-Amz-Date", "Content-Type", "Content-Length", "User-Agent"}


def test_headers_of_another_kind_are_copied_through_their_mapping():
    other = HTTPHeaders()
    other["X-Amz-Target"] = "DynamoDB_20120810.GetItem"
    other["content-type"] = "application/x-amz-json-1.0"
    assert plain_headers(other) == dict(other.items()) == {
        "X-Amz-Target": "DynamoDB_20120810.GetItem", "content-type": "application/x-amz-json-1.0"}


def test_each_answer_carries_a_request_id_as_uuid4_writes_one(door):
    dynamodb = door.client("dynamodb")
    dynamodb.create_table(TableName="ids", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")
    ids = [dynamodb.put_item(TableName="ids", Item={"pk": {"S": str(i)}})["ResponseMetadata"]["RequestId"]
           for i in range(50)]
    ids.append(dynamodb.get_item(TableName="ids", Key={"pk": {"S": "1"}})["ResponseMetadata"]["RequestId"])
    for request_id in ids:
        parsed = uuid.UUID(hex=request_id)
        assert (parsed.hex, parsed.version, parsed.variant) == (request_id, 4, uuid.RFC_4122)
    assert len(set(ids)) == len(ids)
