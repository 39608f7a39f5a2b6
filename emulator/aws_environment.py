"""The region and credentials a process talking to Eddy uses when it has none configured, as moto's mock_aws does.

A machine without AWS configuration (a CI runner, a new laptop) has no region and no credentials: boto3 then
refuses to make a client (NoRegionError) or to sign a request (NoCredentialsError) before Eddy sees anything.
`emulate()`, the pytest plugin and the `eddy` commands that call Eddy fill in only what is missing: a region
(us-east-1, Eddy's default) and fake credentials. What the process has configured (environment variables, a
profile in ~/.aws/config or ~/.aws/credentials) is left alone.

    with local_aws_environment():           # AWS_DEFAULT_REGION and fake keys only where none are configured
        boto3.client("dynamodb")             # no NoRegionError
    session_for(endpoint_url, region=None)   # a boto3 Session for one endpoint, same defaults

Credentials are looked for without asking an instance metadata service or a container's credentials
endpoint (each would wait for a timeout on a machine that has none): environment, shared files, profiles.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

import boto3
import botocore.session

DEFAULT_REGION = "us-east-1"
#: what a process without credentials signs with (the values moto's and LocalStack's documentation use)
FAKE_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
#: credential providers that ask a service over the network: not asked whether credentials are configured
_NETWORK_PROVIDERS = ("iam-role", "container-role")


def configured_region() -> str | None:
    """The region boto3 would use: AWS_DEFAULT_REGION, or the profile's region in ~/.aws/config."""
    return botocore.session.Session().get_config_variable("region") or os.environ.get("AWS_REGION") or None


def credentials_configured() -> bool:
    """Whether boto3 finds credentials without the network (environment, shared files, profiles, processes)."""
    session = botocore.session.Session()
    resolver = session.get_component("credential_provider")
    for name in _NETWORK_PROVIDERS:
        resolver.remove(name)
    try:
        return resolver.load_credentials() is not None
    except Exception:  # a profile that names no credentials, a broken credential_process: none usable
        return False


def missing_variables() -> dict[str, str]:
    """The variables to set so that boto3 has a region and credentials: only those not configured."""
    missing: dict[str, str] = {}
    if configured_region() is None:
        missing["AWS_DEFAULT_REGION"] = DEFAULT_REGION
    if not credentials_configured():
        missing.update(FAKE_CREDENTIALS)
    return missing


@contextmanager
def local_aws_environment() -> Iterator[dict[str, str]]:
    """Set the missing region and credentials in os.environ for the block; restore what was there after.
    Yields what it set."""
    missing = missing_variables()
    saved = {name: os.environ.get(name) for name in missing}
    os.environ.update(missing)
    try:
        yield missing
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def session_for(endpoint_url: str | None, region: str | None = None) -> boto3.session.Session:
    """A boto3 Session for talking to Eddy at `endpoint_url`: `region` or the configured one or us-east-1, and
    fake credentials when none are configured (None: AWS itself, whose credentials are the caller's business)."""
    region = region or configured_region() or DEFAULT_REGION
    if endpoint_url is not None and not credentials_configured():
        return boto3.session.Session(region_name=region, **{name.lower(): value for name, value in FAKE_CREDENTIALS.items()})
    return boto3.session.Session(region_name=region)
