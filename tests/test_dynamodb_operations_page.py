"""docs/reference/dynamodb-operations.md stays true: it names every operation of botocore's DynamoDB and DynamoDB
Streams models once, each with one of the three statuses, and the operations it calls not served are exactly those
Eddy answers with HTTP 501 (absent_features.NOT_EMULATED)."""

from __future__ import annotations

import re
from pathlib import Path

import botocore.session

from eddy.emulator.api.dynamodb.absent_features import NOT_EMULATED

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "dynamodb-operations.md"
STATUSES = {"served exactly", "served with listed differences", "not served"}
OPERATION = re.compile(r"[A-Z][A-Za-z]+")


def rows() -> list[tuple[str, str, str]]:
    """(operation, status, differences) of each row of the page's tables."""
    cells = [[cell.strip() for cell in line.strip().strip("|").split(" | ")]
             for line in PAGE.read_text().splitlines() if line.startswith("| ")]
    return [(row[0], row[1], row[2] if len(row) > 2 else "") for row in cells
            if OPERATION.fullmatch(row[0]) and row[0] != "Operation"]


def test_every_operation_of_the_models_is_listed_once_with_a_status():
    session = botocore.session.get_session()
    operations = {name for service in ("dynamodb", "dynamodbstreams")
                  for name in session.get_service_model(service).operation_names}
    listed = [operation for operation, _, _ in rows()]
    assert sorted(listed) == sorted(operations)
    assert {status for _, status, _ in rows()} <= STATUSES
    assert all(differences.strip() for _, status, differences in rows() if status == "served with listed differences")


def test_the_operations_not_served_are_the_ones_answered_with_501():
    assert {operation for operation, status, _ in rows() if status == "not served"} == set(NOT_EMULATED)
