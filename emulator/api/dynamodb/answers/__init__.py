"""What DynamoDB answers about a write beyond its items, where moto answers otherwise: a transaction's
ConsumedCapacity (consumed_capacity.py), ItemCollectionMetrics for tables with a local secondary index
(item_collection_metrics.py), and a TransactWriteItems' ClientRequestToken (transact_writes.py, with the Emulator's
client_request_tokens: the same request again within ten minutes answered without writing twice, another request under
the token refused).

Each is asked for by the request (ReturnConsumedCapacity, ReturnItemCollectionMetrics, ClientRequestToken), so a
request that asks for none of them costs one dictionary look-up.
"""

from __future__ import annotations

from typing import Callable

from eddy.emulator.moto_seam.tables import views as moto_tables


def table_indexes(account_id: str, region: str) -> Callable[[str], tuple[str | None, dict, dict]]:
    """A table's partition key attribute and its global and local secondary indexes (None and none: no such table)."""
    return lambda table_name: moto_tables.indexes(account_id, region, table_name)


def index_entries(account_id: str, region: str) -> Callable[[str], tuple[dict, dict]]:
    """A table's global and local secondary indexes: name -> (key attributes, the attributes an entry keeps, None for
    all), what an item write's capacity in each is measured on."""
    return lambda table_name: moto_tables.index_entries(account_id, region, table_name)


def collection_key(account_id: str, region: str) -> Callable[[str], str | None]:
    """A table's partition key attribute if the table has a local secondary index (its items form item collections)."""
    indexes = table_indexes(account_id, region)

    def key(table_name: str) -> str | None:
        hash_key, _, local = indexes(table_name)
        return hash_key if local else None

    return key
