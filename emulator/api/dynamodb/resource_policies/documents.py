"""A resource-based policy document as DynamoDB reads it: refused in its words, or kept in its canonical form.

DynamoDB answers GetResourcePolicy with the document rewritten (AWS-recorded, the ack-api-quirks DynamoDB findings
DDB-TABLE-207, 208, 211, 351 to 356, verified 2026-10-09): minified, unicode escapes decoded; the top-level keys
Version then Statement; a Statement object a list of one; each statement's keys Sid, Effect, Principal, Action,
Resource, Condition (NotPrincipal, NotAction and NotResource in their namesakes' places); Effect "allow" as Allow;
an account id in {"AWS": ...} as the account's root ARN, a principal list without repeats; a list of one
(Action, Resource, a principal, a condition's values) as its one value, longer lists as sent. A document without
Version reads back with 2008-10-17 but is not the same document as one that says so: `sameness` leaves it out.

    canonical('{"Statement": {"Effect": "allow", "Principal": {"AWS": "111122223333"}, "Action": ["dynamodb:GetItem"],
               "Resource": "*"}}')
    # -> ('{"Version":"2008-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},'
    #     '"Action":"dynamodb:GetItem","Resource":"*"}]}', <its sameness>)
"""

from __future__ import annotations

import json
import re
from typing import Any

from eddy.emulator.errors import ValidationException

MAX_BYTES = 20480
INVALID = "One or more parameter values were invalid: "
UNBOUNDED = (
    "Resource-based policy grants unbounded access in one or more elements. Please revise the policy to "
    "ensure least-privilege form of access"
)
DEFAULT_VERSION = "2008-10-17"  # IAM's, for a document that names none (DDB-TABLE-354)
_STATEMENT_ORDER = (
    "Sid",
    "Effect",
    "Principal",
    "NotPrincipal",
    "Action",
    "NotAction",
    "Resource",
    "NotResource",
    "Condition",
)
_ONE_OR_MORE = ("Action", "NotAction", "Resource", "NotResource")
_ACCOUNT = re.compile(r"[0-9]{12}")


def canonical(document: str) -> tuple[str, str]:
    """(the document as GetResourcePolicy answers it, what another document must share to be the same policy);
    ValidationException in DynamoDB's words for a document it refuses."""
    if len(document.encode()) > MAX_BYTES:
        raise ValidationException(f"{INVALID}Maximum policy size of {MAX_BYTES} bytes exceeded")
    try:
        policy = json.loads(document)
    except ValueError:
        policy = None
    if not isinstance(policy, dict):
        raise _invalid("This policy contains invalid Json")
    statements = policy.get("Statement")
    if isinstance(statements, dict):
        statements = [statements]
    if statements is None:
        raise _invalid("Missing required field Statement")
    if not isinstance(statements, list) or not statements:
        raise _invalid("Could not parse the policy: Statement is empty!")
    rewritten = [_statement(statement) for statement in statements]
    sids = [statement["Sid"] for statement in rewritten if "Sid" in statement]
    if len(sids) != len(set(sids)):
        raise _invalid("The Statement Ids in the policy are not unique")
    if any(_unbounded(statement) for statement in rewritten):
        raise ValidationException(UNBOUNDED)
    others = {key: value for key, value in policy.items() if key not in ("Version", "Statement")}
    same = {**({"Version": policy["Version"]} if "Version" in policy else {}), "Statement": rewritten, **others}
    answered = {"Version": policy.get("Version", DEFAULT_VERSION), "Statement": rewritten, **others}
    return _minified(answered), _minified(same)


def _invalid(reason: str) -> ValidationException:
    return ValidationException(f"{INVALID}Invalid policy document: {reason}")


def _statement(statement: Any) -> dict[str, Any]:
    if not isinstance(statement, dict):
        raise _invalid("This policy contains invalid Json")
    for required, alternative in (
        ("Effect", None),
        ("Principal", "NotPrincipal"),
        ("Action", "NotAction"),
        ("Resource", "NotResource"),
    ):
        if required not in statement and alternative not in statement:
            raise _invalid(f"Missing required field {required}")
    rewritten: dict[str, Any] = {}
    for key in sorted(
        statement, key=lambda name: _STATEMENT_ORDER.index(name) if name in _STATEMENT_ORDER else len(_STATEMENT_ORDER)
    ):  # a key IAM does not know keeps its place after them
        value = statement[key]
        if key == "Effect" and isinstance(value, str) and value.lower() in ("allow", "deny"):
            value = value.capitalize()
        elif key in ("Principal", "NotPrincipal"):
            value = _principal(value)
        elif key in _ONE_OR_MORE:
            value = _one_as_itself(value)
        elif key == "Condition" and isinstance(value, dict):
            value = {
                operator: {name: _one_as_itself(values) for name, values in tests.items()}
                if isinstance(tests, dict)
                else tests
                for operator, tests in value.items()
            }
        rewritten[key] = value
    return rewritten


def _principal(principal: Any) -> Any:
    if not isinstance(principal, dict):
        return principal
    rewritten = {}
    for kind, names in principal.items():
        if kind == "AWS":
            names = [_root(name) for name in names] if isinstance(names, list) else _root(names)
        if isinstance(names, list):
            names = list(dict.fromkeys(names))  # the same principal once (DDB-TABLE-352)
        rewritten[kind] = _one_as_itself(names)
    return rewritten


def _root(name: Any) -> Any:
    return f"arn:aws:iam::{name}:root" if isinstance(name, str) and _ACCOUNT.fullmatch(name) else name


def _one_as_itself(value: Any) -> Any:
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def _unbounded(statement: dict[str, Any]) -> bool:
    """An Allow to everyone without a condition: DynamoDB's guardrail refuses it (DDB-TABLE-352, 356)."""
    if statement.get("Effect") != "Allow" or "Condition" in statement:
        return False
    principal = statement.get("Principal")
    if isinstance(principal, dict):
        principal = principal.get("AWS")
    return principal == "*" or (isinstance(principal, list) and "*" in principal)


def _minified(policy: dict[str, Any]) -> str:
    return json.dumps(policy, separators=(",", ":"), ensure_ascii=False)
