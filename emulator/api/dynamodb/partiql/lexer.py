"""PartiQL-for-DynamoDB text as tokens: strings, quoted and bare names, numbers, `?`, punctuation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from eddy.emulator.errors import ValidationException

NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: "

_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_PUNCTUATION = (
    "<<",
    ">>",
    "<>",
    "!=",
    "<=",
    ">=",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    ":",
    "*",
    "=",
    "<",
    ">",
    "+",
    "-",
    "?",
    ";",
)


@dataclass(frozen=True)
class Token:
    kind: str  # "string", "name" (quoted: never a keyword), "word" (bare), "number", "punct", "end"
    text: str
    position: int

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text.upper() in words

    def is_punct(self, *marks: str) -> bool:
        return self.kind == "punct" and self.text in marks


def tokens(statement: str) -> list[Token]:
    found: list[Token] = []
    position = 0
    while position < len(statement):
        char = statement[position]
        if char.isspace():
            position += 1
            continue
        if char in "'\"":
            text, end = _quoted(statement, position)
            found.append(Token("string" if char == "'" else "name", text, position))
            position = end
            continue
        number = _NUMBER.match(statement, position)
        if number:
            found.append(Token("number", number.group(), position))
            position = number.end()
            continue
        word = _WORD.match(statement, position)
        if word:
            found.append(Token("word", word.group(), position))
            position = word.end()
            continue
        mark = next((p for p in _PUNCTUATION if statement.startswith(p, position)), None)
        if mark is None:
            raise ValidationException(f"{NOT_WELL_FORMED}Unexpected character: {char!r}")
        found.append(Token("punct", mark, position))
        position += len(mark)
    found.append(Token("end", "", len(statement)))
    return found


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The content of a quoted string or name ('...' or "...", a doubled quote inside being one), and its end."""
    quote, position, parts = text[start], start + 1, []
    while position < len(text):
        if text[position] == quote:
            if text[position + 1 : position + 2] == quote:
                parts.append(quote)
                position += 2
                continue
            return "".join(parts), position + 1
        parts.append(text[position])
        position += 1
    raise ValidationException(f"{NOT_WELL_FORMED}Unterminated quoted text")
