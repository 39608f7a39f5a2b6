"""SAM / CloudFormation templates as stacks (infra/sam/): short forms, intrinsics, resources, what is skipped, errors."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
import yaml

from eddy.emulator.functions.runtimes import RUNTIMES
from eddy.infra.load import load_stack
from eddy.infra.sam import is_template, stack_from_template, template_loader
from eddy.infra.stack import Mapping, Stack, StackError

EXAMPLES = Path(__file__).resolve().parents[2] / "infra" / "examples"
NO_CODE = {"functions": {"__all__": {"code"}}}


def read(text: str) -> Any:
    return yaml.load(text, Loader=template_loader())


def convert(text: str) -> Stack:
    """The stack of a template written as YAML, read as template.yaml would be."""
    return stack_from_template(read(text), "template.yaml", Path("."))


def problems(text: str) -> str:
    with pytest.raises(StackError) as invalid:
        convert(text)
    return str(invalid.value)


def table(logical_id: str, *properties: str, key: str = "pk", key_type: str = "S") -> str:
    """A table of a template's Resources (YAML) keyed on `key`, with further `properties` lines."""
    lines = [f"  {logical_id}:", "    Type: AWS::DynamoDB::Table", "    Properties:",
             f"      AttributeDefinitions: [{{AttributeName: pk, AttributeType: {key_type}}}]",
             f"      KeySchema: [{{AttributeName: {key}, KeyType: HASH}}]", *(f"      {line}" for line in properties)]
    return "\n".join(lines) + "\n"


def environment(variables: str, extra: str = "") -> dict[str, str]:
    """The environment a function gets for `variables` (YAML), with RESOURCES and then `extra` (more resources, sections)."""
    stack = convert(f"""
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Handler: app.handler
      Environment:
        Variables: {variables}
{RESOURCES}{extra}""")
    return stack.functions["Fn"].environment


RESOURCES = """
  Orders: {Type: AWS::DynamoDB::Table, Properties: {TableName: orders, AttributeDefinitions: [{AttributeName: pk, AttributeType: S}],
           KeySchema: [{AttributeName: pk, KeyType: HASH}], StreamSpecification: {StreamViewType: NEW_IMAGE}}}
  Failures: {Type: AWS::SQS::Queue, Properties: {QueueName: failures}}
  Inbox: {Type: AWS::SQS::Queue}
  Alerts: {Type: AWS::SNS::Topic, Properties: {TopicName: alerts}}
  Archive: {Type: AWS::S3::Bucket, Properties: {BucketName: archive}}
"""


# -- loading ------------------------------------------------------------------------------------------------


def test_short_forms_load_as_long_forms():
    document = read("""
ref: !Ref Orders
att: !GetAtt Orders.StreamArn
att_dotted: !GetAtt Db.Endpoint.Address
att_list: !GetAtt [Orders, Arn]
sub: !Sub "${AWS::Region}-x"
sub_vars: !Sub ["${A}-${B}", {A: !Ref X, B: b}]
join: !Join [",", [a, !Ref B]]
select: !Select [0, !GetAZs ""]
split: !Split [",", "a,b"]
if: !If [IsProd, !Ref A, !Ref AWS::NoValue]
cond: !Not [!Equals [!Ref Stage, prod]]
and: !And [!Condition A, !Or [!Condition B, !Condition C]]
map: !FindInMap [Sizes, !Ref Stage, memory]
b64: !Base64 text
imp: !ImportValue shared
""")
    assert document == {
        "ref": {"Ref": "Orders"},
        "att": {"Fn::GetAtt": ["Orders", "StreamArn"]},
        "att_dotted": {"Fn::GetAtt": ["Db", "Endpoint.Address"]},
        "att_list": {"Fn::GetAtt": ["Orders", "Arn"]},
        "sub": {"Fn::Sub": "${AWS::Region}-x"},
        "sub_vars": {"Fn::Sub": ["${A}-${B}", {"A": {"Ref": "X"}, "B": "b"}]},
        "join": {"Fn::Join": [",", ["a", {"Ref": "B"}]]},
        "select": {"Fn::Select": [0, {"Fn::GetAZs": ""}]},
        "split": {"Fn::Split": [",", "a,b"]},
        "if": {"Fn::If": ["IsProd", {"Ref": "A"}, {"Ref": "AWS::NoValue"}]},
        "cond": {"Fn::Not": [{"Fn::Equals": [{"Ref": "Stage"}, "prod"]}]},
        "and": {"Fn::And": [{"Condition": "A"}, {"Fn::Or": [{"Condition": "B"}, {"Condition": "C"}]}]},
        "map": {"Fn::FindInMap": ["Sizes", {"Ref": "Stage"}, "memory"]},
        "b64": {"Fn::Base64": "text"},
        "imp": {"Fn::ImportValue": "shared"},
    }


