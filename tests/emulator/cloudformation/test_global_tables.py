"""AWS::DynamoDB::GlobalTable (what CDK's TableV2 deploys; CloudFormation has no TableV2 type) through Eddy's global
tables, in both doors: the table in the stack's region and a replica in each other region of Replicas, writes
replicated, a replica added by an update, every region's table deleted with the stack; a resource type Eddy does not
serve (AWS::Lambda::CodeSigningConfig: Eddy signs no code) fails loudly and the stack rolls back.

Properties and return values from the AWS::DynamoDB::GlobalTable resource reference (Ref: the table name; Fn::GetAtt
Arn, StreamArn, TableId; Replicas' Region, Tags; StreamSpecification, TimeToLiveSpecification)."""

from __future__ import annotations

from tests.emulator.cloudformation.helpers import STACK, created, deleted, events, outputs

GLOBAL = """
Resources:
  Orders:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: orders
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      TimeToLiveSpecification: {AttributeName: expires, Enabled: true}
      Replicas:
        - {Region: us-east-1, Tags: [{Key: team, Value: shop}]}
        - {Region: eu-west-1}%s
Outputs:
  Name: {Value: !Ref Orders}
  Arn: {Value: !GetAtt Orders.Arn}
  Stream: {Value: !GetAtt Orders.StreamArn}
"""


def replicated(door) -> dict:
    if door.name == "inprocess":
        return door.emu.replication.wait_replicated(60)
    return door.control("/_eddy/replication/wait", {"timeout": 60})


def test_a_global_table_has_a_replica_in_each_region_and_goes_with_its_stack(door):
    cloudformation = door.client("cloudformation")
    here, europe, west = door.client("dynamodb"), door.client("dynamodb", "eu-west-1"), door.client("dynamodb", "us-west-2")
    stack_id = cloudformation.create_stack(StackName="shop", TemplateBody=GLOBAL % "")["StackId"]
    assert events(cloudformation, "shop") == [("shop", STACK, "CREATE_IN_PROGRESS", "User Initiated"),
                                              *created("Orders", "AWS::DynamoDB::GlobalTable"),
                                              ("shop", STACK, "CREATE_COMPLETE", None)]
    table = here.describe_table(TableName="orders")["Table"]
    assert outputs(cloudformation, "shop") == {"Name": "orders", "Arn": table["TableArn"],
                                               "Stream": table["LatestStreamArn"]}
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert table["Replicas"] == [{"RegionName": "eu-west-1", "ReplicaStatus": "CREATING"}]
    assert here.describe_time_to_live(TableName="orders")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    assert here.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"] == [{"Key": "team", "Value": "shop"}]
    door.advance(31)  # the replica is ACTIVE after Settings.replica_transition_seconds on Eddy's clock
    assert europe.describe_table(TableName="orders")["Table"]["Replicas"] == [
        {"RegionName": "us-east-1", "ReplicaStatus": "ACTIVE"}]
    here.put_item(TableName="orders", Item={"pk": {"S": "o-1"}})
    assert replicated(door)["Converged"]
    assert europe.get_item(TableName="orders", Key={"pk": {"S": "o-1"}})["Item"] == {"pk": {"S": "o-1"}}

    cloudformation.update_stack(StackName="shop", TemplateBody=GLOBAL % "\n        - {Region: us-west-2}")
    assert cloudformation.describe_stacks(StackName="shop")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert here.describe_table(TableName="orders")["Table"]["Replicas"] == [
        {"RegionName": "eu-west-1", "ReplicaStatus": "ACTIVE"}, {"RegionName": "us-west-2", "ReplicaStatus": "CREATING"}]
    door.advance(31)
    assert west.get_item(TableName="orders", Key={"pk": {"S": "o-1"}})["Item"] == {"pk": {"S": "o-1"}}  # backfilled

    cloudformation.delete_stack(StackName="shop")
    assert events(cloudformation, stack_id)[-3:] == [*deleted("Orders", "AWS::DynamoDB::GlobalTable"),
                                                   ("shop", STACK, "DELETE_COMPLETE", None)]
    assert [client.list_tables()["TableNames"] for client in (here, europe, west)] == [[], [], []]


def test_a_global_table_without_the_stacks_region_fails_and_rolls_back(door):
    cloudformation = door.client("cloudformation")
    template = GLOBAL.replace("- {Region: us-east-1, Tags: [{Key: team, Value: shop}]}", "- {Region: us-west-2}") % ""
    cloudformation.create_stack(StackName="shop", TemplateBody=template)
    assert [event for event in events(cloudformation, "shop") if event[2] == "CREATE_FAILED"] == [
        ("Orders", "AWS::DynamoDB::GlobalTable", "CREATE_FAILED",
         "Properties validation failed for resource with message: Replicas must include the stack's region "
         "(us-east-1)")]
    assert cloudformation.describe_stacks(StackName="shop")["Stacks"][0]["StackStatus"] == "ROLLBACK_COMPLETE"
    assert door.client("dynamodb").list_tables()["TableNames"] == []


UNSERVED = """
Resources:
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement: [{Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: sts:AssumeRole}]
  Site:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      Role: !GetAtt Role.Arn
      Code: {ZipFile: "def handler(event, context):\\n    return 'hi'\\n"}
  Signing:
    Type: AWS::Lambda::CodeSigningConfig
    Properties:
      AllowedPublishers: {SigningProfileVersionArns: ["arn:aws:signer:us-east-1:123456789012:/signing-profiles/p/1"]}
"""


