"""Who a request speaks for: its caller's region and access key, read in one place, with AWS's precedence.

- The region and service a request is signed for are its SigV4 credential scope's
  (`Credential=<access key>/<date>/<region>/<service>/aws4_request`, in the Authorization header or in a presigned
  URL's X-Amz-Credential); an unsigned request's region is its endpoint's (`<service>.<region>.amazonaws.com`), and
  us-east-1 where neither says.
- The account is an explicit one where moto takes one (MOTO_ACCOUNT_ID, the x-moto-account-id header), else the
  access key's, by moto's mapping of access keys to accounts (moto_seam/bridge.caller asks it).

Every door and the seam read a caller through `scope_of` and `region_of`; what Eddy sends itself (a replica's
request in another region, a table definition replayed at recovery) is signed by `authorization`, and moved to
another region by `in_region` (the signature) and `endpoint_in_region` (the URL).

    >>> scope_of("AWS4-HMAC-SHA256 Credential=AKID/20250101/eu-west-1/dynamodb/aws4_request, ...", "http://x/")
    Scope(access_key='AKID', region='eu-west-1', service='dynamodb')
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, NamedTuple

from eddy.emulator.aws_environment import variable

DEFAULT_REGION = "us-east-1"

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/\d{8}/([a-z0-9-]+)/([a-z0-9-]+)/")
_QUERY_CREDENTIAL = re.compile(r"X-Amz-Credential=([^&/%]*)(?:%2F|/)\d{8}(?:%2F|/)([a-z0-9-]+)(?:%2F|/)([a-z0-9-]+)")
_HOST_REGION = re.compile(r"[./]([a-z]{2}(?:-gov)?-[a-z]+-\d)\.amazonaws\.com")
#: the region part of an AWS endpoint's host name (dynamodb.<region>.amazonaws.com), whatever it says
_ENDPOINT_REGION = re.compile(r"\.[^./]+\.amazonaws\.com")


class Scope(NamedTuple):
    """A SigV4 credential scope: who signed, for which region and service."""

    access_key: str
    region: str
    service: str


def scope_of(authorization: str, url: str) -> Scope | None:
    """The credential scope a request is signed with (Authorization header first, then a presigned URL's), or None."""
    scope = _scope_in(authorization.partition(",")[0])  # read once per credential and day, not per signature
    if scope is not None:
        return scope
    match = _CREDENTIAL.search(authorization) or _QUERY_CREDENTIAL.search(url)
    return Scope(*match.groups()) if match else None


@lru_cache(maxsize=256)
def _scope_in(head: str) -> Scope | None:
    """The scope in the Authorization header's text up to its first comma (SigV4's `... Credential=<scope>`): a
    scope has no comma, so one found there is the first in the whole header."""
    match = _CREDENTIAL.search(head)
    return Scope(*match.groups()) if match else None


def region_of(authorization: str, url: str) -> str:
    """The caller's region: the credential scope's, else the endpoint's host name's, else us-east-1."""
    return region_in(scope_of(authorization, url), url)


def region_in(scope: Scope | None, url: str) -> str:
    """region_of a request whose credential scope (`scope_of`) has been read already."""
    if scope is not None:
        return scope.region
    host = _HOST_REGION.search(url)
    return host.group(1) if host else DEFAULT_REGION


def account_of(header: Callable[[str], str | None], access_key: str, by_key: Callable[[str], str]) -> str:
    """The caller's account: MOTO_ACCOUNT_ID or the x-moto-account-id header where given (moto's way of naming one),
    else the access key's (`by_key`: moto's mapping)."""
    return variable("MOTO_ACCOUNT_ID") or header("x-moto-account-id") or by_key(access_key)


def authorization(region: str, service: str, access_key: str = "eddy") -> str:
    """A SigV4 Authorization header for a request Eddy makes itself, scoped to `region` and `service` (moto and Eddy
    read the scope; neither checks the signature)."""
    return (
        f"AWS4-HMAC-SHA256 Credential={access_key}/20200101/{region}/{service}/aws4_request, "
        "SignedHeaders=host, Signature=0"
    )


def endpoint_in_region(url: str, region: str) -> str:
    """An AWS endpoint's URL with its host name's region replaced (Eddy's own endpoint, which names none, as it is)."""
    return _ENDPOINT_REGION.sub(lambda match: f".{region}.amazonaws.com", url, count=1)


def in_region(authorization_header: str, region: str) -> str:
    """The same signature's scope moved to another region (what one region's API asks of another)."""
    scope = _CREDENTIAL.search(authorization_header)
    if scope is None:
        return authorization(region, "dynamodb")
    return authorization_header[: scope.start(2)] + region + authorization_header[scope.end(2) :]
