"""The trees PartiQL statements are read into (syntax.py): statements, conditions, operands; `?` marks
already replaced by their parameters, so a Value holds an AttributeValue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union


@dataclass(frozen=True)
class Path:
    elements: tuple[str | int, ...]  # attribute names, list indexes


@dataclass(frozen=True)
class Value:
    value: dict[str, Any]  # an AttributeValue


@dataclass(frozen=True)
class Call:
    name: str  # lower case
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Arithmetic:
    op: str  # + or -
    left: Any
    right: Any


@dataclass(frozen=True)
class Compare:
    op: str  # = <> < <= > >=
    left: Any
    right: Any


@dataclass(frozen=True)
class Logical:
    op: str  # AND, OR
    left: Any
    right: Any


@dataclass(frozen=True)
class Not:
    operand: Any


@dataclass(frozen=True)
class In:
    operand: Any
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Between:
    operand: Any
    low: Any
    high: Any


@dataclass(frozen=True)
class Is:
    operand: Any
    what: str  # MISSING or NULL
    negated: bool


Operand = Union[Path, Value, Call, Arithmetic]


@dataclass(frozen=True)
class Select:
    table: str
    index: str | None
    projection: tuple[Path, ...] | None  # None: *
    where: Any
    order_by: tuple[tuple[Path, bool], ...] = ()  # ORDER BY: each key and whether DESC


@dataclass(frozen=True)
class Insert:
    table: str
    item: dict[str, Any]


@dataclass(frozen=True)
class Update:
    table: str
    sets: tuple[tuple[Path, Any], ...]
    removes: tuple[Path, ...]
    where: Any
    returning: str | None  # ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW


@dataclass(frozen=True)
class Delete:
    table: str
    where: Any
    returning: str | None


@dataclass(frozen=True)
class Exists:
    select: Select


Statement = Union[Select, Insert, Update, Delete, Exists]


def is_read(statement: Statement) -> bool:
    return isinstance(statement, (Select, Exists))