def test_a_type_eddy_does_not_serve_fails_and_says_so(door):
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="site", TemplateBody=UNSERVED, Capabilities=["CAPABILITY_IAM"])
    found = events(cloudformation, "site")
    assert ("Signing", "AWS::Lambda::CodeSigningConfig", "CREATE_FAILED",
            "Resource type AWS::Lambda::CodeSigningConfig is not served by Eddy: no resource of this type can be created "
            "(docs/guides/deploy.md lists the types served)") in found
    assert found[-1] == ("site", STACK, "ROLLBACK_COMPLETE", None)
    assert door.client("lambda").list_functions()["Functions"] == []


PROVISIONED = """
Resources:
  Scores:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: scores
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}, {AttributeName: team, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      WriteProvisionedThroughputSettings:
        WriteCapacityAutoScalingSettings:
          {MinCapacity: 5, MaxCapacity: 50, SeedCapacity: 8, TargetTrackingScalingPolicyConfiguration: {TargetValue: 70}}
      GlobalSecondaryIndexes:
        - IndexName: by-team
          KeySchema: [{AttributeName: team, KeyType: HASH}]
          Projection: {ProjectionType: ALL}
          WriteProvisionedThroughputSettings:
            WriteCapacityAutoScalingSettings:
              {MinCapacity: 2, MaxCapacity: 20, TargetTrackingScalingPolicyConfiguration: {TargetValue: 60}}
      Replicas:
        - Region: us-east-1
          ReadProvisionedThroughputSettings: {ReadCapacityUnits: 10}
          GlobalSecondaryIndexes: [{IndexName: by-team, ReadProvisionedThroughputSettings: {ReadCapacityUnits: 4}}]
        - Region: eu-west-1
          ReadProvisionedThroughputSettings:
            ReadCapacityAutoScalingSettings:
              {MinCapacity: 3, MaxCapacity: 30, TargetTrackingScalingPolicyConfiguration: {TargetValue: 70}}
          GlobalSecondaryIndexes: [{IndexName: by-team, ReadProvisionedThroughputSettings: {ReadCapacityUnits: 6}}]
"""


def test_a_provisioned_global_table_auto_scales_writes_and_sets_each_replicas_reads(door):
    """BillingMode PROVISIONED (the type's default) as the AWS::DynamoDB::GlobalTable reference documents it: writes
    auto scaled (WriteCapacityAutoScalingSettings, starting at SeedCapacity, else MinCapacity), each replica's reads
    fixed or auto scaled; without write auto scaling the resource fails."""
    cloudformation = door.client("cloudformation")
    cloudformation.create_stack(StackName="scores", TemplateBody=PROVISIONED)
    assert cloudformation.describe_stacks(StackName="scores")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    here = door.client("dynamodb").describe_table(TableName="scores")["Table"]
    assert (here.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED"),
            here["ProvisionedThroughput"]["ReadCapacityUnits"], here["ProvisionedThroughput"]["WriteCapacityUnits"]) == (
        "PROVISIONED", 10, 8)
    [index] = here["GlobalSecondaryIndexes"]
    assert (index["ProvisionedThroughput"]["ReadCapacityUnits"], index["ProvisionedThroughput"]["WriteCapacityUnits"]) \
        == (4, 2)
    autoscaling = door.client("application-autoscaling")
    targets = autoscaling.describe_scalable_targets(ServiceNamespace="dynamodb")["ScalableTargets"]
    assert sorted((t["ResourceId"], t["ScalableDimension"], t["MinCapacity"], t["MaxCapacity"]) for t in targets) == [
        ("table/scores", "dynamodb:table:WriteCapacityUnits", 5, 50),
        ("table/scores/index/by-team", "dynamodb:index:WriteCapacityUnits", 2, 20)]
    policies = autoscaling.describe_scaling_policies(ServiceNamespace="dynamodb")["ScalingPolicies"]
    assert sorted((p["ResourceId"], p["TargetTrackingScalingPolicyConfiguration"]["TargetValue"]) for p in policies) == [
        ("table/scores", 70.0), ("table/scores/index/by-team", 60.0)]
    door.advance(31)
    europe = door.client("dynamodb", "eu-west-1").describe_table(TableName="scores")["Table"]
    assert (europe["ProvisionedThroughput"]["ReadCapacityUnits"], europe["ProvisionedThroughput"]["WriteCapacityUnits"],
            europe["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["ReadCapacityUnits"]) == (3, 8, 6)
    cloudformation.delete_stack(StackName="scores")
    assert autoscaling.describe_scalable_targets(ServiceNamespace="dynamodb")["ScalableTargets"] == []
    assert door.client("dynamodb", "eu-west-1").list_tables()["TableNames"] == []

    unscaled = PROVISIONED.replace("      WriteProvisionedThroughputSettings:\n        WriteCapacityAutoScalingSettings:\n"
                                   "          {MinCapacity: 5, MaxCapacity: 50, SeedCapacity: 8, "
                                   "TargetTrackingScalingPolicyConfiguration: {TargetValue: 70}}\n", "")
    cloudformation.create_stack(StackName="unscaled", TemplateBody=unscaled)
    assert [event[3] for event in events(cloudformation, "unscaled") if event[2] == "CREATE_FAILED"] == [
        "Properties validation failed for resource with message: #: WriteProvisionedThroughputSettings."
        "WriteCapacityAutoScalingSettings must be specified when BillingMode is PROVISIONED"]
    assert door.client("dynamodb").list_tables()["TableNames"] == []
