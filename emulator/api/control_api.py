"""Eddy's own controls over HTTP, under /_eddy/: the same operations as the Emulator's methods.

GET  /_eddy/health                                   -> 200 {"Status": "ready"}
GET  /_eddy/clock                                    -> {"Now": epoch seconds, "Offset": seconds}
POST /_eddy/clock          {"advance": seconds}      -> {"Now": ..., "Offset": ...}
POST /_eddy/shards/split   {"StreamArn", "ShardId"}  -> {"ChildShardIds": [...]}
POST /_eddy/shards/rollover {"StreamArn"}            -> {"ChildShardIds": [...]}
POST /_eddy/shards/merge   {"StreamArn", "ShardId", "AdjacentShardId"} -> {"ChildShardId": ...}
POST /_eddy/ttl/sweep      {}                        -> {"Deleted": n}
POST /_eddy/s3/lifecycle/sweep {}                    -> {"Deleted": n} (S3 Lifecycle expirations due now)
POST /_eddy/idle           {"timeout": seconds}      -> {"Idle": bool, "Delivered": bool, "Pending": [{"UUID",
                                                         "LastError", "Retrying", ...}], "Failures": [...]}
POST /_eddy/delivered      {"timeout": seconds}      -> 200 the same answer when every record was delivered;
                                                         409 {"__type": "NotDelivered", "message", "Report"}
                                                         when not (assert_delivered over HTTP)
GET  /_eddy/mappings[?UUID=...]                      -> {"EventSourceMappings": [per-mapping figures]}
GET  /_eddy/replication                              -> global tables: replicas, delay, paused regions, backlog
POST /_eddy/replication    {"Pause": region} | {"Resume": region} | {"DelaySeconds": s}  -> the same
POST /_eddy/replication/wait {"timeout": seconds}    -> {"Converged": bool, "Backlog": [...]}
"""

from __future__ import annotations

from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from eddy.emulator.engine import Emulator
from eddy.emulator.settings import WAIT_TIMEOUT
from eddy.emulator.errors import AWSError, ResourceNotFoundException, ValidationException
from eddy.emulator.triggers.failures import NotDeliveredError
from eddy.emulator.aws_requests import Request, Response, error_response, json_response
from eddy.emulator.api.dynamodb.streams import parse_body

CONTENT_TYPE = "application/json"
Params = dict[str, Any]


def _text(params: Params, name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise ValidationException(f"{name} is required and must be a string")
    return value


def health(emulator: Emulator, params: Params) -> Any:
    return {"Status": "ready"}


def clock(emulator: Emulator, params: Params) -> Any:
    if "advance" in params:
        seconds = params["advance"]
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
            raise ValidationException("advance must be a number of seconds >= 0")
        emulator.clock.advance(seconds)
    return {"Now": emulator.clock.now(), "Offset": emulator.clock.offset}


def split(emulator: Emulator, params: Params) -> Any:
    return {"ChildShardIds": emulator.split_shard(_text(params, "StreamArn"), _text(params, "ShardId"))}


def merge(emulator: Emulator, params: Params) -> Any:
    return {
        "ChildShardId": emulator.merge_shards(
            _text(params, "StreamArn"), _text(params, "ShardId"), _text(params, "AdjacentShardId")
        )
    }


def rollover(emulator: Emulator, params: Params) -> Any:
    return {"ChildShardIds": emulator.rollover(_text(params, "StreamArn"))}


def sweep_ttl(emulator: Emulator, params: Params) -> Any:
    return {"Deleted": emulator.sweep_ttl()}


def sweep_lifecycle(emulator: Emulator, params: Params) -> Any:
    return {"Deleted": emulator.sweep_lifecycle()}


def idle(emulator: Emulator, params: Params) -> Any:
    return emulator.wait_idle(_timeout(params))


def delivered(emulator: Emulator, params: Params) -> Any:
    return emulator.assert_delivered(_timeout(params))


def mappings(emulator: Emulator, params: Params) -> Any:
    return emulator.mapping_figures(params.get("UUID"))


def _timeout(params: Params) -> float:
    timeout = params.get("timeout", WAIT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout <= 600:
        raise ValidationException("timeout must be a number of seconds from 0 to 600")
    return timeout


def replication(emulator: Emulator, params: Params) -> Any:
    """Global tables' replication: a region paused (an outage) or resumed, the delay set; its state."""
    if "Pause" in params:
        emulator.replication.pause(_text(params, "Pause"))
    if "Resume" in params:
        emulator.replication.resume(_text(params, "Resume"))
    if "DelaySeconds" in params:
        emulator.replication.set_delay(params["DelaySeconds"])
    return emulator.replication.state()


def replication_wait(emulator: Emulator, params: Params) -> Any:
    return emulator.replication.wait_replicated(_timeout(params))


ROUTES: dict[tuple[str, str], Callable[[Emulator, Params], Any]] = {
    ("GET", "/_eddy/health"): health,
    ("GET", "/_eddy/clock"): clock,
    ("POST", "/_eddy/clock"): clock,
    ("POST", "/_eddy/shards/split"): split,
    ("POST", "/_eddy/shards/rollover"): rollover,
    ("POST", "/_eddy/shards/merge"): merge,
    ("POST", "/_eddy/ttl/sweep"): sweep_ttl,
    ("POST", "/_eddy/s3/lifecycle/sweep"): sweep_lifecycle,
    ("POST", "/_eddy/idle"): idle,
    ("POST", "/_eddy/delivered"): delivered,
    ("GET", "/_eddy/mappings"): mappings,
    ("GET", "/_eddy/replication"): replication,
    ("POST", "/_eddy/replication"): replication,
    ("POST", "/_eddy/replication/wait"): replication_wait,
}


def handle(emulator: Emulator, request: Request) -> Response:
    path = request.path.rstrip("/")
    route = ROUTES.get((request.method.upper(), path))
    try:
        if route is None:
            if any(known == path for _, known in ROUTES):
                return json_response(
                    {"__type": "MethodNotAllowed", "message": f"{request.method} is not allowed on {path}"},
                    405,
                    CONTENT_TYPE,
                )
            raise ResourceNotFoundException(f"No Eddy control at {path}")
        if request.method.upper() == "POST":
            params = parse_body(request.body)
        else:
            params = {name: values[0] for name, values in parse_qs(urlsplit(request.url).query).items()}
        return json_response(route(emulator, params), 200, CONTENT_TYPE)
    except AWSError as error:
        return error_response(error, CONTENT_TYPE)
    except NotDeliveredError as error:  # an answer, not a fault: the test asked whether all was delivered
        return json_response(
            {"__type": "NotDelivered", "message": str(error), "Report": error.report}, 409, CONTENT_TYPE
        )