def test_plain_stack_files_load_unchanged():
    text = (EXAMPLES / "stack.yaml").read_text()
    assert read(text) == yaml.safe_load(text)
    assert not is_template(read(text))
    with pytest.raises(yaml.constructor.ConstructorError):  # yaml.SafeLoader itself is left alone
        yaml.safe_load("x: !Ref y")


def test_what_is_a_template():
    assert is_template({"Resources": {}})
    assert is_template({"AWSTemplateFormatVersion": "2010-09-09"})
    assert is_template({"Transform": "AWS::Serverless-2016-10-31", "Resources": {}})
    assert not is_template({"tables": {}, "functions": {}})
    assert not is_template(["Resources"])
    assert not is_template(None)


# -- the example --------------------------------------------------------------------------------------------


def test_the_example_template_is_the_example_stack():
    stack, template = load_stack(EXAMPLES / "stack.yaml"), load_stack(EXAMPLES / "template.yaml")
    # the stack names the installed package's handlers (eddy.handlers.x, zipped as handlers/); the template's
    # CodeUri is the folder that holds handlers/, so its Handler is handlers.x
    handlers = {name: (function.handler, template.functions[name].handler) for name, function in stack.functions.items()}
    assert all(ours in (theirs, f"eddy.{theirs}") for ours, theirs in handlers.values())
    stack = stack.model_copy(update={"functions": {name: function.model_copy(update={"handler": template.functions[name].handler})
                                                   for name, function in stack.functions.items()}})
    assert template.model_dump(exclude=NO_CODE) == stack.model_dump(exclude=NO_CODE)
    assert {function.code for function in template.functions.values()} == {"../..", "../../handlers/nodejs/order_audit"}
    assert stack.functions["order-audit"].code == template.functions["order-audit"].code
    assert (template.base_dir / "../.." / "handlers" / "replicate.py").is_file()
    assert template.unsupported == []


# -- resources ----------------------------------------------------------------------------------------------


def test_tables():
    stack = convert("""
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: orders
      BillingMode: PROVISIONED
      ProvisionedThroughput: {ReadCapacityUnits: 7, WriteCapacityUnits: 3}
      AttributeDefinitions:
        - {AttributeName: sk, AttributeType: N}
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: status, AttributeType: S}
        - {AttributeName: extra, AttributeType: B}
      KeySchema: [{AttributeName: sk, KeyType: RANGE}, {AttributeName: pk, KeyType: HASH}]
      GlobalSecondaryIndexes:
        - IndexName: by-status
          KeySchema: [{AttributeName: status, KeyType: HASH}, {AttributeName: sk, KeyType: RANGE}]
          Projection: {ProjectionType: INCLUDE, NonKeyAttributes: [total]}
          ProvisionedThroughput: {ReadCapacityUnits: 1, WriteCapacityUnits: 1}
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      TimeToLiveSpecification: {AttributeName: expires, Enabled: true}
      Tags: [{Key: team, Value: data}]
""" + table("Plain", "TimeToLiveSpecification: {AttributeName: expires, Enabled: false}", "LocalSecondaryIndexes: []")
      + table("Throughput", "ProvisionedThroughput: {ReadCapacityUnits: 2, WriteCapacityUnits: 2}"))
    orders = stack.tables["orders"]
    assert list(orders.key.items()) == [("pk", "S"), ("sk", "N")]
    assert orders.attributes == {"status": "S", "extra": "B"}
    assert (orders.billing, orders.read_capacity, orders.write_capacity) == ("PROVISIONED", 7, 3)
    assert (orders.stream, orders.ttl) == ("NEW_AND_OLD_IMAGES", "expires")
    assert [index.model_dump() for index in orders.indexes] == [
        {"name": "by-status", "key": {"status": "S", "sk": "N"}, "projection": "INCLUDE", "non_key_attributes": ["total"]}]
    plain = stack.tables["Plain"]  # no TableName: the logical id
    assert (plain.key, plain.billing, plain.stream, plain.ttl, plain.indexes) == ({"pk": "S"}, "PAY_PER_REQUEST", None, None, [])
    assert stack.tables["Throughput"].billing == "PROVISIONED"
    assert stack.unsupported == ["Plain (AWS::DynamoDB::Table): LocalSecondaryIndexes: not supported by Eddy's stack files "
                                 "(the table is made without them)"]


