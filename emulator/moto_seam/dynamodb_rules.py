"""DynamoDB's rules where moto keeps older or looser ones, each set while an emulator is active:

- `moto.dynamodb.responses.TRANSACTION_MAX_ITEMS`, the actions a TransactGetItems takes, is 100 as AWS's has been
  since September 2022 (AWS's announcement "Amazon DynamoDB now supports 100 actions per transaction"; moto kept 25,
  its TransactWriteItems already takes 100). The front door refuses 101 in AWS's words
  (api/dynamodb_rules/request_collections.py) before moto counts.
- `DynamoDBBackend.list_tables`: ListTables names the tables in the order of their names, as AWS lists them (the
  AWS-recorded suite of issue 37; moto listed them in the order they were created), and an
  ExclusiveStartTableName that names no table starts after where it would be (moto started past the end).
- `DynamoDBBackend.tag_resource`: a tag given again under a key the table has replaces its value (DynamoDB API
  reference, TagResource; moto kept both).

Installed with all_or_nothing.py; plain moto in the same process keeps its own.
Pinned by tests/emulator/moto_seam/test_dynamodb_rules.py.
"""

from __future__ import annotations

import bisect

from moto.dynamodb import responses
from moto.dynamodb.models import DynamoDBBackend

original_transaction_max_items = responses.TRANSACTION_MAX_ITEMS
original_list_tables = DynamoDBBackend.list_tables
original_tag_resource = DynamoDBBackend.tag_resource
TRANSACTION_MAX_ITEMS = 100


def _list_tables(self: DynamoDBBackend, limit: int, exclusive_start_table_name: str) -> tuple[list[str], str | None]:
    names = sorted(self.tables)
    start = bisect.bisect_right(names, exclusive_start_table_name) if exclusive_start_table_name else 0
    page = names[start:start + limit] if limit else names[start:]
    return page, (page[-1] if limit and len(names) > start + limit else None)


def _tag_resource(self: DynamoDBBackend, arn: str, tags: dict[str, str]) -> None:
    for table in self.tables.values():
        if table.table_arn == arn:
            kept = [tag for tag in table.tags if tag["Key"] not in tags]
            table.tags = kept + [{"Key": key, "Value": value} for key, value in tags.items()]


def install() -> None:
    responses.TRANSACTION_MAX_ITEMS = TRANSACTION_MAX_ITEMS
    DynamoDBBackend.list_tables = _list_tables  # type: ignore[method-assign]
    DynamoDBBackend.tag_resource = _tag_resource  # type: ignore[method-assign]


def uninstall() -> None:
    responses.TRANSACTION_MAX_ITEMS = original_transaction_max_items
    DynamoDBBackend.list_tables = original_list_tables  # type: ignore[method-assign]
    DynamoDBBackend.tag_resource = original_tag_resource  # type: ignore[method-assign]
