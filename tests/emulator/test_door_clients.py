"""The doors' clients (tests/conftest.py: Door.client) are kept from test to test, and stay as a new client would be:
one test's tables are not the next one's, a second client asked for in one test is another client, and a client a
test changed (an event handler) or that retried a request (botocore's retry quota) is never lent again."""

from __future__ import annotations

import socket
from contextlib import nullcontext

import pytest
from botocore.exceptions import EndpointConnectionError

from eddy import emulate
from tests.conftest import QUIET, InProcessDoor, ServerDoor, http_json


@pytest.mark.parametrize("kind", ["inprocess", "server"])
def test_a_kept_client_is_lent_to_the_next_test_and_speaks_to_its_emulator(kind, request):
    queues = []
    for test in ("first", "next"):  # two tests' doors, one after the other, as the `door` fixture makes them
        with emulate(**QUIET) if kind == "inprocess" else nullcontext() as emu:
            if emu is None:
                url = request.getfixturevalue("server_url")
                http_json(url + "/moto-api/reset", {})
            door = InProcessDoor(emu) if emu is not None else ServerDoor(url)
            sqs = door.client("sqs")
            queues.append((sqs, sqs.list_queues().get("QueueUrls", [])))
            sqs.create_queue(QueueName=f"{test}-tests-queue")
            assert door.client("sqs") is not sqs  # the same test asking again: a client of its own
    (first, first_queues), (kept, kept_queues) = queues
    assert kept is first
    assert (first_queues, kept_queues) == ([], [])


def test_a_client_whose_handlers_changed_is_not_lent_again(door):
    changed = door.client("sns")
    changed.meta.events.register("before-send.sns.*", lambda **_: None)
    untouched = door.client("sqs")
    following = InProcessDoor(door.emu) if door.name == "inprocess" else ServerDoor(door.url)
    assert following.client("sns") is not changed
    assert following.client("sqs") is untouched


def test_a_client_that_retried_is_not_lent_again():
    with socket.socket() as closed:  # a port nothing listens on: every attempt is refused, and retried
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    retried = ServerDoor(url).client("sqs")
    with pytest.raises(EndpointConnectionError):
        retried.list_queues()
    assert ServerDoor(url).client("sqs") is not retried
