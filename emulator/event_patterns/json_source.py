"""A pattern's JSON read token by token, as the Jackson streaming parser behind AWS's event-ruler reads it.

AWS compiles a pattern while it parses it, so an invalid pattern is refused at the token where the compiler stops,
and the message names that place: ``<reason>\\n at [Source: (String)"<pattern>"; line: 1, column: 36]``. The
column is Jackson's: one past the last character it consumed. Jackson reads ahead in one way that shows in those
columns: after a field name it also consumes the colon and the first character of the value (all of a number,
``true``, ``false`` or ``null``), while a string's characters are read only when its text is asked for.

Reading stops where the compiler stops: nothing after the pattern's closing brace is read (AWS accepts
``{"a": ["b"]} trailing``). A key given twice is kept twice (the compiler lets the later one win).
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from typing import Any

START_OBJECT, END_OBJECT, START_ARRAY, END_ARRAY = "{", "}", "[", "]"
FIELD_NAME, STRING, NUMBER_INT, NUMBER_FLOAT = "FIELD_NAME", "STRING", "NUMBER_INT", "NUMBER_FLOAT"
TRUE, FALSE, NULL = "true", "false", "null"
SCALARS = (STRING, NUMBER_INT, NUMBER_FLOAT, TRUE, FALSE, NULL)
NUMBERS = (NUMBER_INT, NUMBER_FLOAT)

SOURCE_SHOWN = 500  # Jackson shows at most this many characters of the source in a location
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z0-9_$'\-]+")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_EXPECTING_VALUE = "was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"


class JsonPatternError(ValueError):
    """Where the parser or the compiler stopped: ``reason`` and, unless the error carries none, Jackson's location."""

    def __init__(self, reason: str, location: str | None) -> None:
        super().__init__(reason if location is None else f"{reason}\n at {location}")
        self.reason, self.location = reason, location

    @property
    def message(self) -> str:
        return str(self)


@dataclass
class _Context:
    kind: str  # "root", "object" or "array"
    started: bool = False  # an array or object has had its first entry


