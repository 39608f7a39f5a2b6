"""moto_seam/speedups/mock_start.py pinned against moto's own start: inside emulate() mock_aws registers the responses
moto's _enable_patching registers (the same kinds, methods, URL patterns and callbacks, in the same order), built once
and each with no calls recorded at a block's start, and moto's own start is back once the emulator closes."""

from __future__ import annotations

import requests
from moto import mock_aws
from moto.core import models as moto_models
from moto.core.models import MockAWS

from eddy import emulate
from eddy.emulator.moto_seam.speedups import mock_start
from tests.conftest import QUIET


def registered() -> list:
    """What the `requests` mock answers with now: each response's kind, method, URL pattern and callback, and how
    many calls it has answered."""
    return [(type(response), response.method, response.url.pattern, response.callback, response.call_count)
            for response in moto_models.responses_mock.registered()]


def test_emulate_registers_what_motos_start_registers_built_once():
    with mock_aws():
        motos = registered()
    assert len(motos) == 7 * (len(moto_models.backend_index.backend_url_patterns) + 1)

    with emulate(**QUIET):
        assert MockAWS._enable_patching is mock_start._enable_patching
        first = registered()
        kept = moto_models.responses_mock.registered()
        # a `requests` call to an AWS URL is answered through moto's stubber, and its response counts it
        answer = requests.post("https://dynamodb.us-east-1.amazonaws.com/", data=b"{}", headers={
            "X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"})
        assert (answer.status_code, answer.json()) == (200, {"TableNames": []})
        assert sum(response.call_count for response in kept) == 1
    with emulate(**QUIET):
        second = registered()
        assert all(ours is theirs for ours, theirs in zip(moto_models.responses_mock.registered(), kept))

    assert first == second == motos
    assert MockAWS._enable_patching is mock_start.original_enable_patching  # moto's own again
    with mock_aws():
        assert registered() == motos
