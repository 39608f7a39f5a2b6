"""Eddy's own deliveries reach the account their destination's ARN names (both doors): an EventBridge rule's SQS target
and its dead-letter queue, an asynchronous invocation's on-failure destination, a stream mapping's on-failure
destination, each in account 111111111111 with the rule, function or mapping. Eddy's clients spoke for moto's
default account and asked GetQueueUrl with QueueOwnerAWSAccountId, which moto ignores: the queue was not found and
the message lost. (AWS: a destination is named by its ARN, whichever account's; the SQS API reference's
QueueOwnerAWSAccountId.)"""

from __future__ import annotations

import json

from tests.emulator.api.sns.test_http_delivery_retries import another_accounts
from tests.emulator.notifications.test_s3_notifications import wait_for_messages
from tests.emulator.trigger_helpers import create_zip_function
from tests.emulator.triggers.sqs_helpers import queue

OTHER = "111111111111"
FAILING = "def handler(event, context):\n    raise RuntimeError('failing as asked')\n"


def test_a_rules_sqs_target_and_dead_letter_queue_in_another_account(door):
    events, sqs = another_accounts(door, "events", "sqs")
    target, target_arn = queue(sqs, "orders")
    dlq, dlq_arn = queue(sqs, "rule-dlq")
    assert target_arn == f"arn:aws:sqs:eu-west-1:{OTHER}:orders"
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule="orders", Targets=[
        {"Id": "queue", "Arn": target_arn},
        {"Id": "gone", "Arn": f"arn:aws:lambda:eu-west-1:{OTHER}:function:gone", "DeadLetterConfig": {"Arn": dlq_arn},
         "RetryPolicy": {"MaximumRetryAttempts": 0}}])
    events.put_events(Entries=[{"Source": "shop", "DetailType": "order", "Detail": json.dumps({"order": 1})}])
    door.wait_idle(60)
    [delivered] = wait_for_messages(sqs, target, 1)
    [moved] = wait_for_messages(sqs, dlq, 1)
    assert (delivered["source"], delivered["detail"], delivered["account"]) == ("shop", {"order": 1}, OTHER)
    assert moved == delivered


def test_an_asynchronous_invocations_on_failure_destination_in_another_account(door):
    lam, sqs = another_accounts(door, "lambda", "sqs")
    records, records_arn = queue(sqs, "records")
    create_zip_function(lam, "worker", "python", FAILING)
    lam.put_function_event_invoke_config(FunctionName="worker", MaximumRetryAttempts=0,
                                         DestinationConfig={"OnFailure": {"Destination": records_arn}})
    lam.invoke(FunctionName="worker", InvocationType="Event", Payload=b'{"n": 1}')
    door.wait_idle(60)
    [record] = wait_for_messages(sqs, records, 1)
    assert (record["requestContext"]["functionArn"], record["requestContext"]["condition"],
            record["requestPayload"]) == (f"arn:aws:lambda:eu-west-1:{OTHER}:function:worker:$LATEST",
                                          "RetriesExhausted", {"n": 1})


def test_a_stream_mappings_on_failure_destination_in_another_account(door):
    dynamodb, lam, sqs = another_accounts(door, "dynamodb", "lambda", "sqs")
    failed, failed_arn = queue(sqs, "failed-batches")
    stream_arn = dynamodb.create_table(
        TableName="orders", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})["TableDescription"]["LatestStreamArn"]
    create_zip_function(lam, "worker", "python", FAILING)
    lam.create_event_source_mapping(FunctionName="worker", EventSourceArn=stream_arn, StartingPosition="TRIM_HORIZON",
                                    MaximumRetryAttempts=0,
                                    DestinationConfig={"OnFailure": {"Destination": failed_arn}})
    dynamodb.put_item(TableName="orders", Item={"id": {"S": "o-1"}})
    door.wait_idle(60)
    [record] = wait_for_messages(sqs, failed, 1)
    assert (record["requestContext"]["condition"], record["DDBStreamBatchInfo"]["streamArn"],
            record["DDBStreamBatchInfo"]["batchSize"]) == ("RetryAttemptsExhausted", stream_arn, 1)
