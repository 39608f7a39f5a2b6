"""Cross-origin resource sharing for a function URL with a Cors configuration, as Lambda does it
(docs.aws.amazon.com/lambda/latest/dg/urls-configuration.html#urls-cors): Lambda answers a preflight OPTIONS request
itself, without invoking the function, and puts its own CORS headers on every answer to a request with an allowed
Origin, over the function's own. Without a Cors configuration, OPTIONS reaches the function like any method. Pure.
"""

from __future__ import annotations

from typing import Any

#: the CORS headers Lambda sets (a function's own are replaced when a Cors configuration exists)
CORS_HEADERS = frozenset(
    {
        "access-control-allow-origin",
        "access-control-allow-methods",
        "access-control-allow-headers",
        "access-control-expose-headers",
        "access-control-max-age",
        "access-control-allow-credentials",
    }
)


def _allowed_origin(cors: dict[str, Any], origin: str | None) -> str | None:
    """The Access-Control-Allow-Origin an Origin gets: itself when allowed (a wildcard allows any: "*" is answered
    only without credentials), else None."""
    if not origin:
        return None
    origins = cors.get("AllowOrigins") or []
    if origin in origins:
        return origin
    if "*" in origins:
        return origin if cors.get("AllowCredentials") else "*"
    return None


def is_preflight(method: str, headers: dict[str, str]) -> bool:
    names = {name.lower() for name in headers}
    return method.upper() == "OPTIONS" and "origin" in names and "access-control-request-method" in names


def preflight(cors: dict[str, Any], headers: dict[str, str]) -> dict[str, str]:
    """The headers of Lambda's answer (200, no body) to a preflight request."""
    lowered = {name.lower(): value for name, value in headers.items()}
    origin = _allowed_origin(cors, lowered.get("origin"))
    if origin is None:
        return {}
    answer = {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}
    if cors.get("AllowMethods"):
        answer["Access-Control-Allow-Methods"] = ",".join(cors["AllowMethods"])
    if cors.get("AllowHeaders"):
        answer["Access-Control-Allow-Headers"] = ",".join(cors["AllowHeaders"])
    if cors.get("AllowCredentials"):
        answer["Access-Control-Allow-Credentials"] = "true"
    if cors.get("MaxAge") is not None:
        answer["Access-Control-Max-Age"] = str(cors["MaxAge"])
    return answer


def on_answer(cors: dict[str, Any], request_headers: dict[str, str], answer: dict[str, str]) -> dict[str, str]:
    """The answer's headers, the function's CORS headers replaced by Lambda's for an allowed Origin."""
    kept = {name: value for name, value in answer.items() if name.lower() not in CORS_HEADERS}
    lowered = {name.lower(): value for name, value in request_headers.items()}
    origin = _allowed_origin(cors, lowered.get("origin"))
    if origin is None:
        return kept
    kept["Access-Control-Allow-Origin"] = origin
    kept["Vary"] = "Origin"
    if cors.get("ExposeHeaders"):
        kept["Access-Control-Expose-Headers"] = ",".join(cors["ExposeHeaders"])
    if cors.get("AllowCredentials"):
        kept["Access-Control-Allow-Credentials"] = "true"
    return kept
