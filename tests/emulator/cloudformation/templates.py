"""Templates the CloudFormation tests deploy (YAML, with the short-form tags, as people write them)."""

ROLE = """
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Version: '2012-10-17'
        Statement: [{Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: 'sts:AssumeRole'}]
      ManagedPolicyArns: [arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]
"""


def table(logical_id: str, view_type: str | None = None) -> str:
    """An AWS::DynamoDB::Table keyed by a string `pk`, on demand, with a stream of `view_type` (none: no stream)."""
    stream = f"\n      StreamSpecification: {{StreamViewType: {view_type}}}" if view_type else ""
    return f"""
  {logical_id}:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{{AttributeName: pk, AttributeType: S}}]
      KeySchema: [{{AttributeName: pk, KeyType: HASH}}]
      BillingMode: PAY_PER_REQUEST{stream}
"""


def service_role(logical_id: str, service: str) -> str:
    """An AWS::IAM::Role that `service` (pipes.amazonaws.com, ...) may assume, for a template's Resources."""
    return f"""
  {logical_id}:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement: [{{Effect: Allow, Principal: {{Service: {service}}}, Action: sts:AssumeRole}}]
"""


def inline_function(logical_id: str, code: str, environment: str = "{}", runtime: str = "python3.12",
                    name: str | None = None) -> str:
    """An AWS::Lambda::Function with inline code (`code` unindented), the ROLE's, for a template's Resources;
    `name` its FunctionName (none: CloudFormation makes one)."""
    body = "\n".join("          " + line if line else "" for line in code.strip("\n").splitlines())
    named = f"\n      FunctionName: {name}" if name else ""
    return f"""
  {logical_id}:
    Type: AWS::Lambda::Function
    Properties:{named}
      Runtime: {runtime}
      Handler: index.handler
      Role: !GetAtt Role.Arn
      Timeout: 30
      Environment: {{Variables: {environment}}}
      Code:
        ZipFile: |
{body}
"""


#: a table "Orders" whose stream has new images
ORDERS = table("Orders", "NEW_IMAGE")

#: a table with a stream, a function copying each new image into a second table, the mapping between them
PIPELINE = (
    """
AWSTemplateFormatVersion: '2010-09-09'
Description: orders and their copies
Parameters:
  BatchSize: {Type: Number, Default: 10}
Resources:"""
    + table("Orders", "NEW_AND_OLD_IMAGES")
    + table("Copies")
    + ROLE
    + inline_function(
        "Copier",
        """
import os, boto3
MARK = "%(mark)s"
table = boto3.client("dynamodb")
def handler(event, context):
    for record in event["Records"]:
        item = dict(record["dynamodb"]["NewImage"], mark={"S": MARK})
        table.put_item(TableName=os.environ["COPIES"], Item=item)
    return {"batchItemFailures": []}
""",
        "{COPIES: !Ref Copies}",
    )
    + """  Mapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties:
      FunctionName: !Ref Copier
      EventSourceArn: !GetAtt Orders.StreamArn
      StartingPosition: TRIM_HORIZON
      BatchSize: !Ref BatchSize
      FunctionResponseTypes: [ReportBatchItemFailures]
Outputs:
  Orders: {Value: !Ref Orders}
  Copies: {Value: !Ref Copies, Export: {Name: !Sub '${AWS::StackName}-copies'}}
  Copier: {Value: !GetAtt Copier.Arn}
"""
)


def pipeline(mark: str = "one") -> str:
    return PIPELINE % {"mark": mark}


QUEUE = """
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties: {VisibilityTimeout: 45}
%(more)s
"""


def queue_and(more: str) -> str:
    return QUEUE % {"more": more}
