"""The dashboard over HTTP: one page and the JSON it polls, under /_eddy/.

    GET /_eddy/ui                                   -> the page (index.html; app.js and style.css beside it)
    GET /_eddy/dashboard                            -> tables, streams, shard lineage, mappings, functions
    GET /_eddy/dashboard/tail?StreamArn=...[&Limit=n] -> {"StreamArn", "Lines": [{"SequenceNumber", "ShardId", "Line"}]}
    GET /_eddy/dashboard/queue?Queue=NAME|ARN[&After=n] -> {"QueueArn", "LastSequence", "Events": [{"Sequence",
        "Time", "Event", "MessageId", "ReceiveCount", ..., "Line"}]}: the queue's message events after number n,
        read without receiving anything (`eddy tail --queue`)
    GET /_eddy/dashboard/invocations?FunctionName=NAME|ARN -> {"FunctionArn", "RecentInvocations": [{"RequestId",
        "Source", "Started", "DurationMs", "Outcome", "Error", "LogTail", "Line"}]}: newest first, the last 20
        (`eddy tail --function`)

The page and its script and style are package data of emulator.dashboard; the model is dashboard/view.py's.
"""

from __future__ import annotations

from importlib import resources
from urllib.parse import parse_qs, urlsplit

from eddy.emulator.dashboard import queues, view
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, ValidationException
from eddy.emulator.aws_requests import Request, Response, error_response, json_response

CONTENT_TYPE = "application/json"
#: the page's files, by the path they are served at, with their content types
STATIC = {
    "/_eddy/ui": ("index.html", "text/html; charset=utf-8"),
    "/_eddy/ui/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/_eddy/ui/style.css": ("style.css", "text/css; charset=utf-8"),
}
MODEL_PATHS = ("/_eddy/dashboard", "/_eddy/dashboard/tail", "/_eddy/dashboard/queue", "/_eddy/dashboard/invocations")


def claims(request: Request) -> bool:
    path = request.path.rstrip("/")
    return path in STATIC or path in MODEL_PATHS


def handle(emulator: Emulator, request: Request) -> Response:
    path = request.path.rstrip("/")
    if request.method.upper() != "GET":
        return json_response(
            {"__type": "MethodNotAllowed", "message": f"{request.method} is not allowed on {path}"}, 405, CONTENT_TYPE
        )
    if path in STATIC:
        name, content_type = STATIC[path]
        body = resources.files("eddy.emulator.dashboard").joinpath(name).read_bytes()
        return Response(200, {"Content-Type": content_type, "Cache-Control": "no-cache"}, body)
    query = {name: values[0] for name, values in parse_qs(urlsplit(request.url).query).items()}
    try:
        if path == "/_eddy/dashboard":
            return json_response(view.dashboard(emulator), 200, CONTENT_TYPE)
        if path == "/_eddy/dashboard/queue":
            if not query.get("Queue"):
                raise ValidationException("Queue (a queue's name or ARN) is required")
            after = query.get("After", "0")
            if not after.isdigit():
                raise ValidationException("After must be a whole number (the last event's Sequence already shown)")
            return json_response(queues.queue_tail(emulator, query["Queue"], int(after)), 200, CONTENT_TYPE)
        if path == "/_eddy/dashboard/invocations":
            if not query.get("FunctionName"):
                raise ValidationException("FunctionName (a function's name or ARN) is required")
            return json_response(view.function_invocations(emulator, query["FunctionName"]), 200, CONTENT_TYPE)
        stream_arn = query.get("StreamArn")
        if not stream_arn:
            raise ValidationException("StreamArn is required")
        return json_response(view.stream_tail(emulator, stream_arn, _limit(query.get("Limit"))), 200, CONTENT_TYPE)
    except AWSError as error:
        return error_response(error, CONTENT_TYPE)


def _limit(text: str | None) -> int:
    if text is None:
        return view.TAIL_LINES
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        raise ValidationException("Limit must be a whole number from 1 to 1000")
    return int(text)