def test_lambda_functions():
    stack = convert("""
Resources:
  Replicate:
    Type: AWS::Lambda::Function
    Properties:
      FunctionName: replicate
      Handler: app.handler
      Runtime: python3.12
      Timeout: 30
      MemorySize: 512
      Description: copies orders
      Code: ./src
      Role: !GetAtt SomeRole.Arn
      Environment: {Variables: {TABLE: !Ref Orders, DEBUG: true, LIMIT: 5}}
  Defaults:
    Type: AWS::Lambda::Function
    Properties: {Handler: app.handler}
  Inline:
    Type: AWS::Lambda::Function
    Properties: {Handler: index.handler, Code: {ZipFile: "def handler(event, context): pass"}}
  InS3:
    Type: AWS::Lambda::Function
    Properties: {Handler: app.handler, Code: {S3Bucket: deploys, S3Key: app.zip}}
  Java:
    Type: AWS::Lambda::Function
    Properties: {Handler: example.Handler, Runtime: java21, Code: ./java}
  SomeRole: {Type: AWS::IAM::Role}
""" + RESOURCES)
    replicate = stack.functions["replicate"]
    assert replicate.model_dump() == {
        "handler": "app.handler", "code": "./src", "runtime": "python3.12", "timeout": 30, "memory": 512,
        "environment": {"TABLE": "orders", "DEBUG": "true", "LIMIT": "5"}, "role": None, "description": "copies orders"}
    assert stack.functions["Defaults"].model_dump() == stack.functions["Defaults"].model_validate({"handler": "app.handler"}).model_dump()
    assert set(stack.functions) == {"replicate", "Defaults"}
    assert stack.unsupported == [
        "Inline (AWS::Lambda::Function): Code.ZipFile: inline code is not supported; give Code as a local folder",
        "InS3 (AWS::Lambda::Function): Code: code in S3 is not supported; give Code as a local folder",
        f"Java (AWS::Lambda::Function): Runtime java21: Eddy runs {', '.join(RUNTIMES)} functions",
        "SomeRole (AWS::IAM::Role): not supported by Eddy's stack files",
    ]


def test_sam_functions_take_their_globals():
    stack = convert("""
Transform: AWS::Serverless-2016-10-31
Globals:
  Function:
    Runtime: python3.12
    Timeout: 20
    MemorySize: 256
    CodeUri: src/
    Environment: {Variables: {STAGE: dev, TABLE: !Ref Orders}}
  Api: {Cors: "'*'"}
Resources:
  First:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.first
      Timeout: 60
      Environment: {Variables: {STAGE: prod, EXTRA: x}}
  Second:
    Type: AWS::Serverless::Function
    Properties: {FunctionName: second, Handler: app.second, CodeUri: other/}
  Inline:
    Type: AWS::Serverless::Function
    Properties: {Handler: index.handler, InlineCode: "def handler(e, c): pass"}
  InS3:
    Type: AWS::Serverless::Function
    Properties: {Handler: app.handler, CodeUri: s3://deploys/app.zip}
  InS3Too:
    Type: AWS::Serverless::Function
    Properties: {Handler: app.handler, CodeUri: {Bucket: deploys, Key: app.zip}}
""" + RESOURCES)
    first, second = stack.functions["First"], stack.functions["second"]
    assert (first.code, first.runtime, first.timeout, first.memory) == ("src/", "python3.12", 60, 256)
    assert first.environment == {"STAGE": "prod", "TABLE": "orders", "EXTRA": "x"}
    assert (second.code, second.timeout, second.environment) == ("other/", 20, {"STAGE": "dev", "TABLE": "orders"})
    in_s3 = "CodeUri: code in S3 is not supported; give CodeUri as a local folder"
    assert stack.unsupported == [f"{logical_id} (AWS::Serverless::Function): {reason}" for logical_id, reason in (
        ("Inline", "InlineCode: inline code is not supported; give CodeUri as a local folder"), ("InS3", in_s3), ("InS3Too", in_s3))]


