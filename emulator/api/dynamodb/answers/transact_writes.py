"""TransactWriteItems answered as DynamoDB answers it, around moto's transaction: its ClientRequestToken (the Emulator's
client_request_tokens), its ConsumedCapacity (consumed_capacity.py) and ItemCollectionMetrics
(item_collection_metrics.py). moto's own answer (`{"ConsumedCapacity": [], "ItemCollectionMetrics": {}}`) is replaced:
DynamoDB's has only what was asked for.

It runs as the engine's composed write (emulator/dynamodb/operations.py `DynamoDB.write`): under the emulator's lock
and in the operation's capture, so a token is looked at and the transaction run as one step, and the items the
transaction wrote are the capture's (`Session.written`).
"""

from __future__ import annotations

from typing import Any, Callable

from eddy.emulator.api.dynamodb.answers import collection_key, consumed_capacity, index_entries, item_collection_metrics
from eddy.emulator.aws_requests import Response
from eddy.emulator.dynamodb.client_request_tokens import ClientRequestTokens
from eddy.emulator.dynamodb.operations import Session


def answer(
    tokens: ClientRequestTokens, write: Callable[[Callable[[Session], Any]], Any], params: dict[str, Any]
) -> Response | dict[str, Any]:
    """moto's refusal as it is, or the body of DynamoDB's answer; `write(work)` runs `work` as the engine's composed
    write and commits it. The caller holds the engine's lock: a token is remembered once its transaction is committed
    (one the disk refuses leaves it unused), before any other request can look at it."""
    used: list[tuple[str, str, list[tuple[str, int]]]] = []  # the caller and the sizes written, once moto wrote
    answered = write(lambda session: _answer(tokens, session, params, used))
    for account_id, region, written in used:
        tokens.remember(account_id, region, params, written)
    return answered


def _answer(
    tokens: ClientRequestTokens, session: Session, params: dict[str, Any], used: list[Any]
) -> Response | dict[str, Any]:
    account_id, region = session.call.account_id, session.call.region
    token = params.get("ClientRequestToken")
    if token is not None:
        earlier = tokens.earlier(account_id, region, params)
        if earlier is not None:  # the same request again: nothing is written twice
            answered: dict[str, Any] = {}
            if params.get("ReturnConsumedCapacity") in consumed_capacity.MODES:
                answered["ConsumedCapacity"] = consumed_capacity.of_replay(params, earlier.written)
            _with_metrics(account_id, region, params, answered)
            return answered
    response = session.call.run()
    if response.status != 200:
        return response
    asks_capacity = params.get("ReturnConsumedCapacity") in consumed_capacity.MODES
    written = (
        [(table[2], old, new) for table, old, new in session.written() if table[:2] == (account_id, region)]
        if token is not None or asks_capacity
        else []
    )
    if token is not None:
        used.append((account_id, region, consumed_capacity.written_sizes(written)))
    answered = {}
    if asks_capacity:
        answered["ConsumedCapacity"] = consumed_capacity.of_writes(params, written, index_entries(account_id, region))
    _with_metrics(account_id, region, params, answered)
    return answered


def _with_metrics(account_id: str, region: str, params: dict[str, Any], answered: dict[str, Any]) -> None:
    if item_collection_metrics.asked(params):
        item_collection_metrics.added("TransactWriteItems", params, answered, collection_key(account_id, region))
