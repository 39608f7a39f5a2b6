"""botocore's shapes compiled into plain checking functions, once per service and shape: the walk validation.py makes of
a request, with every decision that depends on the model alone (a member's name as AWS names it, its constraints,
its pattern compiled, its kind) taken when the shape is first met, not at every request.

    checks = Checks(moto_checks=True, table_name_shape=lambda: model.shape_for("TableName"))
    problems = Problems()
    checks.structure(shape)(params, "", problems)     # raises SerializationException; appends constraint breaches

A check is `check(value, path, problems)`: it raises AWS's SerializationException for a member of the wrong JSON type,
and appends to `problems` each constraint the value breaks, in AWS's words and order (validation.py's docstring), so
the first wrong type met wins over anything listed before it. `problems.attribute_values_to_check` says an
AttributeValue needs DynamoDB's own rules (api/dynamodb/attribute_values.py). The flags are the service's ways
(validation.validate sets them): `moto_checks` (list lengths, enums and patterns other than a table name's left to
moto), `whole_lists` (a list of strings reported whole: Lambda), `pattern_first` (a pattern before its length:
EventBridge), `every_constraint` (a long string checked against its pattern too: Lambda).
"""

from __future__ import annotations

from typing import Any, Callable

from botocore.model import Shape

from eddy.emulator.api.dynamodb import plain_attribute_values, table_arns
from eddy.emulator.api.shape_checks import scalars
from eddy.emulator.api.shape_checks.reports import (
    ENUM_ORDER,
    PATTERN_AS_ANSWERED,
    Check,
    Problems,
    length,
    length_check,
    member_name,
    compiled_pattern,
    type_error,
    violation,
    whole_list,
)
from eddy.emulator.errors import SerializationException, ValidationException

__all__ = ["Check", "Checks", "Problems", "length", "member_name", "violation"]


