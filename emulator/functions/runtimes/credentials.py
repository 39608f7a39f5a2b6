"""A worker's credentials, as Lambda gives a function's code its own: "Lambda generates an ephemeral set of
credentials by assuming your function's execution role. These credentials are available as environment variables"
(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN: the Lambda Developer Guide, "Using source function ARN
to control function access behavior"), the role's session named after the function, so that the function's calls
are the role's (STS GetCallerIdentity: arn:aws:sts::ACCOUNT:assumed-role/ROLE/FUNCTION) in the role's account.

The session is an STS AssumeRole made through Eddy's own client, so it is journaled like any request (replayed, it
makes the same keys again: the requests the function signed with them find their account after a restart too)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from eddy.emulator.functions.registry import Function


def role_session(aws_client: Callable[..., Any], function: Function) -> dict[str, str]:
    """The variables that give a worker of `function` its execution role's session (made as AWS makes it inside, by
    the function's name even where AssumeRole's public API would refuse it: a one-character name)."""
    credentials = aws_client("sts", function.region, as_aws=True).assume_role(
        RoleArn=function.role, RoleSessionName=function.name
    )["Credentials"]
    return {
        "AWS_ACCESS_KEY_ID": credentials["AccessKeyId"],
        "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"],
        "AWS_SESSION_TOKEN": credentials["SessionToken"],
    }
