"""moto_seam/eventbridge/patterns.py pinned against moto's EventBridge: the operator matcher filters.py uses is
moto's own, moto's whole-pattern matcher agrees with AWS exactly where tests/emulator/triggers/test_filters.py says
(`moto_agrees`), and moto still lets through the patterns Lambda refuses (why validation is filters.py's own)."""

from __future__ import annotations

import copy
import inspect
import json

import pytest
from moto.events.models import UNDEFINED, EventPattern

from eddy.emulator.moto_seam.eventbridge import patterns
from eddy.emulator.triggers.filters import FilterCriteriaError, validate_filter_criteria
from tests.emulator.triggers.test_filters import CASES, Case, _criteria


def test_the_operator_matcher_is_motos_own():
    assert patterns.operator_matches is EventPattern._does_item_match_named_filter
    assert patterns.UNDEFINED is UNDEFINED
    assert list(inspect.signature(EventPattern._does_item_match_named_filter).parameters) == ["item", "pattern"]


def test_moto_takes_a_json_boolean_for_a_number():
    """The two cases filters.py corrects (Python's True == 1): still moto's answers."""
    assert patterns.operator_matches(True, {"numeric": ["=", 1]}) is True
    assert patterns.operator_matches(True, {"anything-but": [1]}) is False
    assert patterns.operator_matches(UNDEFINED, {"exists": False}) is True


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_moto_event_pattern_on_the_same_case(case: Case) -> None:
    """Where moto is right filters.py may lean on it; where it is wrong (True == 1, arrays) it must not."""
    moto_answer = EventPattern.load(json.dumps(case.pattern)).matches_event(copy.deepcopy(case.record))
    assert (moto_answer == case.expected) is case.moto_agrees


@pytest.mark.parametrize("pattern", [
    {"eventName": [{"contains": "INS"}]},
    {"dynamodb": {"SizeBytes": [{"numeric": [">", "100"]}]}},
    {"eventName": [{"exists": "yes"}]},
    {"$or": [{"eventName": ["INSERT"]}]},
], ids=["an unknown operator", "numeric a string", "exists a string", "$or with one branch"])
def test_moto_accepts_patterns_lambda_refuses(pattern: dict) -> None:
    """Why validation is filters.py's own: moto's EventPatternParser lets these through."""
    EventPattern.load(json.dumps(pattern))
    with pytest.raises(FilterCriteriaError):
        validate_filter_criteria(_criteria(pattern))