class Checks:
    """One set of flags' checks, compiled by shape name (shapes of one service: validation.py keeps one per service)."""

    def __init__(
        self,
        *,
        moto_checks: bool = False,
        whole_lists: bool = False,
        pattern_first: bool = False,
        every_constraint: bool = False,
        table_name_shape: Callable[[], Shape] | None = None,
    ) -> None:
        self.moto_checks, self.whole_lists = moto_checks, whole_lists
        self.pattern_first, self.every_constraint = pattern_first, every_constraint
        self._table_name_shape = table_name_shape
        self._compiled: dict[str, Check] = {}
        self._strings: dict[str, Check] = {}  # a string's checks once its type is known
        self._list_members: Checks | None = None

    # -- a member: what validation's walk does with a value of the shape --------------------------------------------

    def __call__(self, shape: Shape) -> Check:
        name = shape.name
        found = self._compiled.get(name)
        if found is not None:
            return found
        slot: list[Check] = []
        self._compiled[name] = lambda value, path, problems: slot[0](value, path, problems)  # a recursive shape
        check = self._member(shape)
        slot.append(check)
        self._compiled[name] = check
        return check

    def _member(self, shape: Shape) -> Check:
        kind = shape.type_name
        if kind == "structure":
            check = self._structure(shape, body_only=False)
            if shape.name == "WriteRequest":
                check = _write_request(shape, check)
        elif kind == "list":
            check = self._list(shape)
        elif kind == "map":
            check = self._map(shape)
        elif kind == "string":
            check = self._string(shape)
        else:
            check = scalars.check_of(shape)
        if shape.name == "AttributeValue":
            check = _attribute_value(check)
        elif kind == "map" and shape.value.name == "AttributeValue":
            check = _attribute_value_map(check)
        return check

    def structure(self, shape: Shape, body_only: bool = False) -> Check:
        """A request's input shape (`body_only`: a REST request's JSON body, without the members that travel in its
        path, query or headers)."""
        return self._structure(shape, body_only)

    def _structure(self, shape: Shape, body_only: bool) -> Check:
        required = [
            (name, name[:1].lower() + name[1:])
            for name in shape.required_members
            if not (body_only and shape.members[name].serialization.get("location"))
        ]
        members: list[tuple[str, str, Check]] = []

        def check(value: Any, path: str, problems: Problems) -> None:
            if not isinstance(value, dict):
                raise type_error(shape, value)
            get = value.get
            for name, low in required:
                if get(name) is None:
                    violation(problems, f"{path}.{low}" if path else low, None, "Member must not be null")
            for name, low, walk in members:
                member = get(name)
                if member is not None:
                    walk(member, f"{path}.{low}" if path else low, problems)

        for name, member in shape.members.items():  # after `check` exists: a member may be this shape again
            members.append((name, name[:1].lower() + name[1:], self(member)))
        return check

    def _list(self, shape: Shape) -> Check:
        lengths = None if self.moto_checks else length_check(shape)
        member = shape.member
        if self.whole_lists and member.type_name == "string":
            strings = self._whole_list_members()(member)

            def whole(value: Any, path: str, problems: Problems) -> None:
                if not isinstance(value, list):
                    raise type_error(shape, value)
                if lengths is not None:
                    lengths(value, path, problems)
                whole_list(member, strings, value, path, problems)

            return whole
        walk = self(member)
        attribute_values = member.name == "AttributeValue"

        def check(value: Any, path: str, problems: Problems) -> None:
            if not isinstance(value, list):
                raise type_error(shape, value)
            if lengths is not None:
                lengths(value, path, problems)
            for index, element in enumerate(value, 1):
                if element is not None:
                    walk(element, f"{path}.{index}.member", problems)
                elif attribute_values:
                    problems.attribute_values_to_check = True  # a null where a value belongs

        return check

    def _map(self, shape: Shape) -> Check:
        lengths = None if self.moto_checks else length_check(shape)
        keys, walk = self(shape.key), self(shape.value)
        attribute_values = shape.value.name == "AttributeValue"

        def check(value: Any, path: str, problems: Problems) -> None:
            if not isinstance(value, dict):
                raise type_error(shape, value)
            if lengths is not None:
                lengths(value, path, problems)
            for key, element in value.items():
                keys(key, f"{path}.{key}.key", problems)
                if element is not None:
                    walk(element, f"{path}.{key}.member", problems)
                elif attribute_values:
                    problems.attribute_values_to_check = True  # a null where a value belongs

        return check

    def _whole_list_members(self) -> Checks:
        """The checks a whole list's strings are read with: every flag off (what the list then reports is its own)."""
        if self._list_members is None:
            self._list_members = Checks(table_name_shape=self._table_name_shape)
        return self._list_members

    # -- strings ------------------------------------------------------------------------------------------------

    def _string(self, shape: Shape) -> Check:
        text = self.text(shape)

        def check(value: Any, path: str, problems: Problems) -> None:
            if not isinstance(value, str):
                raise type_error(shape, value)
            text(value, path, problems)

        return check

    def text(self, shape: Shape) -> Check:
        """A string's checks once it is known to be a str: a table's name or ARN where the model takes either, its
        UTF-8, enum, pattern and length."""
        name = shape.name
        found = self._strings.get(name)
        if found is None:
            found = self._strings[name] = self._table_arn(shape) if name == "TableArn" else self._text(shape)
        return found

    def _table_arn(self, shape: Shape) -> Check:
        """A TableArn: a table's name (3-255 of [a-zA-Z0-9_.-]) unless it starts with arn:, then a table ARN's form
        where a table's name or its ARN belongs (TableName, RequestItems' keys; table_arns.py)."""
        own = self._text(shape)
        by_name: list[Check] = []

        def check(value: str, path: str, problems: Problems) -> None:
            if not value.startswith("arn:"):
                if not by_name:
                    by_name.append(self.text(self._table_name_shape()))
                return by_name[0](value, path, problems)
            if not path.endswith("Arn") and (wrong := table_arns.problem(value, path)):
                problems.append(wrong)
                return
            own(value, path, problems)

        return check

    def _text(self, shape: Shape) -> Check:
        enum = ENUM_ORDER.get(shape.name, shape.enum)
        enum_broken = (
            f"Member must satisfy enum value set: [{', '.join(enum)}]" if enum and not self.moto_checks else None
        )
        allowed = frozenset(enum)
        projection = shape.name == "ProjectionExpression"
        pattern = PATTERN_AS_ANSWERED.get(shape.name, shape.metadata.get("pattern"))
        if self.moto_checks and shape.name != "TableName":
            pattern = None
        matches = compiled_pattern(pattern).fullmatch if pattern else None
        pattern_broken = f"Member must satisfy regular expression pattern: {pattern}"
        lengths = length_check(shape)
        pattern_first, every_constraint = self.pattern_first, self.every_constraint

        def check(value: str, path: str, problems: Problems) -> None:
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    raise SerializationException(f"Invalid UTF-8 (a lone surrogate) in the value at '{path}'") from None
            if enum_broken is not None and value not in allowed:
                violation(problems, path, value, enum_broken)
                return
            if projection and not value.strip():  # its syntax: dynamodb/rules/projection_expressions
                raise ValidationException("Invalid ProjectionExpression: The expression can not be empty;")
            if pattern_first:
                if matches is not None and not matches(value):
                    violation(problems, path, value, pattern_broken)
                if lengths is not None:
                    lengths(value, path, problems)
                return
            before = len(problems)
            if lengths is not None:
                lengths(value, path, problems)
            if matches is not None and (len(problems) == before or every_constraint) and not matches(value):
                violation(problems, path, value, pattern_broken)

        return check


# -- the shortcuts for DynamoDB's items ---------------------------------------------------------------------


def _attribute_value(check: Check) -> Check:
    """An AttributeValue: most of a write's request, nothing in it anything below would refuse when it is plain."""

    def attribute_value(value: Any, path: str, problems: Problems) -> None:
        if plain_attribute_values.plain(value):
            return
        problems.attribute_values_to_check = True
        check(value, path, problems)

    return attribute_value


def _attribute_value_map(check: Check) -> Check:
    """A whole item (or key) of plain AttributeValues under names AttributeName allows: nothing to refuse."""

    def attribute_values(value: Any, path: str, problems: Problems) -> None:
        if not plain_attribute_values.plain({"M": value}):
            check(value, path, problems)

    return attribute_values


def _write_request(shape: Shape, check: Check) -> Check:
    """A BatchWriteItem's request: a put of a plain item has nothing to refuse; an empty one is refused in
    AttributeValue's words (attribute_values.py)."""
    members = tuple(shape.members)

    def write_request(value: Any, path: str, problems: Problems) -> None:
        if type(value) is dict:
            put = value.get("PutRequest") if len(value) == 1 else None
            if type(put) is dict and len(put) == 1 and plain_attribute_values.plain({"M": put.get("Item")}):
                return
            if all(value.get(name) is None for name in members):
                problems.attribute_values_to_check = True
        check(value, path, problems)

    return write_request
