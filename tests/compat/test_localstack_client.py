"""Code written for LocalStack, through localstack-client's Session, runs unchanged against `eddy serve`."""

from __future__ import annotations

from urllib.parse import urlsplit

from localstack_client.session import Session

from tests.conftest import http_json


def test_a_localstack_client_session_talks_to_eddy(server_url, monkeypatch):
    http_json(server_url + "/moto-api/reset", {})
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    session = Session(localstack_host=urlsplit(server_url).netloc, region_name="us-east-1")
    dynamodb = session.client("dynamodb")
    table = dynamodb.create_table(
        TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})["TableDescription"]
    session.resource("dynamodb").Table("orders").put_item(Item={"pk": "a", "n": 1})
    streams = session.client("dynamodbstreams")
    shard = streams.describe_stream(StreamArn=table["LatestStreamArn"])["StreamDescription"]["Shards"][0]
    iterator = streams.get_shard_iterator(StreamArn=table["LatestStreamArn"], ShardId=shard["ShardId"],
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    [record] = streams.get_records(ShardIterator=iterator)["Records"]
    assert record["eventName"] == "INSERT" and record["dynamodb"]["NewImage"] == {"pk": {"S": "a"}, "n": {"N": "1"}}
    sqs = session.client("sqs")
    queue_url = sqs.create_queue(QueueName="from-localstack-code")["QueueUrl"]
    sqs.send_message(QueueUrl=queue_url, MessageBody="hello")
    assert sqs.receive_message(QueueUrl=queue_url)["Messages"][0]["Body"] == "hello"
    assert [f["FunctionName"] for f in session.client("lambda").list_functions()["Functions"]] == []