class JsonSource:
    """A pull parser over one pattern: ``next_token()`` returns a token kind; ``text``/``value`` describe it."""

    #: the characters of a token Jackson does not know, as its message quotes it
    WORD = _WORD

    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = 0  # the next character to read
        self.line, self.line_start = 1, 0
        self.contexts = [_Context("root")]
        self.kind: str | None = None
        self.name: str | None = None  # the current field name
        self._pending: tuple[str, Any, str] | None = None  # a value Jackson consumed with its field name
        self._text = ""
        self._scalar: Any = None
        self._string_open = False  # a string token whose characters are not read yet
        self._string_start = 0

    # --- the parser's interface ---------------------------------------------------------------------------------

    def next_token(self) -> str | None:
        if self._string_open:
            self._read_string()
        if self._pending is not None:
            kind, value, text = self._pending
            self._pending = None
            return self._current(kind, value, text)
        context = self.contexts[-1]
        char = self._skip_space()
        if context.kind == "object":
            return self._next_in_object(context, char)
        if context.kind == "array":
            if char == "]":
                return self._leave(END_ARRAY)
            if context.started:
                if char != ",":
                    self._fail_char(char, "was expecting comma to separate Array entries")
                char = self._skip_space()
            context.started = True
        elif char is None:
            self.kind = None
            return None
        return self._current(*self._value(char))

    @property
    def text(self) -> str:
        """The current token's text (a string's characters are read now, as Jackson's getText() does)."""
        if self._string_open:
            self._read_string()
        return self._text

    @property
    def value(self) -> Any:
        return self.text if self.kind == STRING else self._scalar

    def fail(self, reason: str) -> JsonPatternError:
        """The compiler's refusal at this place (Jackson's location appended)."""
        return JsonPatternError(reason, self.location())

    def location(self) -> str:
        shown = self.source[:SOURCE_SHOWN]
        more = len(self.source) - SOURCE_SHOWN
        truncated = f"[truncated {more} chars]" if more > 0 else ""
        column = self.pos - self.line_start + 1
        return f'[Source: (String)"{shown}"{truncated}; line: {self.line}, column: {column}]'

    # --- reading ------------------------------------------------------------------------------------------------

    def _next_in_object(self, context: _Context, char: str | None) -> str:
        if char == "}":
            return self._leave(END_OBJECT)
        if context.started:
            if char != ",":
                self._fail_char(char, "was expecting comma to separate Object entries")
            char = self._skip_space()
        context.started = True
        if char != '"':
            self._fail_char(char, "was expecting double-quote to start field name")
        self.name = self._string_body()
        char = self._skip_space()
        if char != ":":
            self._fail_char(char, "was expecting a colon to separate field name and value")
        char = self._skip_space()
        self._pending = self._value(char)
        self.kind = FIELD_NAME
        self._text = self.name
        return FIELD_NAME

    def _value(self, char: str | None) -> tuple[str, Any, str]:
        if char is None:
            raise JsonPatternError(f"Unexpected end-of-input: {self._closing()}", self.location())
        if char == '"':
            return STRING, self.pos, ""  # where its characters start
        if char in "{[":
            return (START_OBJECT if char == "{" else START_ARRAY), None, char
        if char == "-" or char.isdigit():
            match = _NUMBER.match(self.source, self.pos - 1)
            if not match or match.end() == self.pos - 1 or (match.group(0) == "-"):
                self._fail_word(self.pos - 1)
            self.pos = match.end()
            text = match.group(0)
            if match.group(1) or match.group(2):
                return NUMBER_FLOAT, float(text), text
            return NUMBER_INT, int(text), text
        for literal, value in ((TRUE, True), (FALSE, False), (NULL, None)):
            if self.source.startswith(literal, self.pos - 1) and not _WORD.match(
                self.source, self.pos - 1 + len(literal)
            ):
                self.pos += len(literal) - 1
                return literal, value, literal
        if char.isalpha() or char == "'":
            if char == "'":
                self._fail_char(char, _EXPECTING_VALUE)
            self._fail_word(self.pos - 1)
        self._fail_char(char, "expected a valid value " + _EXPECTING_VALUE[len("was expecting ") :])
        raise AssertionError("unreachable")

    def _current(self, kind: str, value: Any, text: str) -> str:
        """Make a value the current token (a string's characters stay unread until its text is asked for)."""
        self.kind, self._scalar, self._text = kind, value, text
        if kind == STRING:
            self._string_open, self._string_start = True, value
        self._enter(kind)
        return kind

    def _enter(self, kind: str) -> None:
        if kind == START_OBJECT:
            self.contexts.append(_Context("object"))
        elif kind == START_ARRAY:
            self.contexts.append(_Context("array"))

    def _leave(self, kind: str) -> str:
        self.contexts.pop()
        self.kind, self._text = kind, kind
        return kind

    def _skip_space(self) -> str | None:
        """The next character that is not white space, consumed; None at the end."""
        source = self.source
        while self.pos < len(source):
            char = source[self.pos]
            self.pos += 1
            if char == "\n":
                self.line, self.line_start = self.line + 1, self.pos
            elif char not in " \t\r":
                return char
        return None

    def _read_string(self) -> None:
        self._string_open = False
        self.pos = self._string_start
        self._text = self._string_body()

    def _string_body(self) -> str:
        """A string's characters after its opening quote, up to and including its closing quote."""
        parts: list[str] = []
        source = self.source
        while True:
            end = self.pos
            while end < len(source) and source[end] not in '"\\' and source[end] >= " ":
                end += 1
            parts.append(source[self.pos : end])
            self.pos = end
            if end >= len(source):
                raise JsonPatternError("Unexpected end-of-input in field name", self.location())
            char = source[end]
            self.pos = end + 1
            if char == '"':
                text = "".join(parts)  # a \\u escaped surrogate pair is one character
                return text.encode("utf-16", "surrogatepass").decode("utf-16") if "\\u" in source else text
            if char != "\\":
                raise JsonPatternError(
                    f"Illegal unquoted character ((CTRL-CHAR, code {ord(char)})): has to be "
                    "escaped using backslash to be included in string value",
                    self.location(),
                )
            escape = source[self.pos : self.pos + 1]
            self.pos += 1
            if escape == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", source[self.pos : self.pos + 4]):
                parts.append(chr(int(source[self.pos : self.pos + 4], 16)))
                self.pos += 4
            elif escape in _ESCAPES:
                parts.append(_ESCAPES[escape])
            else:
                raise JsonPatternError(
                    f"Unrecognized character escape '{escape}' (code {ord(escape or ' ')})", self.location()
                )

    def _closing(self) -> str:
        context = self.contexts[-1].kind
        if context == "root":
            return "expected a value"
        return f"expected close marker for {'Object' if context == 'object' else 'Array'}"

    def _fail_char(self, char: str | None, expecting: str) -> None:
        if char is None:
            raise JsonPatternError(f"Unexpected end-of-input: {self._closing()}", self.location())
        self.pos -= 1  # Jackson names the unexpected character's own column
        raise JsonPatternError(f"Unexpected character ('{char}' (code {ord(char)})): {expecting}", self.location())

    def _fail_word(self, start: int) -> None:
        match = self.WORD.match(self.source, start)
        word = match.group(0) if match else self.source[start : start + 1]
        self.pos = start + len(word)
        raise JsonPatternError(f"Unrecognized token '{word}': {_EXPECTING_VALUE}", self.location())


class RedactedJsonSource(JsonSource):
    """The parser as AWS's services read a document with a newer Jackson (SNS's policies, Lambda's payloads): the
    location names no source (``[Source: REDACTED (...); line: 1, column: 2]``), and a token it does not know is
    quoted up to the first character that cannot be in a Java identifier (``'invalid'`` of ``invalid-json``)."""

    WORD = re.compile(r"[A-Za-z0-9_$]+")

    def location(self) -> str:
        return REDACTED_LOCATION.format(self.line, self.pos - self.line_start + 1)


REDACTED_LOCATION = "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: {}, column: {}]"


def read_document(text: str) -> Any:
    """`text`'s first JSON value as Jackson's tree reader (ObjectMapper.readTree) reads it (what follows that value is
    not read); JsonPatternError, in Jackson's words with a REDACTED location, where it stops; ValueError for what
    Jackson reads and Python does not (NaN)."""
    with contextlib.suppress(ValueError):  # well-formed JSON, the usual case: Python's reader, then Jackson's words
        return json.loads(text)
    parser = RedactedJsonSource(text)
    if parser.next_token() is not None:
        while len(parser.contexts) > 1:
            parser.next_token()
        _ = parser.text  # a string's characters are read when asked for
    return json.JSONDecoder().raw_decode(text, len(text) - len(text.lstrip()))[0]
