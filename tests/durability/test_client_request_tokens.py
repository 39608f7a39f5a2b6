"""TransactWriteItems' ClientRequestToken survives a restart within its 10 minutes (both doors: a server killed with
kill -9 after it answered, and a process running emulate() killing itself; then a clean stop, from the snapshot): the
same request again writes nothing and succeeds, another request under the token is refused, and 10 minutes on the
emulator's clock after its first use the token is new again.

Sources: the DynamoDB API reference (TransactWriteItems, ClientRequestToken: "valid for 10 minutes after the first
request that uses it is completed"; another request within the window is IdempotentParameterMismatch); DynamoDB's
words in a production log (aexhq/brain pull request #58)."""

from __future__ import annotations

import textwrap

import pytest

from tests.durability.killed_workloads import acknowledged_then_killed, refused
from tests.durability.service_listings import running

ADD_ONE = [{"Update": {"TableName": "counters", "Key": {"pk": {"S": "c"}}, "UpdateExpression": "ADD n :one",
                       "ExpressionAttributeValues": {":one": {"N": "1"}}}}]
ADD_TWO = [{"Update": {**ADD_ONE[0]["Update"], "ExpressionAttributeValues": {":one": {"N": "2"}}}}]
MISMATCH = ("IdempotentParameterMismatchException",
            "Specified idempotent token was used with different request parameters within the idempotency window")

WORKLOAD = textwrap.dedent(f'''
    def workload(ddb):
        ddb.create_table(TableName="counters", KeySchema=[{{"AttributeName": "pk", "KeyType": "HASH"}}],
                         AttributeDefinitions=[{{"AttributeName": "pk", "AttributeType": "S"}}],
                         BillingMode="PAY_PER_REQUEST")
        ddb.transact_write_items(TransactItems={ADD_ONE!r}, ClientRequestToken="first-token")
        print("ACKED", ddb.get_item(TableName="counters", Key={{"pk": {{"S": "c"}}}})["Item"]["n"]["N"], flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(lambda client: workload(client("dynamodb")))
''')


def counter(dynamodb) -> str:
    return dynamodb.get_item(TableName="counters", Key={"pk": {"S": "c"}})["Item"]["n"]["N"]


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_a_token_is_kept_across_kill_9_and_a_clean_stop_for_its_ten_minutes(kind, tmp_path):
    state = str(tmp_path / "state")
    assert acknowledged_then_killed(kind, state, WORKLOAD) == "1"
    with running(kind, state) as door:  # from the log, after kill -9
        dynamodb = door.client("dynamodb")
        answer = dynamodb.transact_write_items(TransactItems=ADD_ONE, ClientRequestToken="first-token")
        assert {key: value for key, value in answer.items() if key != "ResponseMetadata"} == {}
        assert counter(dynamodb) == "1"  # not written twice
        assert refused(lambda: dynamodb.transact_write_items(TransactItems=ADD_TWO,
                                                             ClientRequestToken="first-token")) == MISMATCH
        dynamodb.transact_write_items(TransactItems=ADD_TWO, ClientRequestToken="second-token")
        assert counter(dynamodb) == "3"
        door.advance(601)  # the first token's 10 minutes are over
        dynamodb.transact_write_items(TransactItems=ADD_TWO, ClientRequestToken="first-token")
        assert counter(dynamodb) == "5"
        dynamodb.transact_write_items(TransactItems=ADD_ONE, ClientRequestToken="third-token")
        assert counter(dynamodb) == "6"
    with running(kind, state) as door:  # from the snapshot the clean stop wrote
        dynamodb = door.client("dynamodb")
        dynamodb.transact_write_items(TransactItems=ADD_ONE, ClientRequestToken="third-token")
        assert counter(dynamodb) == "6"
        assert refused(lambda: dynamodb.transact_write_items(TransactItems=ADD_ONE,
                                                             ClientRequestToken="first-token")) == MISMATCH
