"""What a project's captured logs get from Eddy in-process: the lines Eddy means for people (one outcome line per
batch, warnings) and never a line per HTTP request, even when a function's boto3 calls come back over loopback
(the loopback server logs request lines only at DEBUG, as `eddy serve --verbose` shows them)."""

from __future__ import annotations

import io
import logging
import re
import zipfile

import boto3

from eddy import emulate
from tests.conftest import QUIET
from tests.lambda_functions import created_function

KEY = dict(KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
SHIP = '''
import boto3

def handler(event, context):
    for record in event["Records"]:
        boto3.client("dynamodb").put_item(TableName="shipments", Item=record["dynamodb"]["Keys"])
'''


def test_a_functions_calls_back_leave_no_request_lines_in_captured_logs(caplog) -> None:
    caplog.set_level(logging.INFO)  # a project's `log_level = INFO`
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", SHIP)
    with emulate(**QUIET) as emu:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        stream = dynamodb.create_table(TableName="orders", StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}, **KEY)["TableDescription"]["LatestStreamArn"]
        dynamodb.create_table(TableName="shipments", **KEY)
        aws_lambda = boto3.client("lambda", region_name="us-east-1")
        created_function(aws_lambda, FunctionName="ship", Runtime="python3.12", Handler="app.handler",
                                   Role="arn:aws:iam::123456789012:role/ship", Code={"ZipFile": buffer.getvalue()})
        aws_lambda.create_event_source_mapping(EventSourceArn=stream, FunctionName="ship",
                                               StartingPosition="TRIM_HORIZON")
        for number in range(3):
            dynamodb.put_item(TableName="orders", Item={"pk": {"S": f"o-{number}"}})
        emu.assert_delivered()
        assert sorted(item["pk"]["S"] for item in dynamodb.scan(TableName="shipments")["Items"]) == ["o-0", "o-1", "o-2"]
    eddys = [(record.name, record.levelname, record.getMessage()) for record in caplog.records
             if not record.name.startswith("botocore")]  # (boto3's own "Found credentials" lines)
    outcome = re.compile(r"mapping ship <- orders \([0-9a-f]{8}\) shard shardId-[0-9]{20}-[0-9a-f]{8} batch ([123]) OK "
                         r"in [0-9.]+ ms")
    assert all(name == "eddy.triggers" and level == "INFO" and outcome.fullmatch(message)
               for name, level, message in eddys), eddys
    assert sum(int(outcome.fullmatch(message)[1]) for _, _, message in eddys) == 3  # one line per batch
