"""DynamoDB's rules where moto keeps older or looser ones, each set while an emulator is active:

- `moto.dynamodb.responses.TRANSACTION_MAX_ITEMS`, the actions a TransactGetItems takes, is 100 as AWS's has been
  since September 2022 (AWS's announcement "Amazon DynamoDB now supports 100 actions per transaction"; moto kept 25,
  its TransactWriteItems already takes 100). The front door refuses 101 in AWS's words
  (api/dynamodb/rules/request_collections.py) before moto counts.
- `DynamoDBBackend.list_tables`: ListTables names the tables in the order of their names, as AWS lists them (the
  AWS-recorded suite of issue 37; moto listed them in the order they were created), and an
  ExclusiveStartTableName that names no table starts after where it would be (moto started past the end).
- `DynamoDBBackend.get_keys_value` (GetItem, DeleteItem, a transaction's keys): a key without the table's hash or
  range key is refused as AWS refuses it, "The provided key element does not match the schema" (dynalite's
  test/getItem.js, written against DynamoDB: "should return ValidationException if range key does not match
  schema"; moto said "Validation Exception"), after the request's own checks, as AWS orders them.
- `DynamoDBBackend.tag_resource`: a tag given again under a key the table has replaces its value (DynamoDB API
  reference, TagResource; moto kept both).
- `DynamoType.__add__` / `__sub__` (UpdateItem's ADD, SET's + and -, AttributeUpdates' ADD): a number they make is
  written as DynamoDB stores numbers (`stored_number`: 3.5 + -3.5 is 0, 1.0 + 2 is 3; moto wrote Python's Decimal,
  `0.0`, `3.0`), as the door writes a request's numbers (api/dynamodb/rules/numbers.py; DynamoDB developer guide,
  "Number": "Leading and trailing zeroes are trimmed").

Installed with all_or_nothing.py; plain moto in the same process keeps its own.
Pinned by tests/emulator/moto_seam/test_dynamodb_rules.py.
"""

from __future__ import annotations

import bisect
import functools
from decimal import Context, Decimal
from typing import Any

from moto.dynamodb import responses
from moto.dynamodb.exceptions import MockValidationException
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType

original_transaction_max_items = responses.TRANSACTION_MAX_ITEMS
original_list_tables = DynamoDBBackend.list_tables
original_tag_resource = DynamoDBBackend.tag_resource
original_get_keys_value = DynamoDBBackend.get_keys_value
original_add, original_sub = DynamoType.__add__, DynamoType.__sub__
#: the longest plain form written out; a number whose plain form is longer (1e125, 1e-130) is kept as written:
#: how AWS writes those is not recorded
MAX_PLAIN = 40
#: exact for every number DynamoDB accepts (38 significant digits); Python's default context keeps 28 and would round
EXACT = Context(prec=38)
NOT_THE_SCHEMA = "The provided key element does not match the schema"
TRANSACTION_MAX_ITEMS = 100


def _list_tables(self: DynamoDBBackend, limit: int, exclusive_start_table_name: str) -> tuple[list[str], str | None]:
    names = sorted(self.tables)
    start = bisect.bisect_right(names, exclusive_start_table_name) if exclusive_start_table_name else 0
    page = names[start : start + limit] if limit else names[start:]
    return page, (page[-1] if limit and len(names) > start + limit else None)


def _tag_resource(self: DynamoDBBackend, arn: str, tags: dict[str, str]) -> None:
    for table in self.tables.values():
        if table.table_arn == arn:
            kept = [tag for tag in table.tags if tag["Key"] not in tags]
            table.tags = kept + [{"Key": key, "Value": value} for key, value in tags.items()]


def _get_keys_value(self: DynamoDBBackend, table: Any, keys: dict[str, Any]) -> Any:
    if table.hash_key_attr not in keys or (table.has_range_key and table.range_key_attr not in keys):
        raise MockValidationException(NOT_THE_SCHEMA)
    return original_get_keys_value(self, table, keys)


def reserved_word(name: str) -> bool:
    """Whether `name` is one of DynamoDB's reserved words, in any case (moto's copy of the developer guide's list,
    "Reserved words in DynamoDB"), which an expression names only through a placeholder."""
    return name.upper() in _reserved_words()


@functools.cache
def _reserved_words() -> frozenset[str]:
    from moto.dynamodb.parsing.reserved_keywords import ReservedKeywords  # loaded with the first such request

    return frozenset(ReservedKeywords.get_reserved_keywords())


def update_expression_refused(text: Any) -> bool:
    """Whether moto's UpdateExpression parser refuses `text` (a syntax error, which it words as DynamoDB does:
    'Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"')."""
    if not isinstance(text, str) or not text.strip():
        return False
    from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # loaded with the first such request

    try:
        UpdateExpressionParser.make(text)
    except MockValidationException:
        return True
    return False


def stored_number(text: str) -> str:
    """`text` (a number DynamoDB accepts) as DynamoDB stores it: 00042 is 42, 1.5E2 150, 1.0 1, -0 0."""
    value = Decimal(text).normalize(EXACT)
    if not value:
        return "0"
    plain = format(value, "f")
    return plain if len(plain) <= MAX_PLAIN else text


def _add(self: DynamoType, other: DynamoType) -> DynamoType:
    total = original_add(self, other)
    if total.is_number():
        total.value = stored_number(total.value)
    return total


def _sub(self: DynamoType, other: DynamoType) -> DynamoType:
    difference = original_sub(self, other)
    difference.value = stored_number(difference.value)  # moto subtracts numbers only
    return difference


def install() -> None:
    responses.TRANSACTION_MAX_ITEMS = TRANSACTION_MAX_ITEMS
    DynamoDBBackend.list_tables = _list_tables  # type: ignore[method-assign]
    DynamoDBBackend.tag_resource = _tag_resource  # type: ignore[method-assign]
    DynamoDBBackend.get_keys_value = _get_keys_value  # type: ignore[method-assign]
    DynamoType.__add__, DynamoType.__sub__ = _add, _sub  # type: ignore[method-assign]


def uninstall() -> None:
    responses.TRANSACTION_MAX_ITEMS = original_transaction_max_items
    DynamoDBBackend.list_tables = original_list_tables  # type: ignore[method-assign]
    DynamoDBBackend.tag_resource = original_tag_resource  # type: ignore[method-assign]
    DynamoDBBackend.get_keys_value = original_get_keys_value  # type: ignore[method-assign]
    DynamoType.__add__, DynamoType.__sub__ = original_add, original_sub  # type: ignore[method-assign]
