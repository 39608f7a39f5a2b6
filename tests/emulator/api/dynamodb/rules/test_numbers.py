"""Numbers stored as DynamoDB stores them, however the request wrote them: read back, in sets, in maps, set by an
UpdateExpression's value, written by a transaction, and in the stream's records.

Sources: the AWS-recorded suite of issue 37 (`00042`, `1.5E2`, `1.0`, `-0` read back from AWS as `42`, `150`, `1`,
`0`); DynamoDB's developer guide, "Data types", Number: "Leading and trailing zeroes are trimmed"."""

from __future__ import annotations

from tests.emulator.helpers import N, S, create_table, read_stream


def test_numbers_are_stored_as_dynamodb_stores_them_and_streamed_so(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    stream_arn = create_table(dynamodb)["LatestStreamArn"]
    written = {"pk": S("a"), "lead": N("00042"), "exp": N("1.5E2"), "point": N("1.0"), "minus_zero": N("-0"),
               "trail": N("0.10"), "small": N("1E-5"), "set": {"NS": ["1.0", "020"]}, "map": {"M": {"n": N("7.50")}},
               "list": {"L": [N("+3")]}, "plain": N("12"), "digits38": N("12345678901234567890123456789012345678"),
               "fraction": N("3538137503597915114673052162457.60")}
    stored = {"pk": S("a"), "lead": N("42"), "exp": N("150"), "point": N("1"), "minus_zero": N("0"), "trail": N("0.1"),
              "small": N("0.00001"), "set": {"NS": ["1", "20"]}, "map": {"M": {"n": N("7.5")}}, "list": {"L": [N("3")]},
              "plain": N("12"), "digits38": N("12345678901234567890123456789012345678"),
              "fraction": N("3538137503597915114673052162457.6")}  # every one of 38 digits kept, none rounded
    dynamodb.put_item(TableName="orders", Item=written)
    got = dynamodb.get_item(TableName="orders", Key={"pk": S("a")})["Item"]
    assert {**got, "set": {"NS": sorted(got["set"]["NS"])}} == stored
    dynamodb.update_item(TableName="orders", Key={"pk": S("a")}, UpdateExpression="SET plain = :v",
                         ExpressionAttributeValues={":v": N("2.50")})
    dynamodb.transact_write_items(TransactItems=[{"Put": {"TableName": "orders", "Item": {"pk": S("b"),
                                                                                           "n": N("0100")}}}])
    assert dynamodb.get_item(TableName="orders", Key={"pk": S("a")})["Item"]["plain"] == N("2.5")
    assert dynamodb.get_item(TableName="orders", Key={"pk": S("b")})["Item"] == {"pk": S("b"), "n": N("100")}
    images = [record["dynamodb"]["NewImage"] for record in read_stream(streams, stream_arn)]
    assert images[0]["lead"] == N("42") and images[0]["exp"] == N("150") and images[1]["plain"] == N("2.5")
    assert images[2] == {"pk": S("b"), "n": N("100")}
