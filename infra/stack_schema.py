"""The checking of a stack file's sections: a Section subclass declares its keys as annotated class attributes, and
`parse` reads a YAML mapping into it, collecting every problem with its place in the file, in the words pydantic
uses (`Field required`, `Extra inputs are not permitted`, `Input should be 'S', 'N' or 'B'`, `Input should be
greater than or equal to 1`), which the stack files' users and docs know. (Eddy did this with pydantic: 10 MB of
the plain install for one file's checks.)

    class Index(Section):
        name: str
        projection: Literal["ALL", "KEYS_ONLY", "INCLUDE"] = "ALL"
        non_key_attributes: list[str] = Bounds(default_factory=list)

    Index.parse({"name": "by-status"}, ("tables", "orders", "indexes", 0))   # or raises Invalid

Types: str, int, bool, Any, Literal[...], X | None, X | Y, list[X], dict[str, X] and Section subclasses. A field's
checks (ValueError with a message) are `field_checks`, after its type's, and `before` converts a value before them;
`check(self)` is the section's own, run when its keys are all valid.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar, Literal

Place = tuple[Any, ...]


class Invalid(Exception):
    def __init__(self, problems: list[tuple[Place, str]]) -> None:
        super().__init__(problems)
        self.problems = problems


class Bounds:
    """A field's default and limits (pydantic's Field(default, ge=, le=, max_length=))."""

    def __init__(
        self,
        default: Any = None,
        *,
        default_factory: Callable[[], Any] | None = None,
        ge: int | None = None,
        le: int | None = None,
        max_length: int | None = None,
    ) -> None:
        self.default, self.default_factory = default, default_factory
        self.ge, self.le, self.max_length = ge, le, max_length

    def initial(self) -> Any:
        return self.default_factory() if self.default_factory else self.default


_REQUIRED = object()


class Section:
    #: a field's own checks, after its type's: name -> function(value) returning it, or raising ValueError
    field_checks: ClassVar[dict[str, Callable[[Any], Any]]] = {}
    #: a field's value converted before it is checked: name -> function(value)
    before: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def check(self) -> None:
        """The section's own rules, once each of its keys is valid (ValueError: a problem at the section's place)."""

    @classmethod
    def parse(cls, document: Any, place: Place = ()) -> Any:
        problems: list[tuple[Place, str]] = []
        section = _section(cls, document, place, problems)
        if problems:
            raise Invalid(problems)
        return section


def _fields(cls: type) -> dict[str, tuple[Any, Any]]:
    """Each field's type and its default (_REQUIRED, a value, or Bounds)."""
    hints = typing.get_type_hints(cls)
    return {
        name: (kind, getattr(cls, name, _REQUIRED))
        for name, kind in hints.items()
        if typing.get_origin(kind) is not ClassVar
    }


def _section(cls: type, document: Any, place: Place, problems: list[tuple[Place, str]]) -> Any:
    if not isinstance(document, dict):
        problems.append((place, f"Input should be a valid dictionary or instance of {cls.__name__}"))
        return None
    found = len(problems)
    section = cls.__new__(cls)
    fields = _fields(cls)
    for name, (kind, default) in fields.items():
        bounds = default if isinstance(default, Bounds) else None
        if name not in document:
            if default is _REQUIRED:
                problems.append(((*place, name), "Field required"))
            setattr(section, name, bounds.initial() if bounds else default)
            continue
        value = cls.before[name](document[name]) if name in cls.before else document[name]
        before = len(problems)
        value = _value(kind, value, (*place, name), problems, bounds)
        if len(problems) == before and name in cls.field_checks:
            try:
                value = cls.field_checks[name](value)
            except ValueError as error:
                problems.append(((*place, name), str(error)))
        setattr(section, name, value)
    problems.extend(((*place, key), "Extra inputs are not permitted") for key in document if key not in fields)
    if len(problems) == found:
        try:
            section.check()
        except ValueError as error:
            problems.append((place, str(error)))
    return section


def _value(kind: Any, value: Any, place: Place, problems: list[tuple[Place, str]], bounds: Bounds | None = None) -> Any:
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return value
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in arguments:
            return None
        choices = [argument for argument in arguments if argument is not type(None)]
        for choice in choices:
            tried: list[tuple[Place, str]] = []
            converted = _value(choice, value, place, tried, bounds)
            if not tried:
                return converted
        if len(choices) == 1:
            return _value(choices[0], value, place, problems, bounds)
        problems.append((place, "Input should be " + " or ".join(_name(choice) for choice in choices)))
        return value
    if origin is Literal:
        if not any(type(value) is type(argument) and value == argument for argument in arguments):
            quoted = [repr(argument) for argument in arguments]
            listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
            problems.append((place, f"Input should be {listed}"))
        return value
    if isinstance(kind, type) and issubclass(kind, Section):
        return _section(kind, value, place, problems)
    if origin is list:
        if not isinstance(value, list):
            problems.append((place, "Input should be a valid list"))
            return value
        items = [_value(arguments[0], item, (*place, index), problems) for index, item in enumerate(value)]
        if bounds and bounds.max_length is not None and len(items) > bounds.max_length:
            problems.append(
                (place, f"List should have at most {bounds.max_length} items after validation, not {len(items)}")
            )
        return items
    if origin is dict:
        if not isinstance(value, dict):
            problems.append((place, "Input should be a valid dictionary"))
            return value
        return {
            _value(arguments[0], key, (*place, key), problems): _value(arguments[1], item, (*place, key), problems)
            for key, item in value.items()
        }
    return _scalar(kind, value, place, problems, bounds)


def _scalar(kind: Any, value: Any, place: Place, problems: list[tuple[Place, str]], bounds: Bounds | None) -> Any:
    if kind is bool:  # as pydantic reads one: yes/no, on/off, 1/0 too
        words = {
            "true": True,
            "t": True,
            "yes": True,
            "y": True,
            "on": True,
            "1": True,
            "false": False,
            "f": False,
            "no": False,
            "n": False,
            "off": False,
            "0": False,
        }
        if isinstance(value, str) and value.lower() in words:
            return words[value.lower()]
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return bool(value)
        if not isinstance(value, bool):
            problems.append((place, "Input should be a valid boolean"))
        return value
    if kind is str:
        if not isinstance(value, str):
            problems.append((place, "Input should be a valid string"))
        return value
    if kind is int:
        if (
            isinstance(value, float)
            and value.is_integer()
            or isinstance(value, str)
            and value.strip().lstrip("+-").isdigit()
        ):
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            problems.append((place, "Input should be a valid integer"))
            return value
        if bounds and bounds.ge is not None and value < bounds.ge:
            problems.append((place, f"Input should be greater than or equal to {bounds.ge}"))
        elif bounds and bounds.le is not None and value > bounds.le:
            problems.append((place, f"Input should be less than or equal to {bounds.le}"))
        return value
    raise TypeError(f"a stack file's section cannot hold a {kind!r}")  # a declaration's mistake, not the file's


def _name(kind: Any) -> str:
    origin = typing.get_origin(kind)
    return {
        dict: "a valid dictionary",
        list: "a valid list",
        str: "a valid string",
        int: "a valid integer",
        bool: "a valid boolean",
    }.get(origin or kind, str(kind))
