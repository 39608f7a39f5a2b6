"""A worker's credentials, as Lambda gives a function's code its own: "Lambda generates an ephemeral set of
credentials by assuming your function's execution role. These credentials are available as environment variables"
(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN: the Lambda Developer Guide, "Using source function ARN
to control function access behavior"), the role's session named after the function, so that the function's calls
are the role's (STS GetCallerIdentity: arn:aws:sts::ACCOUNT:assumed-role/ROLE/FUNCTION) in the role's account.

Each worker (each of Lambda's execution environments) gets a session of its own, as Lambda gives each environment
its own: two environments of one function have different keys (AWS-recorded: LocalStack's test_lambda.py,
TestLambdaBaseFeatures::test_lambda_different_iam_keys_environment). The session is an STS AssumeRole made through
Eddy's own client, so it is journaled like any request (replayed, it makes the same keys again: the requests the
function signed with them find their account after a restart too).

On a disk that refuses writes (issue 38: reads and functions keep working, writes are refused until it has room) that
AssumeRole is refused too; the worker then runs as the session made with the function's CreateFunction
(`new_role_session`, a write of that request) and kept with the function (Function.role_session, in its durable
state), so a function invoked still runs as its role. A function kept without one (made before sessions were kept,
or whose session was refused while its CreateFunction's own write then succeeded) runs with Eddy's own credentials
(moto's default account) then: keys no log holds would make the function's later requests, once written, unreadable
at a restart's replay. Such a worker serves that one invocation only (its revision is None), and a WARNING says so."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from botocore.exceptions import ClientError

if TYPE_CHECKING:
    from eddy.emulator.functions.function import Function

log = logging.getLogger("eddy")


def role_session(aws_client: Callable[..., Any], function: Function, disk: Any = None) -> dict[str, str]:
    """The variables that give a new worker of `function` its execution role's session: one made now
    (`new_role_session`), else, while the disk refuses it, the one kept with the function."""
    kept = function.role_session or {}
    return new_role_session(aws_client, function.region, function.role, function.name, disk, kept) or kept


def new_role_session(
    aws_client: Callable[..., Any], region: str, role: str, name: str, disk: Any = None, kept: dict | None = None
) -> dict[str, str]:
    """The variables of a new session of the execution role `role` for the function `name` (named as AWS names it:
    the function's name, a one-character one suffixed "@lambda_function", as AssumeRole needs two characters at least:
    AWS-recorded, LocalStack's test_lambda.py TestLambdaBaseFeatures::test_assume_role); none while `disk`
    (storage/disk.py's DiskState) refuses writes and the session was refused with it."""
    session_name = name if len(name) > 1 else f"{name}@lambda_function"
    try:
        credentials = aws_client("sts", region, as_aws=True).assume_role(RoleArn=role, RoleSessionName=session_name)[
            "Credentials"
        ]
    except ClientError as error:
        if disk is None or not disk.refusing or error.response["ResponseMetadata"]["HTTPStatusCode"] < 500:
            raise
        log.warning(
            "function %s runs %s: the disk refuses writes (%s)",
            name,
            "as the session of its execution role kept with it"
            if kept
            else "without its execution role's session, with Eddy's own credentials",
            disk.reason,
        )
        return {}
    return {
        "AWS_ACCESS_KEY_ID": credentials["AccessKeyId"],
        "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"],
        "AWS_SESSION_TOKEN": credentials["SessionToken"],
    }
