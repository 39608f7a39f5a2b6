"""The dashboard's HTTP side (api/dashboard_api.py) on `eddy serve`: the page's files, its JSON, and the errors."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.conftest import http_json


def get(url: str, method: str = "GET") -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, method=method, data=b"{}" if method == "POST" else None)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


@pytest.mark.parametrize("path, content_type, starts", [
    ("/_eddy/ui", "text/html; charset=utf-8", b"<!doctype html>"),
    ("/_eddy/ui/", "text/html; charset=utf-8", b"<!doctype html>"),
    ("/_eddy/ui/app.js", "text/javascript; charset=utf-8", b"// Eddy's dashboard"),
    ("/_eddy/ui/style.css", "text/css; charset=utf-8", b"/* Eddy's dashboard"),
])
def test_the_page_and_its_files(server_url, path, content_type, starts):
    status, served_as, body = get(server_url + path)
    assert (status, served_as, body[:len(starts)]) == (200, content_type, starts)


def test_the_page_loads_its_script_and_style_from_the_server_only(server_url):
    page = get(server_url + "/_eddy/ui")[2].decode()
    assert '<script src="/_eddy/ui/app.js"></script>' in page and 'href="/_eddy/ui/style.css"' in page
    assert "http" not in page  # no CDN


def test_the_dashboards_json(server_url):
    http_json(server_url + "/moto-api/reset", {})
    model = http_json(server_url + "/_eddy/dashboard")
    assert set(model) == {"Now", "Tables", "EventSourceMappings", "Functions", "GlobalTables", "Queues",
                          "Subscriptions", "BucketNotifications", "EventBridge", "Pipes", "AsynchronousInvocations", "Stacks",
                          "Disk"}
    assert model["Tables"] == [] and model["EventSourceMappings"] == [] and model["Functions"] == [] == model["GlobalTables"]
    assert model["Queues"] == [] == model["Subscriptions"] == model["BucketNotifications"] == model["Pipes"] == \
        model["Stacks"]
    assert model["EventBridge"] == {"Rules": [], "DeliveriesInFlight": 0, "LastError": None}
    disk = model["Disk"]  # the server's state directory is a temporary one (--in-memory): its disk has room
    assert disk == {"StateDirectory": disk["StateDirectory"], "FreeBytes": disk["FreeBytes"], "WritesRefused": False,
                    "RefusedSince": None, "Reason": None, "Refusals": 0} and disk["FreeBytes"] > 0


@pytest.mark.parametrize("query, status, code, message", [
    ("", 400, "ValidationException", "StreamArn is required"),
    ("?StreamArn=nonsense", 400, "ValidationException", "Invalid StreamArn: nonsense"),
    ("?StreamArn=arn:aws:dynamodb:us-east-1:123456789012:table/none/stream/2024-01-01T00:00:00.000", 400,
     "ResourceNotFoundException", "Requested resource not found: Stream: "
     "arn:aws:dynamodb:us-east-1:123456789012:table/none/stream/2024-01-01T00:00:00.000 not found"),
    ("?StreamArn=x&Limit=0", 400, "ValidationException", "Limit must be a whole number from 1 to 1000"),
])
def test_a_tail_asked_wrongly_is_an_aws_style_error(server_url, query, status, code, message):
    answered, _, body = get(server_url + "/_eddy/dashboard/tail" + query)
    error = json.loads(body)
    assert (answered, error["__type"].rsplit("#", 1)[-1], error["message"]) == (status, code, message)


def test_only_get_is_served(server_url):
    status, _, body = get(server_url + "/_eddy/ui", "POST")
    assert (status, json.loads(body)["message"]) == (405, "POST is not allowed on /_eddy/ui")


@pytest.mark.parametrize("path, code, message", [
    ("queue", "ValidationException", "Queue (a queue's name or ARN) is required"),
    ("queue?Queue=jobs&After=-1", "ValidationException",
     "After must be a whole number (the last event's Sequence already shown)"),
    ("queue?Queue=none", "QueueDoesNotExist", "The specified queue does not exist: none"),
    ("invocations", "ValidationException", "FunctionName (a function's name or ARN) is required"),
    ("invocations?FunctionName=none", "ResourceNotFoundException", "Function not found: none"),
])
def test_a_queues_events_or_a_functions_invocations_asked_wrongly_are_an_aws_style_error(server_url, path, code,
                                                                                          message):
    answered, _, body = get(server_url + "/_eddy/dashboard/" + path)
    error = json.loads(body)
    assert (answered, error["__type"].rsplit("#", 1)[-1], error["message"]) == (400, code, message)
