"""TransactWriteItems' ClientRequestToken, as DynamoDB keeps it (DynamoDB API reference, TransactWriteItems
ClientRequestToken): a token is valid for 10 minutes after the first request that uses it completes; the same request
under it within those minutes writes nothing again and succeeds; another request under it is refused with
IdempotentParameterMismatchException. After 10 minutes the token is new again.

"The same request" is the same TransactItems read as data: LocalStack's AWS-validated
test_dynamodb_idempotent_writing sends one item with its attributes in another order under the same token and AWS
answers 200 both times. ReturnConsumedCapacity and ReturnItemCollectionMetrics may differ (the API reference: the
responses to identical calls "might not be the same", the later ones reporting read capacity). A token is kept only
for a transaction that succeeded: a cancelled one wrote nothing and may be sent again. The time is the emulator's
clock, so a test moves past the window with clock.advance(601). Tokens are kept per account and region, in memory
(a restart forgets them, as a retry after 10 minutes would find them forgotten).

The message: no recorded AWS answer names one (DynamoDB Local answers the type with an empty message, aws-sdk-go-v2
issue #1900); Eddy gives the model's description of the error (botocore's dynamodb service-2.json).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, Callable

from eddy.emulator.errors import AWSError

WINDOW_SECONDS = 600.0
MISMATCH = (
    "DynamoDB rejected the request because you retried a request with a different payload but with an "
    "idempotent token that was already used."
)


class IdempotentParameterMismatchException(AWSError):
    code = "IdempotentParameterMismatchException"


@dataclass
class Used:
    request: str  # the TransactItems, as data
    at: float  # when the first request completed
    written: list[tuple[str, int]]  # (table, size) of each item it wrote: a repeat is charged as reading them


class ClientRequestTokens:
    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._lock = threading.Lock()
        self._used: dict[tuple[str, str, str], Used] = {}

    def earlier(self, account_id: str, region: str, params: dict[str, Any]) -> Used | None:
        """The first request under the token of `params` if it is the same one (its repeat writes nothing); None when
        the token is new or its 10 minutes are over; IdempotentParameterMismatchException for another request."""
        key = (account_id, region, params["ClientRequestToken"])
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

    def remember(self, account_id: str, region: str, params: dict[str, Any], written: list[tuple[str, int]]) -> None:
        now = self._now()
        with self._lock:
            self._used = {key: used for key, used in self._used.items() if now - used.at <= WINDOW_SECONDS}
            self._used[(account_id, region, params["ClientRequestToken"])] = Used(_request(params), now, written)

    def reset(self) -> None:
        with self._lock:
            self._used.clear()


def _request(params: dict[str, Any]) -> str:
    return json.dumps(params.get("TransactItems"), sort_keys=True)
