"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction, answered by running each statement's item
operation (statements.py) through the DynamoDB API's own path, so moto's model does the work and change
capture records it like any item write.

`answer(operation, params, call, commit)` gives (HTTP status, body); `call(operation, params)` runs one DynamoDB
operation and gives (status, body) as the DynamoDB API answers it.
"""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any, Callable

from eddy.emulator.api.dynamodb.partiql.projection import project
from eddy.emulator.api.dynamodb.partiql.statements import MANDATORY_KEYS, Plan, Schema, plan
from eddy.emulator.api.dynamodb.partiql.syntax import parse
from eddy.emulator.api.dynamodb.partiql.tree import Exists, Insert, Path, Select, is_read
from eddy.emulator.errors import AWSError, DuplicateItemException, ResourceNotFoundException, ValidationException

Call = Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]]

DUPLICATE_ITEM = "Duplicate primary key exists in table"
NOT_FOUND = "Requested resource not found"
MIXED = "The entire {} must consist of either read statements or write statements, you cannot mix both in one {}."


class Refused(Exception):
    """An item operation's error answer, carried as it is (status and body)."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body)
        self.status, self.body = status, body

    @property
    def code(self) -> str:
        return str(self.body.get("__type", "")).rpartition("#")[2]

    @property
    def message(self) -> str:
        return str(self.body.get("message", self.body.get("Message", "")))

    @classmethod
    def of(cls, error: AWSError) -> Refused:
        return cls(error.status, json.loads(error.to_body()))


def answer(
    operation: str, params: dict[str, Any], call: Call, commit: Callable[[], None] = lambda: None
) -> tuple[int, dict[str, Any]]:
    """`commit` ends the captured operation so far and begins the next: a batch's statements are
    independent writes, each captured on its own."""
    runner = _Runner(call, commit)
    try:
        if operation == "ExecuteStatement":
            return 200, runner.execute_statement(params)
        if operation == "BatchExecuteStatement":
            return 200, runner.batch(params.get("Statements") or [])
        return 200, runner.transaction(params)
    except AWSError as error:
        return error.status, json.loads(error.to_body())
    except Refused as refused:
        return refused.status, refused.body


