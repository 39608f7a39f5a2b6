"""An event pattern's grammar: the pattern read and checked as AWS compiles it, into the rule's branches.

The rules and AWS's reasons are event-ruler's (github.com/aws/event-ruler: README, "Compiling and checking rules";
the reasons as LocalStack's AWS-validated snapshots recorded them, tests/aws/services/events/
test_events_patterns.snapshot.json): a pattern is a JSON object of fields, each an object (nesting) or a non-empty
array of values; a value is a string, number, true, false, null or a one-key match expression (exactly, prefix,
suffix, equals-ignore-case, wildcard, anything-but, numeric, cidr, exists). ``$or`` takes an array of at least two
objects, whose fields may not be the reserved words. Each branch of the result is one way to match: the ``$or``s
multiplied out, each a map of dotted paths to the values any of which must match.

Every refusal is made where AWS makes it, with the place in the pattern AWS names (json_source.py).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from eddy.emulator.event_patterns import conditions as c
from eddy.emulator.event_patterns import json_source as j
from eddy.emulator.event_patterns import wildcards

Branch = dict[str, list[c.Condition]]

OR = "$or"
MATCH_TYPES = frozenset(
    {"exactly", "prefix", "suffix", "equals-ignore-case", "wildcard", "anything-but", "numeric", "cidr", "exists"}
)
ANYTHING_BUT_KINDS = frozenset({"equals-ignore-case", "prefix", "suffix", "wildcard"})
RESERVED_IN_OR = MATCH_TYPES | {
    "=",
    "<",
    "<=",
    ">",
    ">=",
    "regex",
    "not-wildcard",
    "not-equals-ignore-case",
    "date-after",
    "date-on-or-after",
    "date-before",
    "date-on-or-before",
    "in-date-range",
    "ip-address-in-range",
    "ip-address-not-in-range",
}
NUMERIC_LIMIT = 5e9  # "Numeric matching ... is limited to values between -5.0e9 and +5.0e9 inclusive"
ONE_KEY = "Only one key allowed in match expression"
TOO_MANY_NUMERIC = "Too many elements in numeric expression"


@dataclass(frozen=True)
class Dialect:
    """Which match types a service takes (the others are "Unrecognized match type")."""

    name: str
    match_types: frozenset[str] = MATCH_TYPES
    anything_but_kinds: frozenset[str] = ANYTHING_BUT_KINDS
    anything_but_lists: frozenset[str] = ANYTHING_BUT_KINDS  # the kinds whose anything-but takes a list


def compile_branches(source: str, dialect: Dialect) -> list[Branch]:
    """The pattern's branches; JsonPatternError with AWS's reason (and location) where it is not valid."""
    return _Compiler(j.JsonSource(source), dialect).compile()


class _Compiler:
    def __init__(self, parser: j.JsonSource, dialect: Dialect) -> None:
        self.p, self.dialect = parser, dialect

    def compile(self) -> list[Branch]:
        if self.p.next_token() != j.START_OBJECT:
            raise self.p.fail("Filter is not an object")
        branches: list[Branch] = []
        self._object(branches, [], in_or=False)
        return branches

    def _object(self, branches: list[Branch], path: list[str], in_or: bool) -> None:
        p, fields = self.p, False
        while p.next_token() != j.END_OBJECT:
            fields = True
            name = p.name or ""
            if name == OR:
                self._or(branches, path)
                continue
            if in_or and name in RESERVED_IN_OR:
                raise p.fail(f"{name} is Ruler reserved fieldName which cannot be used inside {OR}.")
            kind = p.next_token()
            if kind == j.START_OBJECT:
                self._object(branches, [*path, name], in_or)
            elif kind == j.START_ARRAY:
                self._values(branches, ".".join([*path, name]))
            else:
                raise p.fail(f'"{name}" must be an object or an array')
        if not fields:
            raise p.fail("Empty objects are not allowed")

    def _or(self, branches: list[Branch], path: list[str]) -> None:
        p = self.p
        before = [dict(branch) for branch in branches]
        branches.clear()
        if p.next_token() != j.START_ARRAY:
            raise p.fail(f"It must be an Array followed with {OR}.")
        count = 0
        while (kind := p.next_token()) != j.END_ARRAY:
            count += 1
            if kind != j.START_OBJECT:
                raise p.fail(f"Only JSON object is allowed in array of {OR} relationship.")
            forked = [dict(branch) for branch in before] or [{}]
            self._object(forked, path, in_or=True)
            branches.extend(forked)
        if count < 2:
            raise p.fail(f"There must have at least 2 Objects in {OR} relationship.")

    def _values(self, branches: list[Branch], name: str) -> None:
        p = self.p
        values: list[c.Condition] = []
        while (kind := p.next_token()) != j.END_ARRAY:
            if kind == j.START_OBJECT:
                values.append(self._match_expression())
            elif kind == j.STRING:
                text = p.text
                address = c.ip_address(text)
                values.append(c.Exact(text) if address is None else c.ExactAddress(address))
            elif kind in j.NUMBERS:
                values.append(c.ExactNumber(c.Number.of(p.text)))
            elif kind in (j.TRUE, j.FALSE, j.NULL):
                values.append(c.Exact(p.value))
            else:
                raise p.fail("Match value must be String, number, true, false, or null")
        if not values:
            raise p.fail("Empty arrays are not allowed")
        if not branches:
            branches.append({})
        for branch in branches:
            branch[name] = values  # a path given twice: the later wins, as on AWS

    # --- match expressions -------------------------------------------------------------------------------------

    def _match_expression(self) -> c.Condition:
        p = self.p
        if p.next_token() != j.FIELD_NAME:
            raise p.fail("Match expression name not found")
        match_type = p.name or ""
        if match_type not in self.dialect.match_types:
            raise p.fail(f"Unrecognized match type {match_type}")
        if match_type == "numeric":
            if p.next_token() != j.START_ARRAY:
                raise p.fail("Value of numeric must be an array.")
            numeric = self._numeric()
            if p.next_token() != j.END_OBJECT:
                raise p.fail(TOO_MANY_NUMERIC)
            return numeric
        if match_type == "anything-but":
            return self._anything_but()
        if match_type == "exists":
            kind = p.next_token()
            if kind not in (j.TRUE, j.FALSE):
                raise p.fail("exists match pattern must be either true or false.")
            return self._closed(c.Exists(kind == j.TRUE))
        kind = p.next_token()
        if match_type in ("prefix", "suffix") and kind == j.START_OBJECT:
            return self._ignoring_case(match_type)
        if kind != j.STRING:
            shown = {"exactly": "exact", "cidr": "prefix"}.get(match_type, match_type)
            raise p.fail(f"{shown} match pattern must be a string")
        text = p.text
        if match_type == "cidr":
            return self._closed(cidr(text))
        if match_type == "wildcard":
            return self._closed(self._wildcard(text))
        condition = {
            "exactly": lambda: c.Exact(text),
            "prefix": lambda: c.Prefix(text),
            "suffix": lambda: c.Suffix(text),
            "equals-ignore-case": lambda: c.EqualsIgnoreCase(text),
        }
        return self._closed(condition[match_type]())

    def _closed(self, condition: c.Condition) -> c.Condition:
        if self.p.next_token() != j.END_OBJECT:
            raise self.p.fail(ONE_KEY)
        return condition

    def _ignoring_case(self, match_type: str) -> c.Condition:
        p, title = self.p, match_type.capitalize()
        if p.next_token() != j.FIELD_NAME:
            raise p.fail(f"{title} expression name not found")
        if p.name != "equals-ignore-case":
            raise p.fail(f"Unsupported {match_type} pattern: {p.name}")
        if p.next_token() != j.STRING:
            raise p.fail("equals-ignore-case match pattern must be a string")
        text = p.text
        condition = c.Prefix(text, True) if match_type == "prefix" else c.Suffix(text, True)
        self._closed(condition)  # the {"equals-ignore-case": ...} object, then the match expression
        return self._closed(condition)

    def _wildcard(self, text: str) -> c.Wildcard:
        try:
            return wildcards.parse(text)
        except wildcards.WildcardSyntaxError as error:
            raise self.p.fail(str(error)) from None

    def _numeric(self) -> c.NumericRange:
        p = self.p
        if p.next_token() != j.STRING:
            raise p.fail(f"Invalid member in numeric match: {p.text}")
        operator = p.text
        kind = p.next_token()
        if operator not in ("=", ">=", ">", "<=", "<"):
            raise p.fail(f"Unrecognized numeric range operator: {operator}")
        if kind not in j.NUMBERS:
            raise p.fail(f"Value of {'equals' if operator == '=' else operator} must be numeric")
        value = self._comparable(p.text)
        if operator in ("=", "<=", "<"):
            if p.next_token() != j.END_ARRAY:
                raise p.fail(TOO_MANY_NUMERIC)
            if operator == "=":
                return c.NumericRange(value, False, value, False)
            return c.NumericRange(None, False, value, operator == "<")
        kind = p.next_token()
        if kind == j.END_ARRAY:
            return c.NumericRange(value, operator == ">", None, False)
        if kind != j.STRING:
            raise p.fail(f"Bad value in numeric range: {p.text}")
        top_operator = p.text
        if top_operator not in ("<", "<="):
            raise p.fail(f"Bad numeric range operator: {top_operator}")
        if p.next_token() not in j.NUMBERS:
            raise p.fail(f"Value of {top_operator} must be numeric")
        top = self._comparable(p.text)
        if p.next_token() != j.END_ARRAY:
            raise p.fail("Too many terms in numeric range expression")
        if top <= value:
            raise p.fail("Bottom must be less than top")
        return c.NumericRange(value, operator == ">", top, top_operator == "<")

    def _comparable(self, text: str) -> float:
        number = c.Number.of(text)
        if number.value is None or abs(number.value) > NUMERIC_LIMIT:
            raise self.p.fail("Value must be between -5.0E9 and 5.0E9, inclusive")
        return number.value

    def _anything_but(self) -> c.Condition:
        p = self.p
        kind, of = p.next_token(), None
        if kind == j.START_OBJECT:
            if p.next_token() != j.FIELD_NAME:
                raise p.fail("Anything-But expression name not found")
            of = p.name or ""
            if of not in ANYTHING_BUT_KINDS or of not in self.dialect.anything_but_kinds:
                raise p.fail(f"Unsupported anything-but pattern: {of}")
            kind = p.next_token()
        if of is not None and of not in self.dialect.anything_but_lists and kind != j.STRING:
            raise p.fail(f"{of} match pattern must be a string")  # the services that take one value only
        if kind not in (j.START_ARRAY, j.STRING, *j.NUMBERS):
            raise p.fail("Value of anything-but must be an array or single string/number value.")
        if of is None:
            condition = self._anything_but_list() if kind == j.START_ARRAY else self._anything_but_value(kind)
        else:
            condition = self._anything_but_of(of, kind == j.START_ARRAY)
        if p.next_token() != j.END_OBJECT:
            raise p.fail(TOO_MANY_NUMERIC)
        if of is not None and p.next_token() != j.END_OBJECT:
            raise p.fail(TOO_MANY_NUMERIC)
        return condition

    def _anything_but_value(self, kind: str) -> c.AnythingBut:
        if kind == j.STRING:
            return c.AnythingBut(strings=frozenset([self.p.text]))
        self._comparable(self.p.text)
        return c.AnythingBut(numbers=(c.Number.of(self.p.text),))

    def _anything_but_list(self) -> c.AnythingBut:
        p = self.p
        strings: set[str] = set()
        numbers: list[c.Number] = []
        while (kind := p.next_token()) != j.END_ARRAY:
            if kind == j.STRING:
                strings.add(p.text)
            elif kind in j.NUMBERS:
                self._comparable(p.text)
                numbers.append(c.Number.of(p.text))
            else:
                raise self._twice("Inside anything but list, start|null|boolean is not supported.")
        if bool(strings) == bool(numbers):
            raise p.fail(
                "Inside anything but list, either all values are number or string, mixed type is not supported"
            )
        return c.AnythingBut(frozenset(strings), tuple(numbers))

    def _anything_but_of(self, of: str, is_list: bool) -> c.AnythingButOf:
        p = self.p
        texts: list[str] = []
        kind = p.kind
        while True:
            if is_list:
                kind = p.next_token()
                if kind == j.END_ARRAY:
                    break
            if kind != j.STRING:
                reason = {
                    "equals-ignore-case": "Inside anything-but/equals-ignore-case list, "
                    "number|start|null|boolean is not supported.",
                    "wildcard": "wildcard match pattern must be a string",
                }.get(of, "prefix/suffix match pattern must be a string")
                raise self._twice(reason) if is_list else p.fail(reason)
            text = p.text
            if of in ("prefix", "suffix") and not text:
                raise (
                    self._twice("Null prefix/suffix not allowed")
                    if is_list
                    else p.fail("Null prefix/suffix not allowed")
                )
            texts.append(text)
            if not is_list:
                break
        made = {
            "prefix": c.Prefix,
            "suffix": c.Suffix,
            "equals-ignore-case": c.EqualsIgnoreCase,
            "wildcard": self._wildcard,
        }[of]
        return c.AnythingButOf(tuple(made(text) for text in texts))

    def _twice(self, reason: str) -> j.JsonPatternError:
        """A refusal inside an anything-but list: AWS's compiler reports it, then reports its report again."""
        first = self.p.fail(reason)
        return j.JsonPatternError(str(first), self.p.location())


def cidr(text: str) -> c.Cidr:
    """A cidr value as a condition (AWS's reasons carry no location)."""
    parts = text.split("/")
    while parts and not parts[-1]:  # Java's split drops trailing empty strings
        parts.pop()
    if len(parts) != 2:
        raise j.JsonPatternError("Malformed CIDR, one '/' required", None)
    address_text, bits_text = parts
    try:
        bits = int(bits_text)
    except ValueError:
        raise j.JsonPatternError("Malformed CIDR, mask bits must be an integer", None) from None
    if bits < 0:
        raise j.JsonPatternError("Malformed CIDR, mask bits must not be negative", None)
    address = c.ip_address(address_text)
    if address is None:
        shaped = c.ip_shaped(address_text)
        raise j.JsonPatternError(f"{'Invalid' if shaped else 'Nonstandard'} IP address: {address_text}", None)
    if address.version == 4 and bits > 31:
        raise j.JsonPatternError("IPv4 mask bits must be < 32", None)
    if address.version == 6 and bits > 127:
        raise j.JsonPatternError("IPv6 mask bits must be < 128", None)
    return c.Cidr(ipaddress.ip_network(f"{address}/{bits}", strict=False))