def test_sam_dynamodb_events_become_mappings():
    stack = convert("""
Resources:
  Worker:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: worker
      Handler: app.handler
      Events:
        Everything:
          Type: DynamoDB
          Properties:
            Stream: !GetAtt Orders.StreamArn
            StartingPosition: LATEST
            BatchSize: 50
            MaximumBatchingWindowInSeconds: 5
            MaximumRetryAttempts: 3
            MaximumRecordAgeInSeconds: 3600
            BisectBatchOnFunctionError: true
            ParallelizationFactor: 2
            TumblingWindowInSeconds: 60
            FunctionResponseTypes: [ReportBatchItemFailures]
            FilterCriteria:
              Filters: [{Pattern: '{"eventName": ["INSERT", "MODIFY"]}'}, {Pattern: {eventName: [REMOVE]}}]
            DestinationConfig: {OnFailure: {Type: SQS, Destination: !GetAtt Failures.Arn}}
            Enabled: false
        Elsewhere:
          Type: DynamoDB
          Properties:
            Stream: arn:aws:dynamodb:us-east-1:123456789012:table/other/stream/2024-01-01T00:00:00.000
            StartingPosition: TRIM_HORIZON
        Web:
          Type: Api
          Properties: {Path: /orders, Method: get, RestApiId: !Ref NoSuchApi}
        Queue:
          Type: SQS
          Properties: {Queue: !GetAtt Failures.Arn}
""" + RESOURCES)
    everything, elsewhere = stack.mappings
    assert everything.model_dump() == {
        "function": "worker", "table": "orders", "stream_arn": None, "starting_position": "LATEST", "enabled": False,
        "batch_size": 50, "maximum_batching_window_in_seconds": 5, "maximum_retry_attempts": 3,
        "maximum_record_age_in_seconds": 3600, "bisect_batch_on_function_error": True,
        "function_response_types": ["ReportBatchItemFailures"], "parallelization_factor": 2,
        "tumbling_window_in_seconds": 60, "filters": [{"eventName": ["INSERT", "MODIFY"]}, {"eventName": ["REMOVE"]}],
        "on_failure": {"queue": "failures", "topic": None, "bucket": None, "arn": None}}
    assert (elsewhere.table, elsewhere.stream_arn) == (None, "arn:aws:dynamodb:us-east-1:123456789012:table/other/stream/2024-01-01T00:00:00.000")
    assert elsewhere.model_dump(exclude={"stream_arn"}) == Mapping(function="worker", stream_arn="x").model_dump(exclude={"stream_arn"})
    assert stack.unsupported == [f"Worker (AWS::Serverless::Function): Events.{event}: not supported by Eddy's stack files"
                                 for event in ("Web (Type Api)", "Queue (Type SQS)")]


def test_event_source_mappings():
    stack = convert("""
Resources:
  ByRef:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {FunctionName: !Ref Worker, EventSourceArn: !GetAtt Orders.StreamArn, BatchSize: 10, StartingPosition: LATEST}
  ByArn:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      FunctionName: !GetAtt Worker.Arn
      EventSourceArn: arn:aws:dynamodb:us-east-1:123456789012:table/other/stream/label
      FilterCriteria: {Filters: [{Pattern: '{"eventName": ["INSERT"]}'}]}
      DestinationConfig: {OnFailure: {Destination: !Ref Alerts}}
  ByName:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {FunctionName: worker, EventSourceArn: !GetAtt Orders.StreamArn, MaximumRetryAttempts: 2}
  FromQueue:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {FunctionName: !Ref Worker, EventSourceArn: !GetAtt Failures.Arn}
  ToInline:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {FunctionName: !Ref Inline, EventSourceArn: !GetAtt Orders.StreamArn}
  Worker:
    Type: AWS::Lambda::Function
    Properties: {FunctionName: worker, Handler: app.handler, Code: src}
  Inline:
    Type: AWS::Lambda::Function
    Properties: {Handler: index.handler, Code: {ZipFile: "..."}}
""" + RESOURCES)
    by_ref, by_arn, by_name = stack.mappings
    assert (by_ref.function, by_ref.table, by_ref.batch_size, by_ref.starting_position) == ("worker", "orders", 10, "LATEST")
    assert (by_arn.function, by_arn.stream_arn, by_arn.filters) == (
        "worker", "arn:aws:dynamodb:us-east-1:123456789012:table/other/stream/label", [{"eventName": ["INSERT"]}])
    assert by_arn.on_failure.topic == "alerts"
    assert (by_name.table, by_name.maximum_retry_attempts) == ("orders", 2)
    assert stack.unsupported == [
        "Inline (AWS::Lambda::Function): Code.ZipFile: inline code is not supported; give Code as a local folder",
        "FromQueue (AWS::Lambda::EventSourceMapping): EventSourceArn arn:aws:sqs:us-east-1:123456789012:failures: "
        "not a DynamoDB stream, and Eddy's mappings read table streams",
        "ToInline (AWS::Lambda::EventSourceMapping): its function 'Inline' is not supported (listed)",
    ]


