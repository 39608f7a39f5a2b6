"""PartiQL UPDATE ... SET with literals of every type (moto's parser takes only strings), in the three
PartiQL operations, captured in the stream."""

from __future__ import annotations

from tests.emulator.helpers import create_table, read_stream


def test_updates_with_literals_of_every_type_run_in_every_partiql_operation_and_are_captured(door):
    dynamodb, streams = door.client("dynamodb"), door.client("dynamodbstreams")
    arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p1', 'v': 1}")
    dynamodb.execute_statement(Statement="UPDATE orders SET v = 2, b = true, n = null WHERE pk = 'p1'")
    dynamodb.batch_execute_statement(Statements=[
        {"Statement": "UPDATE orders SET l = [1, 'a'], m = {'k': 1.5} WHERE pk = ?", "Parameters": [{"S": "p1"}]}])
    dynamodb.execute_transaction(TransactStatements=[
        {"Statement": "UPDATE orders SET s = <<'x', 'y'>> WHERE pk = 'p1'"}])
    item = dynamodb.get_item(TableName="orders", Key={"pk": {"S": "p1"}})["Item"]
    assert item == {"pk": {"S": "p1"}, "v": {"N": "2"}, "b": {"BOOL": True}, "n": {"NULL": True},
                    "l": {"L": [{"N": "1"}, {"S": "a"}]}, "m": {"M": {"k": {"N": "1.5"}}}, "s": {"SS": ["x", "y"]}}
    records = read_stream(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "MODIFY", "MODIFY"]
    assert records[-1]["dynamodb"]["NewImage"] == item
