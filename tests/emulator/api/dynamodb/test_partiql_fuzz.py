"""Seeded, bounded fuzzing of PartiQL: valid statements of every form, mutated (tokens inserted, dropped,
replaced; parameters of every type, too many or too few), sent through the three PartiQL operations. Every
answer is a success or one of AWS's errors in AWS's words: never a 5xx, never a Python exception's name, never
the catch-all answer for a request moto failed on."""

from __future__ import annotations

import random
import re

from botocore.exceptions import ClientError

from tests.emulator.helpers import create_table

FORMS = [
    "SELECT * FROM orders WHERE pk = 'p1'",
    "SELECT v, l[0], m.a FROM orders WHERE pk IN ['p1', 'p2'] AND v BETWEEN 0 AND 9",
    "UPDATE orders SET v = v + 1, l = list_append(l, [1]) REMOVE m.a WHERE pk = 'p1'",
    "UPDATE orders SET s = set_add(s, <<'a'>>) WHERE pk = ? AND attribute_exists(v)",
    "INSERT INTO orders VALUE {'pk': 'p2', 'l': [1, {'k': <<1, 2>>}], 'b': true, 'z': null}",
    "DELETE FROM orders WHERE pk = 'p2' AND v IS MISSING RETURNING ALL OLD *",
    "EXISTS(SELECT * FROM orders WHERE pk = 'p1' AND begins_with(t, 'x'))",
]
PIECES = ["SELECT", "*", "FROM", "orders", "WHERE", "pk", "=", "'p1'", "?", "AND", "OR", "NOT", "(", ")", "[", "]",
          "{", "}", "<<", ">>", ",", ".", ":", "1", "-", "+", "INSERT", "INTO", "VALUE", "UPDATE", "SET", "REMOVE",
          "DELETE", "v", "l", "RETURNING", "ALL", "OLD", "NEW", "IN", "BETWEEN", "IS", "MISSING", "NULL", "true",
          "list_append", "set_add", "set_delete", "size", "begins_with", "EXISTS", "ORDER", "BY", "DESC", "'x'",
          "\"orders\"", "m", "[0]", "<=", "<>", "'", "\"", "nowhere", ";", "1e400", "-0.5"]
PARAMETERS = [{"S": "p1"}, {"N": "1"}, {"L": [{"S": "x"}]}, {"NULL": True}, {"SS": ["a"]}, {"NS": ["1"]},
              {"B": b"\x00"}, {"M": {"k": {"BOOL": True}}}]
INTERNAL = re.compile(r"[A-Z][a-z]+Error\b|Traceback|object has no|NoneType|request id")
CODES = {"ValidationException", "ConditionalCheckFailedException", "DuplicateItemException", "ResourceNotFoundException",
         "TransactionCanceledException"}


def mutated(rng: random.Random) -> str:
    words = rng.choice(FORMS).split()
    for _ in range(rng.randint(0, 3)):
        at = rng.randrange(len(words) + 1)
        choice = rng.random()
        if choice < 0.4:
            words.insert(at, rng.choice(PIECES))
        elif words and choice < 0.7:
            words.pop(min(at, len(words) - 1))
        elif words:
            words[min(at, len(words) - 1)] = rng.choice(PIECES)
    return " ".join(words) or "?"


def test_mutated_statements_get_aws_answers(door):
    dynamodb = door.client("dynamodb")
    create_table(dynamodb, "orders")
    dynamodb.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'p1', 'v': 1, 'l': [1], 'm': {'a': 1}}")
    rng = random.Random(11)
    answered = {"ok": 0}
    for _ in range(400):
        statement = mutated(rng)
        parameters = [rng.choice(PARAMETERS) for _ in range(statement.count("?") + rng.choice([0, 0, 0, 1]))]
        entry = {"Statement": statement, **({"Parameters": parameters} if parameters else {})}
        operation = rng.choice(["statement", "statement", "batch", "transaction"])
        try:
            if operation == "statement":
                dynamodb.execute_statement(**entry)
            elif operation == "batch":
                for response in dynamodb.batch_execute_statement(Statements=[entry, entry])["Responses"]:
                    assert not INTERNAL.search(response.get("Error", {}).get("Message", "")), (entry, response)
            else:
                dynamodb.execute_transaction(TransactStatements=[entry])
            answered["ok"] += 1
        except ClientError as error:
            code, message = error.response["Error"]["Code"], error.response["Error"]["Message"]
            assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400, (entry, code, message)
            assert code in CODES and not INTERNAL.search(message), (entry, operation, code, message)
            for reason in error.response.get("CancellationReasons", []):
                assert not INTERNAL.search(reason.get("Code", "") + reason.get("Message", "")), (entry, reason)
            answered[code] = answered.get(code, 0) + 1
    assert answered["ok"] > 40 and answered["ValidationException"] > 100  # both kinds of answer were exercised