@pytest.mark.parametrize("destination, expected", [
    ("!GetAtt Failures.Arn", {"queue": "failures"}),
    ("arn:aws:sqs:us-east-1:123456789012:failures", {"queue": "failures"}),
    ("!Ref Inbox", {"queue": "Inbox"}),
    ("!Ref Alerts", {"topic": "alerts"}),
    ("!GetAtt Alerts.TopicArn", {"topic": "alerts"}),
    ("!GetAtt Archive.Arn", {"bucket": "archive"}),
    ("arn:aws:sqs:eu-west-1:999999999999:elsewhere", {"arn": "arn:aws:sqs:eu-west-1:999999999999:elsewhere"}),
])
def test_failure_destinations(destination, expected):
    stack = convert(f"""
Resources:
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      FunctionName: !Ref Worker
      EventSourceArn: !GetAtt Orders.StreamArn
      DestinationConfig: {{OnFailure: {{Destination: {destination}}}}}
  Worker: {{Type: AWS::Lambda::Function, Properties: {{Handler: app.handler}}}}
""" + RESOURCES)
    assert stack.mappings[0].on_failure.model_dump(exclude_none=True) == expected


def test_queues_topics_and_buckets():
    stack = convert("Resources:" + RESOURCES + """
  Bare: {Type: AWS::SNS::Topic}
  Pail: {Type: AWS::S3::Bucket}
""")
    assert (stack.queues, stack.topics, stack.buckets) == (["failures", "Inbox"], ["alerts", "Bare"], ["archive", "Pail"])


def test_other_resources_are_listed_and_outputs_ignored():
    stack = convert("""
Transform: [AWS::Serverless-2016-10-31, AWS::LanguageExtensions]
Resources:
  MyAlarm: {Type: AWS::CloudWatch::Alarm, Properties: {Threshold: !ImportValue elsewhere}}
  Api: {Type: AWS::Serverless::Api, Properties: {StageName: prod}}
  Subscription: {Type: AWS::SNS::Subscription, Properties: {TopicArn: !Ref Alerts, Protocol: sqs}}
""" + RESOURCES + """
Outputs:
  Broken: {Value: !ImportValue nowhere}
  Stream: {Value: !GetAtt Orders.StreamArn}
""")
    assert stack.unsupported == [
        "Transform AWS::LanguageExtensions: not applied by Eddy",
        "MyAlarm (AWS::CloudWatch::Alarm): not supported by Eddy's stack files",
        "Api (AWS::Serverless::Api): not supported by Eddy's stack files",
        "Subscription (AWS::SNS::Subscription): not supported by Eddy's stack files",
    ]
    assert list(stack.tables) == ["orders"]


# -- intrinsic functions ------------------------------------------------------------------------------------


def test_ref_and_get_att_of_resources():
    assert environment("""
          TABLE: !Ref Orders
          QUEUE: !Ref Failures
          DEFAULT_NAME: !Ref Inbox
          TOPIC: !Ref Alerts
          BUCKET: !Ref Archive
          FUNCTION: !Ref Fn
          TABLE_ARN: !GetAtt Orders.Arn
          QUEUE_ARN: !GetAtt Failures.Arn
          QUEUE_NAME: !GetAtt Failures.QueueName
          TOPIC_ARN: !GetAtt Alerts.Arn
          TOPIC_ARN_TOO: !GetAtt [Alerts, TopicArn]
          TOPIC_NAME: !GetAtt Alerts.TopicName
          BUCKET_ARN: !GetAtt Archive.Arn
          FUNCTION_ARN: !GetAtt Fn.Arn""") == {
        "TABLE": "orders", "QUEUE": "failures", "DEFAULT_NAME": "Inbox", "BUCKET": "archive",
        "TOPIC": "arn:aws:sns:us-east-1:123456789012:alerts",  # as CloudFormation: a topic's Ref is its ARN
        "FUNCTION": "Fn",
        "TABLE_ARN": "arn:aws:dynamodb:us-east-1:123456789012:table/orders",
        "QUEUE_ARN": "arn:aws:sqs:us-east-1:123456789012:failures", "QUEUE_NAME": "failures",
        "TOPIC_ARN": "arn:aws:sns:us-east-1:123456789012:alerts", "TOPIC_ARN_TOO": "arn:aws:sns:us-east-1:123456789012:alerts",
        "TOPIC_NAME": "alerts", "BUCKET_ARN": "arn:aws:s3:::archive",
        "FUNCTION_ARN": "arn:aws:lambda:us-east-1:123456789012:function:Fn",
    }


PSEUDO = """{REGION: !Ref AWS::Region, ACCOUNT: !Ref AWS::AccountId, PARTITION: !Ref AWS::Partition,
                     STACK: !Ref AWS::StackName, ARN: !GetAtt Failures.Arn}"""


