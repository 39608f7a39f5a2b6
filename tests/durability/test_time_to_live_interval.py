"""UpdateTimeToLive's hour survives a restart (both doors: a server killed with kill -9 after it answered, and a
process running emulate() killing itself; then a clean stop, from the snapshot): another change within an hour of the
last is still refused, and allowed an hour on the emulator's clock after it.

Sources: the DynamoDB API reference (UpdateTimeToLive: "Any additional UpdateTimeToLive calls for the same table
during this one hour duration result in a ValidationException"), in the words AWS answered the ack-api-quirks
DynamoDB finding DDB-TABLE-143 (verified 2026-10-09)."""

from __future__ import annotations

import textwrap

import pytest

from tests.durability.killed_workloads import acknowledged_then_killed, refused
from tests.durability.service_listings import running

INTERVAL = ("ValidationException", "Time to live has been modified multiple times within a fixed interval")

WORKLOAD = textwrap.dedent('''
    def workload(ddb):
        ddb.create_table(TableName="sessions", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        ddb.update_time_to_live(TableName="sessions", TimeToLiveSpecification={"AttributeName": "expires",
                                                                               "Enabled": True})
        print("ACKED", ddb.describe_time_to_live(TableName="sessions")["TimeToLiveDescription"]["TimeToLiveStatus"],
              flush=True)

    from tests.durability.killed_workloads import run_workload
    run_workload(lambda client: workload(client("dynamodb")))
''')


def change(dynamodb, enabled: bool) -> dict:
    return dynamodb.update_time_to_live(TableName="sessions", TimeToLiveSpecification={"AttributeName": "expires",
                                                                                       "Enabled": enabled})


@pytest.mark.parametrize("kind", ["server", "inprocess"])
def test_the_hour_after_a_time_to_live_change_survives_kill_9_and_a_clean_stop(kind, tmp_path):
    state = str(tmp_path / "state")
    assert acknowledged_then_killed(kind, state, WORKLOAD) == "ENABLED"
    with running(kind, state) as door:  # from the log, after kill -9
        dynamodb = door.client("dynamodb")
        assert refused(lambda: change(dynamodb, False)) == INTERVAL
        door.advance(3600)
        assert change(dynamodb, False)["TimeToLiveSpecification"] == {"AttributeName": "expires", "Enabled": False}
        assert refused(lambda: change(dynamodb, True)) == INTERVAL
    with running(kind, state) as door:  # from the snapshot the clean stop wrote
        dynamodb = door.client("dynamodb")
        assert refused(lambda: change(dynamodb, True)) == INTERVAL
        assert dynamodb.describe_time_to_live(TableName="sessions")["TimeToLiveDescription"] == {
            "TimeToLiveStatus": "DISABLED"}
