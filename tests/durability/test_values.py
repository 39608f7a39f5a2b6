"""Every attribute value a client can send round-trips exactly, on every write API, to every reader: GetItem, the
stream's NewImage, and both again after a restart (the write-ahead log replayed, the segments read back).

A property test (hypothesis): random items of every type (strings of any characters and empty ones, binary values
and empty ones, numbers at DynamoDB's limits of 38 significant digits and magnitudes 1E-130 to 9.99...E+125, string,
number and binary sets, BOOL, NULL, lists and maps nested three deep) through PutItem, UpdateItem (an update
expression, and the legacy AttributeUpdates), BatchWriteItem, TransactWriteItems and PartiQL's INSERT. What comes
back is compared with what was sent as DynamoDB returns it: a set's members in any order. Numbers are generated in
the form DynamoDB answers with (no exponent, no leading or trailing zeros: ExtendDB's checks against DynamoDB,
github.com/ExtendDB/extenddb/pull/7), so no normalization is assumed of Eddy here.
"""

from __future__ import annotations

from decimal import Context, Decimal
from typing import Any

import boto3
from hypothesis import HealthCheck, given, settings, strategies as st

from eddy import emulate

TABLE = {"TableName": "values", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST",
         "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}

texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)  # any character UTF-8 can carry
member_texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=10)


@st.composite
def numbers(draw: Any) -> str:
    """A number as DynamoDB returns it: up to 38 significant digits, magnitude 1E-130 to under 1E+126, or 0."""
    digits = draw(st.integers(1, 38))
    coefficient = draw(st.integers(10 ** (digits - 1), 10 ** digits - 1))
    adjusted = draw(st.one_of(st.integers(-130, 125), st.sampled_from([-130, 125, 0, 37])))
    value = Decimal(f"{coefficient}E{adjusted - digits + 1}").normalize(Context(prec=50))  # exact: no rounding
    if draw(st.booleans()):
        value = value.copy_negate()  # exact: unary minus rounds to the default context's 28 digits
    return "0" if draw(st.integers(0, 20)) == 0 else format(value, "f")


def number_sets(values: list[str]) -> list[str]:
    unique: dict[Decimal, str] = {}
    for value in values:
        unique.setdefault(Decimal(value), value)
    return list(unique.values())


scalars = st.one_of(
    texts.map(lambda v: {"S": v}), numbers().map(lambda v: {"N": v}), st.binary(max_size=20).map(lambda v: {"B": v}),
    st.booleans().map(lambda v: {"BOOL": v}), st.just({"NULL": True}),
    st.lists(member_texts, min_size=1, max_size=4, unique=True).map(lambda v: {"SS": v}),
    st.lists(numbers(), min_size=1, max_size=4).map(lambda v: {"NS": number_sets(v)}),
    st.lists(st.binary(min_size=1, max_size=8), min_size=1, max_size=4, unique=True).map(lambda v: {"BS": v}))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3).map(lambda v: {"L": v}),
    st.dictionaries(member_texts, inner, max_size=3).map(lambda v: {"M": v})), max_leaves=8)
names = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8).filter(lambda name: name != "pk")
attributes = st.dictionaries(names, values, min_size=1, max_size=5)


def as_returned(value: dict[str, Any]) -> Any:
    """A value with its sets' members in one order (DynamoDB keeps no order in a set)."""
    ((kind, content),) = value.items()
    if kind in ("SS", "BS"):
        return kind, sorted(content)
    if kind == "NS":
        return kind, sorted(content, key=Decimal)
    if kind == "L":
        return kind, [as_returned(member) for member in content]
    if kind == "M":
        return kind, {name: as_returned(member) for name, member in content.items()}
    return kind, content


def item_as_returned(item: dict[str, Any]) -> dict[str, Any]:
    return {name: as_returned(value) for name, value in item.items()}


def write(ddb: Any, api: str, key: str, attrs: dict[str, Any]) -> None:
    item = {"pk": {"S": key}, **attrs}
    if api == "PutItem":
        ddb.put_item(TableName="values", Item=item)
    elif api == "UpdateItem":
        names = {f"#a{n}": name for n, name in enumerate(attrs)}
        ddb.update_item(TableName="values", Key={"pk": {"S": key}},
                        UpdateExpression="SET " + ", ".join(f"#a{n} = :v{n}" for n in range(len(attrs))),
                        ExpressionAttributeNames=names,
                        ExpressionAttributeValues={f":v{n}": value for n, value in enumerate(attrs.values())})
    elif api == "AttributeUpdates":
        ddb.update_item(TableName="values", Key={"pk": {"S": key}},
                        AttributeUpdates={name: {"Action": "PUT", "Value": value} for name, value in attrs.items()})
    elif api == "BatchWriteItem":
        ddb.batch_write_item(RequestItems={"values": [{"PutRequest": {"Item": item}}]})
    elif api == "TransactWriteItems":
        ddb.transact_write_items(TransactItems=[{"Put": {"TableName": "values", "Item": item}}])
    else:
        fields = ", ".join(f"'{name}': ?" for name in item)
        ddb.execute_statement(Statement=f'INSERT INTO "values" VALUE {{{fields}}}', Parameters=list(item.values()))


APIS = ["PutItem", "UpdateItem", "AttributeUpdates", "BatchWriteItem", "TransactWriteItems", "ExecuteStatement"]


def stream_images(ddb: Any, streams: Any) -> dict[str, dict[str, Any]]:
    """Each key's NewImage in the stream (its one INSERT)."""
    arn = ddb.describe_table(TableName="values")["Table"]["LatestStreamArn"]
    images = {}
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator)
            for record in page["Records"]:
                assert record["eventName"] == "INSERT"
                images[record["dynamodb"]["Keys"]["pk"]["S"]] = item_as_returned(record["dynamodb"]["NewImage"])
            iterator = page.get("NextShardIterator") if page["Records"] else None
    return images


def test_every_value_round_trips_through_every_write_api_to_every_reader(tmp_path):
    state = tmp_path / "state"
    written: dict[str, dict[str, Any]] = {}
    with emulate(state_dir=state, housekeeping_interval=None):
        ddb, streams = boto3.client("dynamodb", region_name="us-east-1"), boto3.client("dynamodbstreams",
                                                                                        region_name="us-east-1")
        ddb.create_table(**TABLE)

        @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
        @given(api=st.sampled_from(APIS), attrs=attributes)
        def round_trip(api: str, attrs: dict[str, Any]) -> None:
            key = f"{api}-{len(written)}"
            write(ddb, api, key, attrs)
            expected = item_as_returned({"pk": {"S": key}, **attrs})
            got = ddb.get_item(TableName="values", Key={"pk": {"S": key}}, ConsistentRead=True)["Item"]
            assert item_as_returned(got) == expected
            written[key] = expected

        round_trip()
        assert stream_images(ddb, streams) == written
    with emulate(state_dir=state, housekeeping_interval=None):  # the log replayed, the segments read back
        ddb, streams = boto3.client("dynamodb", region_name="us-east-1"), boto3.client("dynamodbstreams",
                                                                                        region_name="us-east-1")
        items = ddb.get_paginator("scan").paginate(TableName="values", ConsistentRead=True)
        assert {item["pk"]["S"]: item_as_returned(item) for page in items for item in page["Items"]} == written
        assert stream_images(ddb, streams) == written