def test_pseudo_parameters():
    assert environment(PSEUDO) == {"REGION": "us-east-1", "ACCOUNT": "123456789012", "PARTITION": "aws",
                                   "STACK": "template", "ARN": "arn:aws:sqs:us-east-1:123456789012:failures"}
    document = read(f"Resources:\n  Fn: {{Type: AWS::Lambda::Function, Properties: {{Handler: app.handler, "
                    f"Environment: {{Variables: {PSEUDO}}}}}}}\n{RESOURCES}")
    stack = stack_from_template(document, "here/orders.yaml", Path("here"), pseudo={
        "AWS::Region": "eu-west-1", "AWS::AccountId": "000000000000", "AWS::Partition": "aws-cn"})
    assert stack.functions["Fn"].environment == {"REGION": "eu-west-1", "ACCOUNT": "000000000000", "PARTITION": "aws-cn",
                                                 "STACK": "orders", "ARN": "arn:aws-cn:sqs:eu-west-1:000000000000:failures"}
    assert (stack.region, stack.base_dir) == ("eu-west-1", Path("here"))
    assert convert("Resources: {}").region is None
    with pytest.raises(ValueError, match="AWS::Nope"):
        stack_from_template({"Resources": {}}, pseudo={"AWS::Nope": "x"})


PARAMETERS = """
Parameters:
  Stage: {Type: String, Default: dev}
  Size: {Type: Number, Default: 256}
  Names: {Type: CommaDelimitedList, Default: "a, b,c"}
  Required: {Type: String}
"""


def test_parameters_give_their_defaults():
    assert environment("{STAGE: !Ref Stage, SIZE: !Ref Size, SECOND: !Select [1, !Ref Names]}", PARAMETERS) == {
        "STAGE": "dev", "SIZE": "256", "SECOND": "b"}
    with pytest.raises(StackError) as invalid:
        environment("{X: !Ref Required}", PARAMETERS)
    assert str(invalid.value) == ("template.yaml: Resources.Fn.Properties.Environment.Variables.X.Ref: parameter 'Required' has no "
                       "Default (Eddy takes no parameter values: give it one)")


def test_sub():
    assert environment(r"""
          PLAIN: !Sub "${Stage}-${AWS::Region}-${AWS::AccountId}"
          ATTRIBUTE: !Sub "${Failures.Arn}/${Orders}"
          VARIABLES: !Sub ["${Name}:${Stage}:${Count}", {Name: !GetAtt Alerts.TopicName, Count: 3}]
          LITERAL: !Sub "${!Stage} costs $5"
          LONG: {"Fn::Sub": "${AWS::StackName}"}""", PARAMETERS) == {
        "PLAIN": "dev-us-east-1-123456789012",
        "ATTRIBUTE": "arn:aws:sqs:us-east-1:123456789012:failures/orders",
        "VARIABLES": "alerts:dev:3",
        "LITERAL": "${Stage} costs $5",
        "LONG": "template",
    }


def test_join_select_split_find_in_map_base64_get_azs():
    assert environment("""
          JOIN: !Join ["-", [a, !Ref Stage, 3]]
          SELECT: !Select ["2", [x, y, z]]
          SPLIT: !Select [1, !Split [",", "p,q,r"]]
          JOIN_SPLIT: !Join ["+", !Split [",", "p,q"]]
          MAP: !FindInMap [Sizes, !Ref Stage, memory]
          B64: !Base64 hello
          AZ: !Select [0, !GetAZs ""]
          AZ_NAMED: !Select [2, !GetAZs eu-west-1]""", PARAMETERS + """
Mappings:
  Sizes: {dev: {memory: 128}, prod: {memory: 1024}}
""") == {"JOIN": "a-dev-3", "SELECT": "z", "SPLIT": "q", "JOIN_SPLIT": "p+q", "MAP": "128",
         "B64": base64.b64encode(b"hello").decode(), "AZ": "us-east-1a", "AZ_NAMED": "eu-west-1c"}


CONDITIONS = PARAMETERS + """
Conditions:
  IsDev: !Equals [!Ref Stage, dev]
  IsProd: !Equals [prod, !Ref Stage]
  NotProd: !Not [!Condition IsProd]
  Both: !And [!Condition IsDev, !Condition NotProd]
  Either: !Or [!Condition IsProd, !Equals [!Ref Size, 256]]
  Unknowable: !Equals [!ImportValue shared, x]
"""


def test_if_with_conditions():
    assert environment("""
          DEV: !If [IsDev, yes-dev, no-dev]
          PROD: !If [IsProd, yes-prod, no-prod]
          NOT: !If [NotProd, T, F]
          BOTH: !If [Both, T, F]
          EITHER: !If [Either, T, F]
          GONE: !If [IsProd, here, !Ref AWS::NoValue]
          UNTAKEN: !If [IsDev, fine, !ImportValue never-read]""", CONDITIONS) == {
        "DEV": "yes-dev", "PROD": "no-prod", "NOT": "T", "BOTH": "T", "EITHER": "T", "UNTAKEN": "fine"}
    stack = convert(CONDITIONS + """
Resources:
  ProdOnly: {Type: AWS::SQS::Queue, Condition: IsProd}
  DevOnly: {Type: AWS::SQS::Queue, Condition: IsDev}
""" + table("Plain", "StreamSpecification: !If [IsProd, {StreamViewType: NEW_IMAGE}, !Ref AWS::NoValue]"))
    assert (stack.queues, stack.tables["Plain"].stream) == (["DevOnly"], None)


