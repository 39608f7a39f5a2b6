"""DynamoDB's limits where moto keeps older ones: `moto.dynamodb.responses.TRANSACTION_MAX_ITEMS`, the actions a
TransactGetItems takes, is 100 as AWS's has been since September 2022 (AWS's announcement "Amazon DynamoDB now
supports 100 actions per transaction"; moto kept 25, its TransactWriteItems already takes 100). The front door
refuses 101 in AWS's words (api/dynamodb_rules/request_collections.py) before moto counts.

Installed with all_or_nothing.py while an emulator is active; plain moto in the same process keeps its own.
Pinned by tests/emulator/moto_seam/test_dynamodb_limits.py.
"""

from __future__ import annotations

from moto.dynamodb import responses

original_transaction_max_items = responses.TRANSACTION_MAX_ITEMS
TRANSACTION_MAX_ITEMS = 100


def install() -> None:
    responses.TRANSACTION_MAX_ITEMS = TRANSACTION_MAX_ITEMS


def uninstall() -> None:
    responses.TRANSACTION_MAX_ITEMS = original_transaction_max_items
