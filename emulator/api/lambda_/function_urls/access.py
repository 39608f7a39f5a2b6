"""Who may call a function URL (docs.aws.amazon.com/lambda/latest/dg/urls-auth.html). Pure: a policy and a request's
signature in, allowed or not out.

- AuthType NONE: the function's (or the URL's alias's) resource-based policy must allow everyone both
  `lambda:InvokeFunctionUrl` (its lambda:FunctionUrlAuthType condition, when it has one, NONE) and
  `lambda:InvokeFunction` (its lambda:InvokedViaFunctionUrl condition, when it has one, true): "Starting in October
  2025, new function URLs will require both lambda:InvokeFunctionUrl and lambda:InvokeFunction permissions"
  (urls-auth.html). SAM's FunctionUrlConfig adds both statements (aws-sam-translator 1.115:
  `<Function>UrlPublicPermissions`, `<Function>URLInvokeAllowPublicAccess`).
- AuthType AWS_IAM: the request is signed with Signature Version 4 for `lambda` (Eddy checks the signature's form, not
  its key: credentials are fake); a caller of the function's own account is allowed by its identity policy, which Eddy
  does not evaluate; another account's needs a statement of the resource-based policy naming it (or everyone).

Refused requests get Lambda's 403 (AccessDeniedException, {"Message": "Forbidden. ..."}, as AWS answered in
LocalStack's AWS-validated TestLambdaPermissions::test_lambda_permission_url_invocation).
"""

from __future__ import annotations

import re
from typing import Any

FORBIDDEN = (
    "Forbidden. For troubleshooting Function URL authorization issues, see: "
    "https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html"
)
#: a Signature Version 4 Authorization header's credential: access key, date, region, service
CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/\d{8}/([a-z0-9-]+)/([a-z0-9-]+)/aws4_request")


def _actions(statement: dict[str, Any]) -> set[str]:
    action = statement.get("Action", [])
    return set(action if isinstance(action, list) else [action])


def _principals(statement: dict[str, Any]) -> set[str]:
    principal = statement.get("Principal")
    if principal == "*":
        return {"*"}
    if isinstance(principal, dict):
        given = principal.get("AWS", [])
        return set(given if isinstance(given, list) else [given])
    return set()


def _conditions_hold(statement: dict[str, Any], holding: dict[str, str]) -> bool:
    """Every condition of the statement is one of `holding`'s keys with its value (case-insensitive keys)."""
    for operator, pairs in statement.get("Condition", {}).items():
        if operator not in ("StringEquals", "Bool"):
            return False
        for key, value in pairs.items():
            if holding.get(key.lower()) != str(value).lower():
                return False
    return True


def _matching(
    policy: list[dict[str, Any]], effect: str, action: str, principals: set[str], holding: dict[str, str]
) -> bool:
    return any(
        statement.get("Effect") == effect
        and _actions(statement) & {action, "lambda:*", "*"}
        and _principals(statement) & principals
        and _conditions_hold(statement, holding)
        for statement in policy
    )


def _allows(policy: list[dict[str, Any]], action: str, principals: set[str], holding: dict[str, str]) -> bool:
    """An Allow statement matches and no Deny does: in IAM's evaluation an explicit Deny wins over any Allow
    (docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html)."""
    return _matching(policy, "Allow", action, principals, holding) and not _matching(
        policy, "Deny", action, principals, holding
    )


def public_access(policy: list[dict[str, Any]]) -> bool:
    """Whether a policy lets anyone call an AuthType NONE URL."""
    return _allows(
        policy, "lambda:InvokeFunctionUrl", {"*"}, {"lambda:functionurlauthtype": "none"}
    ) and _allows(policy, "lambda:InvokeFunction", {"*"}, {"lambda:invokedviafunctionurl": "true"})


def signed_caller(authorization: str, query: str) -> tuple[str, str] | None:
    """(access key, region) of a request signed with Signature Version 4 for Lambda (in its Authorization header or
    its query), else None."""
    if authorization.startswith("AWS4-HMAC-SHA256") and "Signature=" in authorization:
        match = CREDENTIAL.search(authorization)
    else:
        match = re.search(r"X-Amz-Credential=([^%&/]+)(?:%2F|/)\d{8}(?:%2F|/)([a-z0-9-]+)(?:%2F|/)([a-z0-9-]+)", query)
        match = match if match and "X-Amz-Signature=" in query else None
    if match is None or match.group(3) != "lambda":
        return None
    return match.group(1), match.group(2)


def iam_access(policy: list[dict[str, Any]], caller_account: str, owner_account: str) -> bool:
    """Whether a signed caller of `caller_account` may call an AuthType AWS_IAM URL of `owner_account`'s function."""
    named = {"*", caller_account, f"arn:aws:iam::{caller_account}:root"}
    holding = {"lambda:functionurlauthtype": "aws_iam"}
    if caller_account == owner_account:
        return not _matching(policy, "Deny", "lambda:InvokeFunctionUrl", named, holding)
    return _allows(policy, "lambda:InvokeFunctionUrl", named, holding)