def test_conditions_that_cannot_be_evaluated_are_named():
    with pytest.raises(StackError) as invalid:
        environment("{X: !If [Unknowable, a, b]}", "\n  Q: {Type: AWS::SQS::Queue, Condition: Missing}" + CONDITIONS)
    assert str(invalid.value).splitlines() == [
        "template.yaml: Resources.Fn.Properties.Environment.Variables.X.Fn::If.0: condition 'Unknowable' cannot be evaluated: "
        "Conditions.Unknowable.Fn::Equals.0.Fn::ImportValue: values exported by other stacks are not available: "
        "Eddy reads this template alone",
        "template.yaml: Resources.Q.Condition: no condition 'Missing' in Conditions",
    ]


# -- errors -------------------------------------------------------------------------------------------------


def test_errors_name_the_template_and_the_property():
    message = problems("Resources:\n" + table("OrdersTable", key="id")
                       + table("BadTypes", "StreamSpecification: {StreamViewType: EVERYTHING}", key_type="X") + """
  Fn:
    Type: AWS::Serverless::Function
    Properties: {Handler: app.handler, Environment: {Variables: {STREAM: !GetAtt Orders.StreamArn}}}
  Checked:
    Type: AWS::Lambda::Function
    Properties: {Handler: nodots, Timeout: 0, MemorySize: 64}
  Worker:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      Events:
        Big:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Orders.StreamArn, StartingPosition: AT_TIMESTAMP, BatchSize: 20000}
        Plain:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Plain.StreamArn, StartingPosition: LATEST}
        Lost:
          Type: DynamoDB
          Properties:
            Stream: !GetAtt Orders.StreamArn
            DestinationConfig: {OnFailure: {Destination: nowhere}}
            FilterCriteria: {Filters: [{Pattern: "{not json"}]}
""" + table("Plain") + RESOURCES.replace("Failures:", "Unused:"))
    expected = [
        "template.yaml: Resources.OrdersTable.Properties.KeySchema.0.AttributeName: 'id' is not among the AttributeDefinitions",
        "template.yaml: Resources.BadTypes.Properties.AttributeDefinitions.0.AttributeType: Input should be 'S', 'N' or 'B'",
        "template.yaml: Resources.BadTypes.Properties.StreamSpecification.StreamViewType: Input should be 'KEYS_ONLY'",
        "template.yaml: Resources.Fn.Properties.Environment.Variables.STREAM: the stream ARN of Orders is known only once "
        "the table exists",
        "template.yaml: Resources.Checked.Properties.Handler: a handler is module.function",
        "template.yaml: Resources.Checked.Properties.Timeout: Input should be greater than or equal to 1",
        "template.yaml: Resources.Checked.Properties.MemorySize: Input should be greater than or equal to 128",
        "template.yaml: Resources.Worker.Properties.Events.Big.Properties.StartingPosition: Input should be 'TRIM_HORIZON' or 'LATEST'",
        "template.yaml: Resources.Worker.Properties.Events.Big.Properties.BatchSize: Input should be less than or equal to 10000",
        "template.yaml: Resources.Worker.Properties.Events.Plain.Properties.Stream: table Plain has no StreamSpecification",
        "template.yaml: Resources.Worker.Properties.Events.Lost.Properties.FilterCriteria.Filters.0.Pattern: not a JSON "
        "filter pattern",  # the first problem of a resource stops it: not its Destination
    ]
    for line in expected:
        assert line in message, line
    assert len(message.splitlines()) == len(expected), message


