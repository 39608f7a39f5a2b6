"""THE EVENT-PATTERN ENGINE: one grammar and one matcher for every AWS service that filters JSON with patterns.

EventBridge rules and TestEventPattern, EventBridge Pipes filters and Lambda event source mappings' FilterCriteria
all compile their patterns with AWS's event-ruler (github.com/aws/event-ruler), each service taking a subset of its
match types (a :class:`Dialect`). Pure: no moto, no HTTP.

    >>> pattern = EventPattern.compile('{"detail": {"state": [{"anything-but": "running"}]}}')
    >>> pattern.matches({"detail": {"state": "stopped"}})
    True

An invalid pattern raises InvalidEventPattern carrying AWS's reason, and the place in the pattern AWS names.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from eddy.emulator.event_patterns import conditions, wildcards
from eddy.emulator.event_patterns.grammar import ANYTHING_BUT_KINDS, MATCH_TYPES, Branch, Dialect, compile_branches
from eddy.emulator.event_patterns.json_source import JsonPatternError
from eddy.emulator.event_patterns.matching import branch_matches, flatten

__all__ = ["EVENTBRIDGE", "LAMBDA", "PIPES", "Dialect", "EventPattern", "InvalidEventPattern"]

#: EventBridge rules and TestEventPattern: every match type
EVENTBRIDGE = Dialect("EventBridge")
#: Lambda event filtering (AWS Lambda Developer Guide, "Filter rule syntax"): no wildcard, no cidr, anything-but of
#: strings, numbers, a prefix, a suffix and strings in any case
LAMBDA = Dialect(
    "Lambda",
    MATCH_TYPES - {"wildcard", "cidr"},
    frozenset({"prefix", "suffix", "equals-ignore-case"}),
    frozenset({"equals-ignore-case"}),
)
#: EventBridge Pipes ("Comparison operators ...", the table's Pipe support column): Lambda's, without anything-but's
#: prefix, suffix, equals-ignore-case and wildcard forms
PIPES = Dialect("Pipes", LAMBDA.match_types, frozenset(), frozenset())
assert ANYTHING_BUT_KINDS >= LAMBDA.anything_but_kinds

InvalidEventPattern = JsonPatternError


@dataclass(frozen=True)
class EventPattern:
    """A compiled pattern: the text as given and its branches (one per way the ``$or``s can match)."""

    source: str
    branches: tuple[Branch, ...]

    @classmethod
    def compile(cls, source: str, dialect: Dialect = EVENTBRIDGE) -> "EventPattern":
        branches = compile_branches(source, dialect)
        _check_complexity(branches)
        return cls(source, tuple(branches))

    def matches(self, event: Any) -> bool:
        """Whether the event (a parsed JSON value) matches any branch."""
        leaves = flatten(event)
        return any(branch_matches(branch, leaves) for branch in self.branches)


def _check_complexity(branches: list[Branch]) -> None:
    by_path: dict[str, set[conditions.Wildcard]] = defaultdict(set)
    for branch in branches:
        for path, values in branch.items():
            for value in values:
                if isinstance(value, conditions.Wildcard):
                    by_path[path].add(value)
                elif isinstance(value, conditions.AnythingButOf):
                    by_path[path].update(v for v in value.conditions if isinstance(v, conditions.Wildcard))
    if any(wildcards.complexity(patterns) > wildcards.MAX_COMPLEXITY for patterns in by_path.values()):
        raise JsonPatternError(wildcards.TOO_COMPLEX, None)
