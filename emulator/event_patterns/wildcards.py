"""Wildcard values: their syntax and the complexity limit AWS puts on rules that use them.

Syntax (Amazon EventBridge User Guide, "Wildcard matching"; event-ruler's README): ``*`` matches any run of
characters, two in a row are refused ("Consecutive wildcard characters at pos N"), ``\\*`` is a literal asterisk and
``\\\\`` a literal backslash; any other backslash is refused ("Invalid escape character at pos N"). Positions count
UTF-8 bytes of the value with its surrounding quotes, as AWS reports them.

Complexity ("Wildcards and event pattern complexity"): AWS refuses a rule whose wildcard values could keep too
many partial matches alive at once ("Rule is too complex - try using fewer wildcard characters or fewer repeating
character sequences after a wildcard character"). The measure is event-ruler's: over every input, the largest
number of wildcard-pattern prefixes that match it, counted per field (the values of one field share one machine).
AWS does not publish its limit; MAX_COMPLEXITY is the smallest that refuses what AWS was seen to refuse
(LocalStack's AWS-validated content_wildcard_complex_EXC: ``*:*:*:*:*:event-bus/*``) and accepts what it accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from eddy.emulator.event_patterns.conditions import Wildcard

TOO_COMPLEX = (
    "Rule is too complex - try using fewer wildcard characters or fewer repeating character sequences "
    "after a wildcard character"
)
MAX_COMPLEXITY = 10
_EXPLORED_SUBSETS = 10_000  # enough for any pattern AWS's size limit allows to reach MAX_COMPLEXITY


class WildcardSyntaxError(ValueError):
    pass


def parse(text: str) -> Wildcard:
    """A wildcard value as a condition; WildcardSyntaxError with AWS's reason where it is malformed."""
    quoted = f'"{text}"'.encode()
    tokens: list[str | None] = []
    position = 0
    while position < len(quoted):
        byte = quoted[position]
        if byte == ord("*"):
            if position + 1 < len(quoted) and quoted[position + 1] == ord("*"):
                raise WildcardSyntaxError(f"Consecutive wildcard characters at pos {position}")
            tokens.append(None)
        elif byte == ord("\\"):
            if position + 1 < len(quoted) and quoted[position + 1] in (ord("*"), ord("\\")):
                tokens.append(chr(quoted[position + 1]))
                position += 2
                continue
            raise WildcardSyntaxError(f"Invalid escape character at pos {position}")
        else:
            tokens.append(chr(byte))
        position += 1
    body = tokens[1:-1]  # without the quotes
    regex = "".join(".*" if token is None else re.escape(token) for token in _characters(body))
    return Wildcard(re.compile(regex, re.DOTALL), tuple(body))


def _characters(tokens: list[str | None]) -> Iterable[str | None]:
    """The tokens (UTF-8 bytes) as characters again, wildcards kept."""
    run: list[int] = []
    for token in tokens:
        if token is None:
            if run:
                yield bytes(run).decode("utf-8", errors="replace")
                run = []
            yield None
        else:
            run.append(ord(token))
    if run:
        yield bytes(run).decode("utf-8", errors="replace")


def complexity(patterns: Iterable[Wildcard]) -> int:
    """The largest number of pattern prefixes any one input matches (capped just past MAX_COMPLEXITY)."""
    machines = [pattern.tokens for pattern in patterns]
    if not machines:
        return 0
    alphabet = {token for tokens in machines for token in tokens if token is not None} | {""}
    start = frozenset((m, k) for m, tokens in enumerate(machines) for k in _closure(tokens, 0))
    seen, frontier, largest = {start}, [start], 0
    while frontier and len(seen) < _EXPLORED_SUBSETS:
        states = frontier.pop()
        for char in alphabet:
            following = frozenset(state for m, k in states for state in _step(machines[m], m, k, char))
            if not following or following in seen:
                continue
            largest = max(largest, sum(1 for _, k in following if k > 0))
            if largest > MAX_COMPLEXITY:
                return largest
            seen.add(following)
            frontier.append(following)
    return largest


def _closure(tokens: tuple[str | None, ...], k: int) -> list[int]:
    """Position k and those reached from it by wildcards matching nothing."""
    positions = [k]
    while k < len(tokens) and tokens[k] is None:
        k += 1
        positions.append(k)
    return positions


def _step(tokens: tuple[str | None, ...], m: int, k: int, char: str) -> list[tuple[int, int]]:
    """Where position k of machine m goes on reading ``char`` ("" stands for any byte no pattern names)."""
    reached: list[int] = []
    if k > 0 and tokens[k - 1] is None:  # just past a wildcard: it takes this byte too
        reached.append(k)
    if k < len(tokens) and tokens[k] is not None and tokens[k] == char:
        reached.extend(_closure(tokens, k + 1))
    return [(m, position) for position in reached]
