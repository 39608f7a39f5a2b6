"""PartiQL statements moto's parser cannot read, rewritten into equal ones it can, before moto sees them.

moto's PartiQL parser takes only string literals and `?` parameters as the values of an UPDATE's SET, so
`UPDATE t SET v = 2 WHERE pk = 'p1'` fails there although DynamoDB runs it. Each literal of another type in a
SET (a number, true/false, null, a list `[...]`, a map `{...}`, a set `<<...>>`) becomes a `?` and its
AttributeValue is put among the statement's parameters at the same place, which is exactly what the statement
means.

    statement, parameters = with_literals_as_parameters("UPDATE t SET v = 2 WHERE pk = 'p1'", [])
    # -> "UPDATE t SET v = ? WHERE pk = 'p1'", [{"N": "2"}]
"""

from __future__ import annotations

import re
from typing import Any

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_WORD = re.compile(r"[A-Za-z_]+")
_SET = re.compile(r"\bSET\b", re.I)
_END_OF_VALUE = re.compile(r"\s*(?:,|\bWHERE\b|\bSET\b|\bREMOVE\b|$)", re.I)


class _NotALiteral(Exception):
    pass


def with_literals_as_parameters(statement: str, parameters: list[Any] | None) -> tuple[str, list[Any] | None]:
    """The statement with its UPDATE ... SET literals as `?` parameters (unchanged if it has none)."""
    if not isinstance(statement, str) or not statement.lstrip()[:6].upper() == "UPDATE":
        return statement, parameters
    given, parameters = parameters, list(parameters or [])
    out: list[str] = []
    added = False
    position, marks, in_set = 0, 0, False
    while position < len(statement):
        char = statement[position]
        if char in "'\"":
            end = _quoted_end(statement, position)
            out.append(statement[position:end])
            position = end
            continue
        if char == "?":
            marks += 1
        elif _SET.match(statement, position) and (position == 0 or not statement[position - 1].isalnum()):
            in_set = True
        elif _WORD.match(statement, position) and statement[position:position + 5].upper() in ("WHERE", "REMOV"):
            in_set = False
        elif char == "=" and in_set:
            start = position + 1
            while start < len(statement) and statement[start].isspace():
                start += 1
            if start < len(statement) and statement[start] not in "'\"?":
                try:
                    value, end = _literal(statement, start)
                except _NotALiteral:
                    value = None
                if value is not None and _END_OF_VALUE.match(statement, end):
                    out.append(statement[position:start] + "?")
                    parameters.insert(marks, value)
                    marks += 1
                    added = True
                    position = end
                    continue
        out.append(char)
        position += 1
    return ("".join(out), parameters) if added else (statement, given)


def rewrite(operation: str, params: dict[str, Any]) -> bool:
    """Rewrite the statements of an ExecuteStatement, BatchExecuteStatement or ExecuteTransaction request in
    place; whether any changed."""
    if operation == "ExecuteStatement":
        entries = [params]
    elif operation in ("BatchExecuteStatement", "ExecuteTransaction"):
        entries = params.get("Statements" if operation == "BatchExecuteStatement" else "TransactStatements") or []
    else:
        return False
    changed = False
    for entry in entries:
        statement, parameters = with_literals_as_parameters(entry.get("Statement"), entry.get("Parameters"))
        if statement != entry.get("Statement"):
            entry["Statement"], entry["Parameters"] = statement, parameters
            changed = True
    return changed


def _quoted_end(text: str, start: int) -> int:
    """The index after a quoted string or name ('...' or "..."), a doubled quote inside being one quote."""
    quote, position = text[start], start + 1
    while position < len(text):
        if text[position] == quote:
            if text[position + 1:position + 2] == quote:
                position += 2
                continue
            return position + 1
        position += 1
    return len(text)


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _literal(text: str, position: int) -> tuple[dict[str, Any], int]:
    """One PartiQL literal at `position` as an AttributeValue, and the index after it."""
    position = _skip(text, position)
    char = text[position:position + 1]
    if char == "'":
        end = _quoted_end(text, position)
        return {"S": text[position + 1:end - 1].replace("''", "'")}, end
    if text.startswith("<<", position):
        elements, end = _sequence(text, position + 2, ">>")
        if elements and all("S" in e for e in elements):
            return {"SS": [e["S"] for e in elements]}, end
        if elements and all("N" in e for e in elements):
            return {"NS": [e["N"] for e in elements]}, end
        raise _NotALiteral()
    if char == "[":
        elements, end = _sequence(text, position + 1, "]")
        return {"L": elements}, end
    if char == "{":
        return _map(text, position + 1)
    number = _NUMBER.match(text, position)
    if number:
        return {"N": number.group().lstrip("+")}, number.end()
    word = _WORD.match(text, position)
    if word and word.group().lower() in ("true", "false"):
        return {"BOOL": word.group().lower() == "true"}, word.end()
    if word and word.group().lower() == "null":
        return {"NULL": True}, word.end()
    raise _NotALiteral()


def _sequence(text: str, position: int, closing: str) -> tuple[list[dict[str, Any]], int]:
    elements: list[dict[str, Any]] = []
    position = _skip(text, position)
    while not text.startswith(closing, position):
        element, position = _literal(text, position)
        elements.append(element)
        position = _skip(text, position)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
        elif not text.startswith(closing, position):
            raise _NotALiteral()
    return elements, position + len(closing)


def _map(text: str, position: int) -> tuple[dict[str, Any], int]:
    members: dict[str, Any] = {}
    position = _skip(text, position)
    while not text.startswith("}", position):
        if text[position:position + 1] not in "'\"":
            raise _NotALiteral()
        end = _quoted_end(text, position)
        key = text[position + 1:end - 1]
        position = _skip(text, end)
        if not text.startswith(":", position):
            raise _NotALiteral()
        members[key], position = _literal(text, position + 1)
        position = _skip(text, position)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
        elif not text.startswith("}", position):
            raise _NotALiteral()
    return {"M": members}, position + 1
