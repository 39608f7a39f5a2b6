"""TransactWriteItems' ClientRequestToken, as DynamoDB keeps it (DynamoDB API reference, TransactWriteItems
ClientRequestToken): a token is valid for 10 minutes after the first request that uses it completes; the same request
under it within those minutes writes nothing again and succeeds; another request under it is refused with
IdempotentParameterMismatchException. After 10 minutes the token is new again.

"The same request" is the same TransactItems read as data: LocalStack's AWS-validated
test_dynamodb_idempotent_writing sends one item with its attributes in another order under the same token and AWS
answers 200 both times. ReturnConsumedCapacity and ReturnItemCollectionMetrics may differ (the API reference: the
responses to identical calls "might not be the same", the later ones reporting read capacity). A token is kept only
for a transaction that succeeded and was committed: a cancelled one, or one the disk refused, wrote nothing and may be
sent again. The time is the emulator's clock, so a test moves past the window with clock.advance(601). Tokens are kept
per account, region and operation: PartiQL's ExecuteTransaction keeps its own under the same rules, its
TransactStatements being the request (nubo-db/dynoxide pull request #125, characterised against DynamoDB: a
same-token, same-statements call within the window is not run again, other statements are
IdempotentParameterMismatchException, the tokens apart from TransactWriteItems'); and on a durable emulator in the log and snapshots (this module is their durable channel):
a restart within the 10 minutes still knows them.

The message is the one DynamoDB answered in a production log (aexhq/brain pull request #58, a TransactWriteItems
retried under its token with another request: "IdempotentParameterMismatchException: Specified idempotent token was
used with different request parameters within the idempotency window").
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from eddy.emulator.errors import AWSError
from eddy.emulator.storage.channels import NOT_KEPT, Channel, DurableLog

WINDOW_SECONDS = 600.0
MISMATCH = "Specified idempotent token was used with different request parameters within the idempotency window"


class IdempotentParameterMismatchException(AWSError):
    code = "IdempotentParameterMismatchException"


@dataclass
class Used:
    request: str  # the TransactItems (an ExecuteTransaction's TransactStatements), as data
    at: float  # when the first request completed
    written: list[tuple[str, int]]  # (table, size) of each item it wrote: a repeat is charged as reading them


class ClientRequestTokens(Channel):
    """The tokens used in the last 10 minutes, and their durable channel (a log entry per token used, the tokens still
    in their window in a snapshot)."""

    name, ops, kinds = "client_request_tokens", ("client_request_token",), ("client_request_token",)

    def __init__(self, now: Callable[[], float], log: DurableLog = NOT_KEPT) -> None:
        self._now = now
        self._log = log
        self._lock = threading.Lock()
        self._used: dict[tuple[str, str, str, str], Used] = {}  # by account, region, operation, token

    def earlier(
        self, account_id: str, region: str, params: dict[str, Any], operation: str = "TransactWriteItems"
    ) -> Used | None:
        """The first request of `operation` under the token of `params` if it is the same one (its repeat writes
        nothing); None when the token is new or its 10 minutes are over; IdempotentParameterMismatchException for
        another request."""
        key = (account_id, region, operation, params["ClientRequestToken"])
        with self._lock:
            used = self._used.get(key)
            if used is None:
                return None
            if self._now() - used.at > WINDOW_SECONDS:
                del self._used[key]
                return None
        if used.request != _request(params):
            raise IdempotentParameterMismatchException(MISMATCH)
        return used

    def remember(
        self,
        account_id: str,
        region: str,
        params: dict[str, Any],
        written: list[tuple[str, int]],
        operation: str = "TransactWriteItems",
    ) -> None:
        """The token of `params` used by this request of `operation`, now (once its transaction is committed), and
        logged."""
        now, key = self._now(), (account_id, region, operation, params["ClientRequestToken"])
        used = Used(_request(params), now, written)
        with self._lock:
            self._used = {kept_key: kept for kept_key, kept in self._used.items() if now - kept.at <= WINDOW_SECONDS}
            self._used[key] = used
        if self._log.durable:
            self._log.log(_entry("op", key, used))

    def replay(self, entry: dict[str, Any]) -> None:
        key = (entry["account_id"], entry["region"], entry.get("operation", "TransactWriteItems"), entry["token"])
        self._used[key] = Used(entry["request"], entry["at"], [(table, size) for table, size in entry["written"]])

    def snapshot_entries(self, generation: int) -> Iterator[dict[str, Any]]:
        now = self._now()
        with self._lock:
            kept = [(key, used) for key, used in self._used.items() if now - used.at <= WINDOW_SECONDS]
        return (_entry("kind", key, used) for key, used in kept)

    def reset(self) -> None:
        with self._lock:
            self._used.clear()


def _entry(field: str, key: tuple[str, str, str, str], used: Used) -> dict[str, Any]:
    account_id, region, operation, token = key
    return {
        field: "client_request_token",
        "account_id": account_id,
        "region": region,
        "operation": operation,
        "token": token,
        "request": used.request,
        "at": used.at,
        "written": [list(pair) for pair in used.written],
    }


def _request(params: dict[str, Any]) -> str:
    """The request as data: a TransactWriteItems' TransactItems, an ExecuteTransaction's TransactStatements."""
    return json.dumps(params.get("TransactItems", params.get("TransactStatements")), sort_keys=True)