class _Runner:
    def __init__(self, call: Call, commit: Callable[[], None]) -> None:
        self._call, self._commit = call, commit
        self._schemas: dict[str, Schema] = {}

    def run(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        status, body = self._call(operation, params)
        if status != 200:
            raise Refused(status, body)
        return body

    def schema(self, table: str) -> Schema:
        if table not in self._schemas:
            try:
                described = self.run("DescribeTable", {"TableName": table})["Table"]
            except Refused as refused:
                if refused.code == "ResourceNotFoundException":
                    raise ResourceNotFoundException(NOT_FOUND) from None
                raise
            indexes = {
                index["IndexName"]: _keys(index["KeySchema"])
                for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")
                for index in described.get(kind) or []
            }
            types = {a["AttributeName"]: a["AttributeType"] for a in described.get("AttributeDefinitions") or []}
            self._schemas[table] = Schema(table, _keys(described["KeySchema"]), indexes, types)
        return self._schemas[table]

    def plan(self, entry: dict[str, Any]) -> Plan:
        statement = parse(entry.get("Statement", ""), entry.get("Parameters"))
        table = statement.select.table if isinstance(statement, Exists) else statement.table
        found = plan(statement, self.schema(table))
        if entry.get("ConsistentRead") and found.operation in ("Query", "Scan"):
            found.params["ConsistentRead"] = True
        if entry.get("ReturnValuesOnConditionCheckFailure") and found.operation not in ("Query", "Scan"):
            found.params["ReturnValuesOnConditionCheckFailure"] = entry["ReturnValuesOnConditionCheckFailure"]
        return found

    # -- ExecuteStatement --

    def execute_statement(self, params: dict[str, Any]) -> dict[str, Any]:
        found = self.plan(params)
        if isinstance(found.statement, Exists):
            raise ValidationException("EXISTS is supported only in ExecuteTransaction")
        if isinstance(found.statement, Select):
            if "Limit" in params:
                found.params["Limit"] = params["Limit"]
            if params.get("NextToken"):
                found.params["ExclusiveStartKey"] = _start_key(params["NextToken"])
            result = self.run(found.operation, found.params)
            items = result.get("Items", [])
            if found.operation == "Scan" and found.statement.order_by:  # several partitions: ordered here
                items = _ordered(items, found.statement.order_by)
            body: dict[str, Any] = {"Items": [_projected(found, i) for i in items]}
            if result.get("LastEvaluatedKey"):
                body["NextToken"] = base64.b64encode(json.dumps(result["LastEvaluatedKey"]).encode()).decode()
            return body
        result = self.write(found)
        return {"Items": [result["Attributes"]] if result.get("Attributes") else []}

    def write(self, found: Plan) -> dict[str, Any]:
        if found.operation == "DeleteEach":
            return self.delete_each(found)
        try:
            return self.run(found.operation, found.params)
        except Refused as refused:
            if isinstance(found.statement, Insert) and refused.code == "ConditionalCheckFailedException":
                raise DuplicateItemException(DUPLICATE_ITEM) from None
            raise

    def delete_each(self, found: Plan) -> dict[str, Any]:
        """A DELETE naming only the partition key: each item of the partition its WHERE matches."""
        keys = self.schema(found.params["TableName"]).keys
        read = "Query" if "KeyConditionExpression" in found.params else "Scan"
        params, deleted = dict(found.params), []
        while True:
            result = self.run(read, params)
            for item in result.get("Items", []):
                self.run("DeleteItem", {"TableName": params["TableName"], "Key": {k: item[k] for k in keys}})
                deleted.append(item)
            if not result.get("LastEvaluatedKey"):
                break
            params["ExclusiveStartKey"] = result["LastEvaluatedKey"]
        return {"Attributes": deleted[0]} if len(deleted) == 1 and getattr(found.statement, "returning", None) else {}

    # -- BatchExecuteStatement --

    def batch(self, entries: list[dict[str, Any]]) -> dict[str, Any]:
        plans: list[Plan | Refused] = []
        for entry in entries:
            try:
                plans.append(self.plan(entry))
            except AWSError as error:
                plans.append(Refused.of(error))
        kinds = {is_read(p.statement) for p in plans if isinstance(p, Plan)}
        if len(kinds) > 1:
            raise ValidationException(MIXED.format("batch", "batch"))
        responses = []
        for found in plans:
            answer: dict[str, Any] = {}
            if isinstance(found, Plan):
                answer["TableName"] = found.params["TableName"]
                try:
                    answered = self.batch_entry(found)
                    self._commit()  # the statement's own commit: refused, its error (InternalServerError)
                    responses.append(answered)
                    continue
                except Refused as refused:
                    found = refused
                except AWSError as error:
                    found = Refused.of(error)
            code = found.code.removesuffix("Exception")
            error = {"Code": "ValidationError" if code == "Validation" else code, "Message": found.message}
            if found.body.get("Item"):  # ReturnValuesOnConditionCheckFailure: ALL_OLD
                error["Item"] = found.body["Item"]
            responses.append({"Error": error, **answer})
        return {"Responses": responses}

    def batch_entry(self, found: Plan) -> dict[str, Any]:
        table = found.params["TableName"]
        if isinstance(found.statement, Exists):
            raise ValidationException("EXISTS is supported only in ExecuteTransaction")
        if isinstance(found.statement, Select):
            if found.key is None:
                raise ValidationException(
                    "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
                )
            items = self.run("Query", found.params).get("Items", [])
            return {"TableName": table, **({"Item": _projected(found, items[0])} if items else {})}
        self.write(found)
        return {"TableName": table}

    # -- ExecuteTransaction --

    def transaction(self, params: dict[str, Any]) -> dict[str, Any]:
        plans = [self.plan(entry) for entry in params.get("TransactStatements") or []]
        reads = [is_read(p.statement) and not isinstance(p.statement, Exists) for p in plans]
        if any(reads) and not all(reads):
            raise ValidationException(MIXED.format("transaction", "transaction"))
        if plans and all(reads):
            return {"Responses": self.transaction_reads(plans)}
        items = []
        for found in plans:
            if found.operation == "DeleteEach":
                raise ValidationException(MANDATORY_KEYS)
            if "ReturnValues" in found.params:
                raise ValidationException("RETURNING is not supported in transactions")
            kind = {"PutItem": "Put", "UpdateItem": "Update", "DeleteItem": "Delete"}.get(
                found.operation, found.operation
            )
            items.append({kind: found.params})
        request = {"TransactItems": items}
        if params.get("ClientRequestToken"):
            request["ClientRequestToken"] = params["ClientRequestToken"]
        try:
            self.run("TransactWriteItems", request)
        except Refused as refused:
            reasons = refused.body.get("CancellationReasons")
            if refused.code != "TransactionCanceledException" or not reasons:
                raise
            for found, reason in zip(plans, reasons):
                if isinstance(found.statement, Insert) and reason.get("Code") == "ConditionalCheckFailed":
                    reason.update(Code="DuplicateItem", Message=DUPLICATE_ITEM)
            codes = ", ".join(reason.get("Code", "None") for reason in reasons)
            refused.body["message"] = (
                f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
            )
            refused.body.pop("Message", None)
            raise
        return {}

    def transaction_reads(self, plans: list[Plan]) -> list[dict[str, Any]]:
        """One TransactGetItems for the statements that name a whole key and nothing else; any other SELECT
        (AWS refuses it) runs as its Query or Scan and answers each item it finds, as moto does."""
        keyed = [p for p in plans if p.key is not None and p.only_key]
        gets = [{"Get": {"TableName": p.params["TableName"], "Key": p.key}} for p in keyed]
        got = iter(self.run("TransactGetItems", {"TransactItems": gets}).get("Responses", []) if gets else [])
        responses: list[dict[str, Any]] = []
        for found in plans:
            if found.key is not None and found.only_key:
                item = next(got, {}).get("Item")
                responses.append({"Item": _projected(found, item)} if item else {})
            else:
                items = self.run(found.operation, found.params).get("Items", [])
                responses += [{"Item": _projected(found, item)} for item in items]
        return responses


def _ordered(items: list[dict[str, Any]], order_by: tuple[tuple[Path, bool], ...]) -> list[dict[str, Any]]:
    """Items sorted by ORDER BY's keys (strings and binaries by their bytes, numbers by value)."""

    def value(item: dict[str, Any], path: Path) -> tuple:
        member = item.get(path.elements[0]) if len(path.elements) == 1 else None
        if not member:
            return (0, 0)
        tag, raw = next(iter(member.items()))
        if tag == "N":
            return (1, Decimal(raw))
        return (2, raw.encode() if tag == "S" else base64.b64decode(raw) if tag == "B" else json.dumps(raw))

    for path, descending in reversed(order_by):  # stable sorts, last key first
        items = sorted(items, key=lambda item: value(item, path), reverse=descending)
    return items


def _keys(key_schema: list[dict[str, str]]) -> tuple[str, ...]:
    return tuple(k["AttributeName"] for k in sorted(key_schema, key=lambda k: k["KeyType"] != "HASH"))


def _projected(found: Plan, item: dict[str, Any]) -> dict[str, Any]:
    projection = getattr(found.statement, "projection", None)
    return project(item, projection) if projection else item


def _start_key(token: str) -> dict[str, Any]:
    try:
        key = json.loads(base64.b64decode(token, validate=True))
    except ValueError:
        key = None
    if not isinstance(key, dict):
        raise ValidationException("Given NextToken is not valid")
    return key
