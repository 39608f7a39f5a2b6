"""moto_seam/dynamodb_limits.py pinned against moto's own limits: a moto upgrade that changes them fails here."""

from __future__ import annotations

from moto.dynamodb import responses

from eddy import emulate
from eddy.emulator.moto_seam import dynamodb_limits


def test_transact_get_items_takes_100_actions_while_an_emulator_runs_and_moto_its_own_25_after():
    assert dynamodb_limits.original_transaction_max_items == 25  # moto's limit (AWS's before September 2022)
    with emulate(housekeeping_interval=None):
        assert responses.TRANSACTION_MAX_ITEMS == dynamodb_limits.TRANSACTION_MAX_ITEMS == 100
    assert responses.TRANSACTION_MAX_ITEMS == 25
