"""What one value in a pattern's array asks of one leaf value of an event (event-ruler's match types).

A leaf is a JSON string, number, true, false or null: strings are ``str``, ``true``/``false`` are ``bool``, null is
None and numbers are :class:`Number` (their JSON text and, where it has one, their value as a double). The rules are
AWS's (Amazon EventBridge User Guide, "Comparison operators for use in event patterns"; event-ruler's README):
prefix, suffix, equals-ignore-case and wildcard match strings only; numeric matches JSON numbers only; an exact
number matches a number of the same value (``5`` is ``5.0``); anything-but matches any leaf that is not one of its
values (a number, ``true`` or ``null`` is not one of its strings); an exact string that is an IP address matches
the same address however written; cidr matches strings that are addresses in the block.
"""

from __future__ import annotations

import abc

import ipaddress
import math
import re
from decimal import Decimal
from dataclasses import dataclass, field
from typing import Any

_IPV4 = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")
_IPV6 = re.compile(r"[0-9a-fA-F:]*:[0-9a-fA-F:]*")


@dataclass(frozen=True)
class Number:
    """A JSON number as written, and its value as a double (None where it has none: too large)."""

    text: str
    value: float | None = field(default=None, compare=False)

    @classmethod
    def of(cls, text: str) -> "Number":
        """A number whose double is exactly it (event-ruler compares no other: 12345678901234567890 has none)."""
        try:
            value = float(text)
            exact = math.isfinite(value) and Decimal(repr(value)) == Decimal(text)
        except (ValueError, ArithmeticError):
            return cls(text, None)
        return cls(text, value if exact else None)


def leaf_of(value: Any) -> Any:
    """A Python JSON value as a leaf (ints and floats become Numbers; anything else is itself)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return Number.of(repr(value) if isinstance(value, float) else str(value))


def ip_shaped(text: str) -> bool:
    """Whether ``text`` has the shape of an IPv4 or IPv6 address (event-ruler's two shapes)."""
    return bool(_IPV4.fullmatch(text) or _IPV6.fullmatch(text))


def ip_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``text`` as an IP address where it is written as one, else None."""
    if not ip_shaped(text):
        return None
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class Condition(abc.ABC):
    """One value of a pattern's array. ``absence`` conditions ({"exists": false}) match where no leaf is."""

    absence = False
    presence = False

    @abc.abstractmethod
    def matches(self, leaf: Any) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class Exact(Condition):
    """A string, true, false or null, matched as it is."""

    value: Any

    def matches(self, leaf: Any) -> bool:
        if isinstance(self.value, str):
            return isinstance(leaf, str) and leaf == self.value
        return leaf is self.value


@dataclass(frozen=True)
class ExactNumber(Condition):
    number: Number

    def matches(self, leaf: Any) -> bool:
        if not isinstance(leaf, Number):
            return False
        if leaf.text == self.number.text:
            return True
        return leaf.value is not None and self.number.value is not None and leaf.value == self.number.value


@dataclass(frozen=True)
class ExactAddress(Condition):
    """A pattern string written as an IP address: any string naming the same address."""

    address: Any

    def matches(self, leaf: Any) -> bool:
        return isinstance(leaf, str) and ip_address(leaf) == self.address


@dataclass(frozen=True)
class Affix(Condition):
    """prefix or suffix (``at_end``), exact or in any case."""

    text: str
    ignore_case: bool = False
    at_end: bool = False

    def matches(self, leaf: Any) -> bool:
        if not isinstance(leaf, str):
            return False
        value, text = (leaf.lower(), self.text.lower()) if self.ignore_case else (leaf, self.text)
        return value.endswith(text) if self.at_end else value.startswith(text)


def Prefix(text: str, ignore_case: bool = False) -> Affix:  # noqa: N802 (a condition's name, as the others')
    return Affix(text, ignore_case)


def Suffix(text: str, ignore_case: bool = False) -> Affix:  # noqa: N802
    return Affix(text, ignore_case, at_end=True)


@dataclass(frozen=True)
class EqualsIgnoreCase(Condition):
    text: str

    def matches(self, leaf: Any) -> bool:
        return isinstance(leaf, str) and leaf.lower() == self.text.lower()


@dataclass(frozen=True)
class Wildcard(Condition):
    """A wildcard pattern as parsed (wildcards.parse): its regular expression and its tokens."""

    regex: re.Pattern[str]
    tokens: tuple[str | None, ...]  # a character, or None for a wildcard

    def matches(self, leaf: Any) -> bool:
        return isinstance(leaf, str) and self.regex.fullmatch(leaf) is not None


@dataclass(frozen=True)
class AnythingBut(Condition):
    """anything-but of strings or of numbers: every leaf but those."""

    strings: frozenset[str] = frozenset()
    numbers: tuple[Number, ...] = ()

    def matches(self, leaf: Any) -> bool:
        if isinstance(leaf, str):
            return leaf not in self.strings
        if isinstance(leaf, Number):
            return not any(ExactNumber(number).matches(leaf) for number in self.numbers)
        return True


@dataclass(frozen=True)
class AnythingButOf(Condition):
    """anything-but of prefixes, suffixes, strings in any case, or wildcards: every leaf none of them matches."""

    conditions: tuple[Condition, ...]

    def matches(self, leaf: Any) -> bool:
        return not isinstance(leaf, str) or not any(c.matches(leaf) for c in self.conditions)


@dataclass(frozen=True)
class NumericRange(Condition):
    """numeric: a JSON number between ``bottom`` and ``top`` (None: unbounded), each bound open or closed."""

    bottom: float | None
    bottom_open: bool
    top: float | None
    top_open: bool

    def matches(self, leaf: Any) -> bool:
        if not isinstance(leaf, Number) or leaf.value is None:
            return False
        value = leaf.value
        if self.bottom is not None and (value < self.bottom or (self.bottom_open and value == self.bottom)):
            return False
        return self.top is None or not (value > self.top or (self.top_open and value == self.top))


@dataclass(frozen=True)
class Cidr(Condition):
    network: Any

    def matches(self, leaf: Any) -> bool:
        if not isinstance(leaf, str):
            return False
        address = ip_address(leaf)
        return address is not None and address.version == self.network.version and address in self.network


@dataclass(frozen=True)
class Exists(Condition):
    """exists: true (a leaf is there) or false (none is)."""

    wanted: bool

    @property
    def absence(self) -> bool:  # type: ignore[override]
        return not self.wanted

    @property
    def presence(self) -> bool:  # type: ignore[override]
        return self.wanted

    def matches(self, leaf: Any) -> bool:
        return self.wanted
