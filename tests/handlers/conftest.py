"""Fixtures for the handler tests: an in-process Eddy and real boto3 clients of it."""

from __future__ import annotations

from typing import Any, Iterator

import boto3
import pytest

from eddy import emulate

REGION = "us-east-1"


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": REGION}.items():
        monkeypatch.setenv(name, value)
    with emulate(housekeeping_interval=None) as emulator:
        yield emulator


@pytest.fixture
def dynamodb(emu: Any) -> Any:
    return boto3.client("dynamodb", region_name=REGION)


@pytest.fixture
def streams(emu: Any) -> Any:
    return boto3.client("dynamodbstreams", region_name=REGION)
