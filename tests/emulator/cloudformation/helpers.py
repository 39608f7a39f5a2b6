"""What the CloudFormation tests read back: a stack's events oldest first, as (logical id, type, status, reason)."""

from typing import Any

STACK = "AWS::CloudFormation::Stack"


def events(cloudformation: Any, stack: str) -> list[tuple[str, str, str, str | None]]:
    described = cloudformation.describe_stack_events(StackName=stack)["StackEvents"]
    return [(event["LogicalResourceId"], event["ResourceType"], event["ResourceStatus"],
             event.get("ResourceStatusReason")) for event in reversed(described)]


def created(logical_id: str, resource_type: str, verb: str = "CREATE") -> list[tuple[str, str, str, str | None]]:
    """A resource's three events as CloudFormation writes them when it makes one."""
    initiated = "Resource creation Initiated"
    return [(logical_id, resource_type, f"{verb}_IN_PROGRESS", None),
            (logical_id, resource_type, f"{verb}_IN_PROGRESS", initiated),
            (logical_id, resource_type, f"{verb}_COMPLETE", None)]


def deleted(logical_id: str, resource_type: str) -> list[tuple[str, str, str, str | None]]:
    return [(logical_id, resource_type, "DELETE_IN_PROGRESS", None),
            (logical_id, resource_type, "DELETE_COMPLETE", None)]


def outputs(cloudformation: Any, stack: str) -> dict[str, str]:
    described = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]
    return {output["OutputKey"]: output["OutputValue"] for output in described.get("Outputs", [])}


def deploy(cloudformation: Any, verb: str, stack: str, template: str, **parameters: str) -> dict[str, str]:
    """`verb` ("create" or "update") the stack from `template` with `parameters`; checks it completed (its events
    shown otherwise) and answers its outputs."""
    getattr(cloudformation, f"{verb}_stack")(
        StackName=stack, TemplateBody=template, Capabilities=["CAPABILITY_IAM"],
        Parameters=[{"ParameterKey": key, "ParameterValue": value} for key, value in parameters.items()])
    status = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"]
    assert status == f"{verb.upper()}_COMPLETE", events(cloudformation, stack)
    return outputs(cloudformation, stack)
