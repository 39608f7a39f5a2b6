"""A ProjectionExpression read as DynamoDB's parser reads it, before any table is read: a syntax error named by its
token and what is near it, then a reserved word used as a name.

    check("GetItem", {"ProjectionExpression": "!!! INVALID !!!", ...})
    # ValidationException: Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"

The grammar: paths separated by commas; a path is a name (`a`, or a placeholder `#a`) followed by `.name` or `[N]`
parts. Anything else is a syntax error at the first token that cannot be where it is (`<EOF>` when the expression ends
too soon); `near` is that token with the token before it and the token after it, each with the white space between
(a white space token brings the one beyond it). Sources, all written against DynamoDB: the AWS-run conformance suite
nubo-db/dynamodb-conformance (tests/tier3/error-messages/getItem.test.ts `'!!! INVALID !!!'` and
transactGetItems.test.ts `'!!!'`: token "!", near "!!"; updateItem.test.ts, the same rule for an UpdateExpression:
token "INVALID", near "INVALID SYNTAX"); dynalite's test/getItem.js (`'whatever(stuff)'`, `':a'`, `'abort,'`, `'a,,b'`,
`'a..b'`, `'a[b]'`, `'(a)'`, `'a-b'` are syntax errors; `'a.abORt'` and `'#a,ABSoLUTE'` reserved words, named as
written). A name starts with a letter: `_a` is a syntax error at "_" (a DynamoDB user's record of AWS's answer).

The operations that carry one: GetItem, Query and Scan (ProjectionExpression), BatchGetItem (each table's),
TransactGetItems (each Get's: refused for the whole request, before any action is read).
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from eddy.emulator.errors import ValidationException

_TOKEN = re.compile(
    r"(?P<space>\s+)|(?P<name>[A-Za-z][A-Za-z0-9_]*)|(?P<placeholder>#[A-Za-z0-9_]+)"
    r"|(?P<value>:[A-Za-z0-9_]+)|(?P<number>[0-9]+)|(?P<other><>|<=|>=|.)",
    re.S,
)
EOF = "<EOF>"
#: the operations whose request holds its ProjectionExpression as its own member
_OWN_MEMBER = frozenset({"GetItem", "Query", "Scan"})


def check(operation: str, params: dict[str, Any]) -> None:
    if operation in _OWN_MEMBER:  # one ProjectionExpression at most, read here without _expressions' generator
        expression = params.get("ProjectionExpression")
        if isinstance(expression, str) and expression.strip():
            check_expression(expression)
        return
    for expression in _expressions(operation, params):
        check_expression(expression)


def check_expression(expression: str) -> None:
    """ValidationException in DynamoDB's words if `expression` (not empty: validation refuses that) is not a
    projection; else nothing."""
    tokens = [(match.lastgroup, match.group()) for match in _TOKEN.finditer(expression)]
    at = _syntax_error(tokens)
    if at is not None:
        token = tokens[at][1] if at < len(tokens) else EOF
        raise ValidationException(
            f'Invalid ProjectionExpression: Syntax error; token: "{token}", near: "{_near(tokens, at)}"'
        )
    from eddy.emulator.moto_seam.dynamodb_rules import reserved_word  # moto's list of DynamoDB's reserved words

    for kind, text in tokens:
        if kind == "name" and reserved_word(text):
            raise ValidationException(
                f"Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: {text}"
            )


def _syntax_error(tokens: list[tuple[str | None, str]]) -> int | None:
    """The index of the first token out of place (len(tokens): the expression ended too soon), None if none is."""
    significant = [at for at, (kind, _) in enumerate(tokens) if kind != "space"]
    expected = "path"  # path: a name; after: ".", "[", "," or the end; then: what follows "." or "[" or "]"
    for step, at in enumerate(significant):
        kind, text = tokens[at]
        if expected in ("path", "dotted") and kind not in ("name", "placeholder"):
            return at
        if expected in ("path", "dotted"):
            expected = "after"
        elif expected == "after":
            if text not in (".", "[", ","):
                return at
            expected = {".": "dotted", "[": "index", ",": "path"}[text]
        elif expected == "index":
            if kind != "number":
                return at
            expected = "close"
        elif expected == "close":
            if text != "]":
                return at
            expected = "after"
    return None if expected == "after" else len(tokens)


def _near(tokens: list[tuple[str | None, str]], at: int) -> str:
    """The token at `at` with its neighbours as DynamoDB shows them (a white space neighbour brings the next one)."""
    start = at - 1 if at > 0 else at
    if start < at and tokens[start][0] == "space" and start > 0:
        start -= 1
    end = at + 1 if at < len(tokens) else at
    if end < len(tokens):
        end += 1
        if tokens[end - 1][0] == "space" and end < len(tokens):
            end += 1
    return "".join(text for _, text in tokens[start:end])


def _expressions(operation: str, params: dict[str, Any]) -> Iterator[str]:
    """Each ProjectionExpression of the request that is a string with something in it."""
    found: list[Any] = []
    if operation in _OWN_MEMBER:
        found.append(params.get("ProjectionExpression"))
    elif operation == "BatchGetItem" and isinstance(params.get("RequestItems"), dict):
        found.extend(
            keys.get("ProjectionExpression") for keys in params["RequestItems"].values() if isinstance(keys, dict)
        )
    elif operation == "TransactGetItems" and isinstance(params.get("TransactItems"), list):
        found.extend(
            item["Get"].get("ProjectionExpression")
            for item in params["TransactItems"]
            if isinstance(item, dict) and isinstance(item.get("Get"), dict)
        )
    return (expression for expression in found if isinstance(expression, str) and expression.strip())
