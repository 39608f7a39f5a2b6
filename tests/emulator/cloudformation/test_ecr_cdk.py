"""What `cdk bootstrap` and CDK apps make besides Eddy's own services (both doors): an AWS::ECR::Repository (a record
in moto's ECR, with its lifecycle and repository policies) created, updated in place and deleted, and the
AWS::CDK::Metadata every CDK stack carries."""

import json

from tests.emulator.cloudformation.helpers import outputs

LIFECYCLE = {"rules": [{"rulePriority": 1, "description": "untagged", "action": {"type": "expire"},
                        "selection": {"tagStatus": "untagged", "countType": "sinceImagePushed", "countUnit": "days",
                                      "countNumber": 365}}]}
POLICY = {"Version": "2012-10-17", "Statement": [{"Sid": "LambdaECRImageRetrievalPolicy", "Effect": "Allow",
                                                  "Principal": {"Service": "lambda.amazonaws.com"},
                                                  "Action": ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"]}]}


def template(mutability: str) -> str:
    return json.dumps({
        "Resources": {
            "Repository": {"Type": "AWS::ECR::Repository", "Properties": {
                "RepositoryName": "container-assets", "ImageTagMutability": mutability,
                "ImageScanningConfiguration": {"ScanOnPush": True},
                "LifecyclePolicy": {"LifecyclePolicyText": json.dumps(LIFECYCLE)},
                "RepositoryPolicyText": POLICY}},
            "CDKMetadata": {"Type": "AWS::CDK::Metadata", "Properties": {"Analytics": "v2:deflate64:H4sIAAAA"}}},
        "Outputs": {"Arn": {"Value": {"Fn::GetAtt": ["Repository", "Arn"]}},
                    "Uri": {"Value": {"Fn::GetAtt": ["Repository", "RepositoryUri"]}}}})


def test_an_ecr_repository_and_cdk_metadata_are_made_updated_and_deleted(door):
    cloudformation, ecr = door.client("cloudformation"), door.client("ecr")
    cloudformation.create_stack(StackName="assets", TemplateBody=template("IMMUTABLE"))
    assert cloudformation.describe_stacks(StackName="assets")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    repository = ecr.describe_repositories(repositoryNames=["container-assets"])["repositories"][0]
    assert outputs(cloudformation, "assets") == {"Arn": repository["repositoryArn"],
                                                 "Uri": repository["repositoryUri"]}
    assert (repository["imageTagMutability"], repository["imageScanningConfiguration"]) == (
        "IMMUTABLE", {"scanOnPush": True})
    assert json.loads(ecr.get_lifecycle_policy(repositoryName="container-assets")["lifecyclePolicyText"]) == LIFECYCLE
    assert json.loads(ecr.get_repository_policy(repositoryName="container-assets")["policyText"]) == POLICY
    resources = cloudformation.list_stack_resources(StackName="assets")["StackResourceSummaries"]
    assert sorted((entry["LogicalResourceId"], entry["ResourceStatus"]) for entry in resources) == [
        ("CDKMetadata", "CREATE_COMPLETE"), ("Repository", "CREATE_COMPLETE")]

    cloudformation.update_stack(StackName="assets", TemplateBody=template("MUTABLE"))
    assert cloudformation.describe_stacks(StackName="assets")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    updated = ecr.describe_repositories(repositoryNames=["container-assets"])["repositories"][0]
    assert (updated["repositoryArn"], updated["imageTagMutability"]) == (repository["repositoryArn"], "MUTABLE")

    cloudformation.delete_stack(StackName="assets")
    assert ecr.describe_repositories()["repositories"] == []