@pytest.mark.parametrize("variables, error", [
    ("{X: !GetAtt Role.Arn}", "Variables.X.Fn::GetAtt: Role (AWS::IAM::Role) is not a resource Eddy creates, so it has no Arn"),
    ("{X: !Ref Role}", "Variables.X.Ref: Role (AWS::IAM::Role) is not a resource Eddy creates, so it has no value here"),
    ("{X: !Ref Nobody}", "Variables.X.Ref: no parameter or resource named 'Nobody'"),
    ("{X: !Ref AWS::Nope}", "Variables.X.Ref: no parameter or resource named 'AWS::Nope'"),
    ("{X: !GetAtt Orders.Endpoint}", "Variables.X.Fn::GetAtt: Eddy knows these attributes of Orders (AWS::DynamoDB::Table): "
                                     "Arn, StreamArn, not 'Endpoint'"),
    ("{X: !Sub '${Orders.StreamArn}'}", "Variables.X.Fn::Sub: the stream ARN of Orders is known only once the table exists"),
    ("{X: !ImportValue shared}", "Variables.X.Fn::ImportValue: values exported by other stacks are not available"),
    ("{X: !Select [5, [a]]}", "Variables.X.Fn::Select.0: no item 5 in a list of 1"),
    ("{X: !FindInMap [Sizes, dev, memory]}", "Variables.X.Fn::FindInMap.0: no 'Sizes' in Mappings"),
    ("{X: {'Fn::Cidr': [a, 1, 2]}}", "Variables.X.Fn::Cidr: Fn::Cidr is not an intrinsic function Eddy evaluates"),
    ("{X: !If [Nope, a, b]}", "Variables.X.Fn::If.0: no condition 'Nope' in Conditions"),
    ("{X: [a, b]}", "Variables.X: expected text, got a list"),
])
def test_intrinsic_errors(variables, error):
    with pytest.raises(StackError) as invalid:
        environment(variables, "\n  Role: {Type: AWS::IAM::Role}")
    assert str(invalid.value).startswith(f"template.yaml: Resources.Fn.Properties.Environment.{error}")


def test_template_shape_errors():
    for text, error in [
        ("AWSTemplateFormatVersion: '2010-09-09'", "template.yaml: Resources: a template declares its resources under Resources"),
        ("Resources: [a]", "template.yaml: Resources: expected a mapping, got a list"),
        ("Resources: {}\nGlobals: {Function: [a]}", "template.yaml: Globals.Function: expected a mapping, got a list"),
        ("Resources: {X: {Properties: {}}}", "template.yaml: Resources.X.Type: expected a resource type"),
        ("Resources: {X: {Type: AWS::SQS::Queue, Properties: [a]}}", "template.yaml: Resources.X.Properties: expected a mapping"),
        ("Resources: {A: {Type: AWS::SQS::Queue, Properties: {QueueName: q}}, B: {Type: AWS::SQS::Queue, Properties: {QueueName: q}}}",
         "template.yaml: Resources.B.Properties: a second queue named 'q'"),
        ("Resources: {X: {Type: AWS::SQS::Queue, Properties: {QueueName: !Ref X}}}",
         "template.yaml: Resources.X.Properties.QueueName.Ref: the name of X depends on itself"),
    ]:
        assert problems(text).startswith(error), text


def test_load_stack_reads_a_template_file(tmp_path):
    path = tmp_path / "orders.yaml"
    path.write_text("Resources:\n  Orders:\n    Type: AWS::DynamoDB::Table\n    Properties:\n"
                    "      KeySchema: [{AttributeName: pk, KeyType: HASH}]\n")
    with pytest.raises(StackError) as invalid:
        load_stack(path)
    assert str(invalid.value) == (f"{path}: Resources.Orders.Properties.KeySchema.0.AttributeName: 'pk' is not among the "
                                  "AttributeDefinitions")
    path.write_text("Resources:\n  Q: {Type: AWS::SQS::Queue, Properties: {QueueName: !Sub '${AWS::StackName}-q'}}\n")
    assert (load_stack(path).queues, load_stack(path).base_dir) == (["orders-q"], tmp_path)


def test_mapping_targets_must_be_in_the_template():
    template = """
Resources:
  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      FunctionName: {function}
      EventSourceArn: !GetAtt Orders.StreamArn
      DestinationConfig: {{OnFailure: {{Type: {kind}, Destination: {destination}}}}}
  Worker: {{Type: AWS::Lambda::Function, Properties: {{Handler: app.handler}}}}
  Twin: {{Type: AWS::SNS::Topic, Properties: {{TopicName: failures}}}}
""" + RESOURCES.replace("{", "{{").replace("}", "}}")
    assert convert(template.format(function="Worker", kind="SNS", destination="failures")).mappings[0].on_failure.topic == "failures"
    assert convert(template.format(function="Worker", kind="SQS", destination="failures")).mappings[0].on_failure.queue == "failures"
    at = "template.yaml: Resources.Mapping.Properties"
    assert problems(template.format(function="Worker", kind="S3", destination="failures")) == (
        f"{at}.DestinationConfig.OnFailure.Destination: 'failures' is neither an ARN nor the name of one queue, topic or "
        "bucket of this template")
    assert problems(template.format(function="Missing", kind="SQS", destination="failures")) == (
        f"{at}.FunctionName: no function 'Missing' in this template")
