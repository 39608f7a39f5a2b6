"""Copies each new order into the copies table and notes each upload there, marked with this code's MARK."""

import os

import boto3

MARK = "one"
copies = boto3.client("dynamodb")


def handler(event, context):
    failures = []
    for record in event["Records"]:
        if record.get("eventSource") == "aws:s3":
            key = "upload:" + record["s3"]["object"]["key"]
        else:
            key = record["dynamodb"]["Keys"]["pk"]["S"]
            if key.startswith("poison"):
                failures.append({"itemIdentifier": record["dynamodb"]["SequenceNumber"]})
                continue
        copies.put_item(TableName=os.environ["COPIES"], Item={"id": {"S": key}, "mark": {"S": MARK}})
    return {"batchItemFailures": failures}
