"""PartiQL-for-DynamoDB statements read into plain trees (SELECT, INSERT, UPDATE, DELETE, EXISTS).

`?` marks are replaced by the request's parameters in the order they appear, so a tree holds only
AttributeValues; a statement that does not read as AWS's grammar is AWS's ValidationException.

    parse("UPDATE t SET v = v + 1 WHERE pk = ?", [{"S": "p1"}])
    # -> Update(table="t", sets=((Path(("v",)), Arithmetic("+", Path(("v",)), Value({"N": "1"}))),), removes=(),
    #           where=Compare("=", Path(("pk",)), Value({"S": "p1"})), returning=None)
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.api.dynamodb.partiql import tree
from eddy.emulator.api.dynamodb.rules.numbers import as_stored
from eddy.emulator.api.dynamodb.partiql.lexer import NOT_WELL_FORMED, Token, tokens
from eddy.emulator.errors import ValidationException

_RETURNING = {
    ("ALL", "OLD"): "ALL_OLD",
    ("MODIFIED", "OLD"): "UPDATED_OLD",
    ("ALL", "NEW"): "ALL_NEW",
    ("MODIFIED", "NEW"): "UPDATED_NEW",
}
_COMPARISONS = {"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def parse(statement: str, parameters: list[dict[str, Any]] | None) -> tree.Statement:
    return _Parser(statement, parameters or []).statement()


class _Parser:
    def __init__(self, statement: str, parameters: list[dict[str, Any]]) -> None:
        self.tokens = tokens(statement)
        self.at = 0
        self.parameters = parameters
        self.used = 0

    # -- tokens --

    @property
    def token(self) -> Token:
        return self.tokens[self.at]

    def advance(self) -> Token:
        token = self.tokens[self.at]
        self.at = min(self.at + 1, len(self.tokens) - 1)
        return token

    def unexpected(self, token: Token | None = None) -> ValidationException:
        token = token or self.token
        if token.kind == "end":
            return ValidationException(f"{NOT_WELL_FORMED}Unexpected end of statement")
        kind = "keyword" if token.kind == "word" and token.text.upper() in _KEYWORDS else "token"
        return ValidationException(f"{NOT_WELL_FORMED}Unexpected {kind}: {token.text}")

    def word(self, *words: str) -> None:
        if not self.token.is_word(*words):
            raise self.unexpected()
        self.advance()

    def punct(self, mark: str) -> None:
        if not self.token.is_punct(mark):
            raise self.unexpected()
        self.advance()

    def accept_word(self, *words: str) -> bool:
        if self.token.is_word(*words):
            self.advance()
            return True
        return False

    def accept_punct(self, mark: str) -> bool:
        if self.token.is_punct(mark):
            self.advance()
            return True
        return False

    def name(self) -> str:
        token = self.token
        if token.kind == "name" or (token.kind == "word" and token.text.upper() not in _KEYWORDS):
            self.advance()
            return token.text
        raise self.unexpected()

    def table(self) -> str:
        """A table or index name; a bare one may hold hyphens (`FROM my-table`, as moto reads it), its parts
        written with nothing between them."""
        first = self.token
        name = self.name()
        if first.kind != "word":
            return name
        end = first.position + len(first.text)
        while self.token.position == end and (self.token.kind in ("word", "number") or self.token.is_punct("-")):
            name += self.token.text
            end += len(self.advance().text)
        return name

    # -- statements --

    def statement(self) -> tree.Statement:
        if self.accept_word("SELECT"):
            parsed: tree.Statement = self.select()
        elif self.accept_word("INSERT"):
            parsed = self.insert()
        elif self.accept_word("UPDATE"):
            parsed = self.update()
        elif self.accept_word("DELETE"):
            parsed = self.delete()
        elif self.accept_word("EXISTS"):
            self.punct("(")
            self.word("SELECT")
            parsed = tree.Exists(self.select())
            self.punct(")")
        else:
            raise self.unexpected()
        self.accept_punct(";")
        if self.token.kind != "end":
            raise self.unexpected()
        if self.used != len(self.parameters):
            raise ValidationException("Number of parameters in request and statement don't match.")
        return parsed

    def select(self) -> tree.Select:
        projection: tuple[tree.Path, ...] | None = None
        if not self.accept_punct("*"):
            paths = [self.path()]
            while self.accept_punct(","):
                paths.append(self.path())
            projection = tuple(paths)
        self.word("FROM")
        table = self.table()
        index = self.table() if self.accept_punct(".") else None
        where = self.condition() if self.accept_word("WHERE") else None
        order_by: list[tuple[tree.Path, bool]] = []
        if self.accept_word("ORDER"):
            self.word("BY")
            while True:
                key = self.path()
                descending = self.accept_word("DESC")
                if not descending:
                    self.accept_word("ASC")
                order_by.append((key, descending))
                if not self.accept_punct(","):
                    break
        return tree.Select(table, index, projection, where, tuple(order_by))

    def insert(self) -> tree.Insert:
        self.word("INTO")
        table = self.table()
        self.word("VALUE")
        item = self.literal()
        if "M" not in item:
            raise ValidationException(f"{NOT_WELL_FORMED}Unexpected type for VALUE: an item is a map {{...}}")
        return tree.Insert(table, item["M"])

    def update(self) -> tree.Update:
        table = self.table()
        sets: list[tuple[tree.Path, Any]] = []
        removes: list[tree.Path] = []
        if not self.token.is_word("SET", "REMOVE"):
            raise self.unexpected()
        while self.token.is_word("SET", "REMOVE"):
            if self.advance().text.upper() == "SET":
                while True:
                    path = self.path()
                    self.punct("=")
                    sets.append((path, self.sum()))
                    if not self.accept_punct(","):
                        break
            else:
                removes.append(self.path())
                while self.accept_punct(","):
                    removes.append(self.path())
        self.word("WHERE")
        where = self.condition()
        return tree.Update(table, tuple(sets), tuple(removes), where, self.returning())

    def delete(self) -> tree.Delete:
        self.word("FROM")
        table = self.table()
        self.word("WHERE")
        where = self.condition()
        returning = self.returning()
        if returning not in (None, "ALL_OLD"):
            raise ValidationException(f"{NOT_WELL_FORMED}DELETE returns only ALL OLD *")
        return tree.Delete(table, where, returning)

    def returning(self) -> str | None:
        if not self.accept_word("RETURNING"):
            return None
        which = self.advance().text.upper()
        age = self.advance().text.upper()
        self.punct("*")
        if (which, age) not in _RETURNING:
            raise ValidationException(f"{NOT_WELL_FORMED}Unexpected RETURNING {which} {age}")
        return _RETURNING[(which, age)]

    # -- conditions --

    def condition(self) -> Any:
        left = self.conjunction()
        while self.accept_word("OR"):
            left = tree.Logical("OR", left, self.conjunction())
        return left

    def conjunction(self) -> Any:
        left = self.negation()
        while self.accept_word("AND"):
            left = tree.Logical("AND", left, self.negation())
        return left

    def negation(self) -> Any:
        if self.accept_word("NOT"):
            return tree.Not(self.negation())
        return self.predicate()

    def predicate(self) -> Any:
        if self.accept_punct("("):
            inner = self.condition()
            self.punct(")")
            return inner
        left = self.sum()
        token = self.token
        if token.kind == "punct" and token.text in _COMPARISONS:
            self.advance()
            return tree.Compare(_COMPARISONS[token.text], left, self.sum())
        if self.accept_word("IN"):
            closing = "]" if self.accept_punct("[") else ")"
            if closing == ")":
                self.punct("(")
            values = [self.sum()]
            while self.accept_punct(","):
                values.append(self.sum())
            self.punct(closing)
            return tree.In(left, tuple(values))
        if self.accept_word("BETWEEN"):
            low = self.sum()
            self.word("AND")
            return tree.Between(left, low, self.sum())
        if self.accept_word("IS"):
            negated = self.accept_word("NOT")
            token = self.advance()
            what = token.text.upper()
            if what not in ("MISSING", "NULL"):
                raise self.unexpected(token)
            return tree.Is(left, what, negated)
        if isinstance(left, tree.Call):
            return left
        raise self.unexpected()

    # -- operands --

    def sum(self) -> Any:
        left = self.operand()
        while self.token.is_punct("+", "-"):
            op = self.advance().text
            left = tree.Arithmetic(op, left, self.operand())
        return left

    def operand(self) -> Any:
        token = self.token
        if token.kind == "word" and self.tokens[self.at + 1].is_punct("(") and token.text.upper() not in _KEYWORDS:
            self.advance()
            self.advance()
            args = [] if self.token.is_punct(")") else [self.sum()]
            while self.accept_punct(","):
                args.append(self.sum())
            self.punct(")")
            return tree.Call(token.text.lower(), tuple(args))
        if token.kind == "name" or (token.kind == "word" and token.text.upper() not in _LITERAL_WORDS):
            return self.path()
        return tree.Value(self.literal())

    def path(self) -> tree.Path:
        elements: list[str | int] = [self.name()]
        while True:
            if self.accept_punct("."):
                elements.append(self.name())
            elif self.accept_punct("["):
                if self.token.kind != "number" or not self.token.text.isdigit():
                    raise self.unexpected()
                elements.append(int(self.advance().text))
                self.punct("]")
            else:
                return tree.Path(tuple(elements))

    def literal(self) -> dict[str, Any]:
        token = self.advance()
        if token.kind == "string":
            return {"S": token.text}
        if token.kind == "number":  # as DynamoDB stores it: 1.50 is 1.5, 0042 is 42
            return {"N": as_stored(token.text)}
        if token.is_punct("-") and self.token.kind == "number":
            return {"N": as_stored("-" + self.advance().text)}
        if token.is_punct("?"):
            if self.used >= len(self.parameters):
                raise ValidationException("Number of parameters in request and statement don't match.")
            self.used += 1
            return self.parameters[self.used - 1]
        if token.is_word("TRUE", "FALSE"):
            return {"BOOL": token.text.upper() == "TRUE"}
        if token.is_word("NULL"):
            return {"NULL": True}
        if token.is_punct("["):
            return {"L": self.elements("]")}
        if token.is_punct("<<"):
            return _set_of(self.elements(">>"))
        if token.is_punct("{"):
            members: dict[str, Any] = {}
            while not self.accept_punct("}"):
                if self.token.kind not in ("string", "name"):
                    raise self.unexpected()
                key = self.advance().text
                self.punct(":")
                members[key] = self.literal()
                if not self.accept_punct(","):
                    self.punct("}")
                    break
            return {"M": members}
        raise self.unexpected(token)

    def elements(self, closing: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        while not self.accept_punct(closing):
            found.append(self.literal())
            if not self.accept_punct(","):
                self.punct(closing)
                break
        return found


def _set_of(elements: list[dict[str, Any]]) -> dict[str, Any]:
    for kind in ("S", "N", "B"):
        if elements and all(set(element) == {kind} for element in elements):
            return {kind + "S": [element[kind] for element in elements]}
    raise ValidationException(f"{NOT_WELL_FORMED}A set holds one type, strings, numbers or binaries, and is not empty")


_LITERAL_WORDS = frozenset({"TRUE", "FALSE", "NULL"})
_KEYWORDS = _LITERAL_WORDS | frozenset(
    {
        "SELECT",
        "FROM",
        "WHERE",
        "AND",
        "OR",
        "NOT",
        "IN",
        "BETWEEN",
        "IS",
        "MISSING",
        "INSERT",
        "INTO",
        "VALUE",
        "UPDATE",
        "SET",
        "REMOVE",
        "DELETE",
        "RETURNING",
        "ORDER",
        "BY",
        "ASC",
        "DESC",
        "EXISTS",
    }
)
