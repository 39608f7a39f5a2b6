"""The DynamoDB API (X-Amz-Target DynamoDB_20120810.<Operation>): moto serves it, Eddy captures its changes.

Every write operation runs as one capture operation, so each item it changed yields one stream record
and the operation's records share a commit version. StreamSpecification is Eddy's, not moto's: it is
validated here, taken out of CreateTable and UpdateTable before moto sees them, applied to Eddy's
streams, and mirrored into moto's table so DescribeTable shows LatestStreamArn and LatestStreamLabel.
"""

from __future__ import annotations

import functools
import json
import logging
import uuid
import zlib
from typing import Any

from eddy.emulator.moto_seam import actions as moto_actions, bridge as moto_bridge, all_or_nothing, table_descriptions
from eddy.emulator.moto_seam.tables import views as moto_tables
from eddy.emulator.api import validation
from eddy.emulator.api.dynamodb import (
    absent_features,
    attribute_values,
    kinesis_destinations,
    partiql,
    resource_policies,
    rules as dynamodb_rules,
    table_arns,
)
from eddy.emulator.api.dynamodb.answers import collection_key, item_collection_metrics, transact_writes, unasked
from eddy.emulator.api.dynamodb.rules import (
    item_keys,
    legacy_parameters,
    request_collections,
    request_members,
    transaction_keys,
)
from eddy.emulator.api.dynamodb import tables
from eddy.emulator.api.dynamodb.global_tables import replica_tables, replica_updates
from eddy.emulator.api.dynamodb.streams import parse_body
from eddy.emulator.dynamodb.operations import DEFINITION_OPERATIONS, TARGET_PREFIX
from eddy.emulator.engine import Emulator
from eddy.emulator.errors import AWSError, InternalServerError, ValidationException, constraint_violation
from eddy.emulator.aws_requests import Request, Response, error_response, raw_json_response
from eddy.emulator.storage.disk import WriteFailed

log = logging.getLogger("eddy")


def handle(emulator: Emulator, operation: str, request: Request) -> Response:
    try:
        params = parse_body(request.body)  # the one decoding of the body: the fast path takes it as it is
        request_members.check_before_model(operation, params)  # what AWS words otherwise than the model
        validation.validate("dynamodb", operation, params)  # as AWS checks it, before moto or the engine
        dynamodb_rules.check(operation, params)  # DynamoDB's own rules beyond the model, before any table is read
        if operation == "TransactWriteItems" and len(request.body) > request_collections.MAX_TRANSACTION_PAYLOAD:
            request_collections.check_payload(params)  # a body under 4 MB carries less than 4 MB of items
        given = table_arns.given(operation, params) and _by_table_names(operation, request, params)
        if given:  # a table named by its ARN: by its name from here on, answered as the request named it
            request = request.for_target(TARGET_PREFIX + operation, params)
        response = _answer(emulator, operation, request, params)
        if not given or response.status != 200 or operation not in table_arns.KEYED_BY_TABLE:
            return response
        return _json_response(200, table_arns.keyed_as_given(operation, json.loads(response.body), given))
    except AWSError as error:
        return error_response(error)
    except WriteFailed:  # the disk refused the commit: nothing of the write is kept or shown (the router answers)
        raise
    except Exception as error:  # moto failed on a request the model allows: a fault of Eddy's, a 500 the SDKs retry
        complaint = all_or_nothing.expression_complaint(error)
        if complaint is not None:  # an expression moto's parser cannot read, which its Query and writes let through
            parser, reason = complaint
            member = (
                "UpdateExpression"
                if parser == "update"
                else ("FilterExpression" if operation in ("Query", "Scan") else "ConditionExpression")
            )
            return error_response(ValidationException(f"Invalid {member}: {reason}"))
        request_id = uuid.uuid4()  # what the operation wrote before it failed was put back (capture)
        log.exception("moto could not process %s (request %s)", operation, request_id)
        return error_response(InternalServerError(f"Internal server error (request id {request_id})"))


def _answer(emulator: Emulator, operation: str, request: Request, params: dict[str, Any]) -> Response:
    """The checked request run by the engine (emulator.dynamodb), or answered by Eddy's own parts of the API."""
    if operation in ("Query", "Scan") and isinstance(params.get("ExclusiveStartKey"), dict):
        _check_starting_key(operation, request, params)
    if operation in request_members.TAGGING and (
        error := table_arns.denied(operation, params.get("ResourceArn"), moto_bridge.caller(request)[0])
    ):
        raise error  # another account's table: IAM's refusal, before the table is looked for
    if operation in transaction_keys.OPERATIONS:  # each action's key against its table's, before moto reads it
        account_id, region = moto_bridge.caller(request)
        transaction_keys.check(
            params, lambda table: (found := moto_tables.view(account_id, region, table)) and found.key_schema
        )
    if operation in item_keys.OPERATIONS:  # the rules that read the tables' key attributes
        account_id, region = moto_bridge.caller(request)
        item_keys.check(
            operation, params, lambda table: tuple(moto_actions.key_attribute_names(account_id, region, table, None))
        )
    if operation in attribute_values.LEGACY:  # Expected, AttributeUpdates, KeyConditions, filters: their rules
        attribute_values.check_legacy(operation, params)
    if "Expected" in params or "AttributesToGet" in params or "ScanFilter" in params or "QueryFilter" in params:
        rewritten = legacy_parameters.rewritten(operation, params)  # as the expressions they stand for
        if rewritten is not None:
            params, request = rewritten, request.for_target(TARGET_PREFIX + operation, rewritten)
    if operation in GLOBAL_TABLE_OPERATIONS:  # replicas: a table's other regions (global tables)
        answered = _global_tables(emulator, operation, request, params)
        if answered is not None:
            return answered
    if operation in resource_policies.OPERATIONS:  # Eddy's own, for tables and streams
        return resource_policies.handle(emulator, operation, request, params)
    absent = absent_features.answer(emulator, operation, request, params)  # features Eddy does not have
    if absent is not None:
        return absent
    if operation in kinesis_destinations.OPERATIONS:  # Eddy's own: moto has no Kinesis destinations
        return kinesis_destinations.handle(emulator, operation, request)
    if operation in DEFINITION_OPERATIONS and emulator.persistence.durable:
        emulator.disk.room_for(len(request.body))  # a definition moto makes cannot be put back: room first
    if operation == "CreateTable":
        return _as_aws(operation, request, params, tables.create_table(emulator, request, params))
    if operation == "UpdateTable":
        return _as_aws(operation, request, params, tables.update_table(emulator, request, params))
    if operation in partiql.OPERATIONS:  # each statement run as its item operation, in one write of the engine's
        from eddy.emulator.api.dynamodb.partiql.operations import answer as partiql_answer  # the first loads it

        def statements() -> tuple[int, dict[str, Any]]:
            return emulator.dynamodb.write(
                request,
                params,
                lambda session: partiql_answer(
                    operation, params, session.run, lambda: _next_statement(emulator, session)
                ),
                unasked.shape,
            )

        if operation != "ExecuteTransaction" or not params.get("ClientRequestToken"):
            return _json_response(*statements())
        with emulator.lock:  # its token, as TransactWriteItems' (its own): remembered once the write is committed
            account_id, region = moto_bridge.caller(request)
            if emulator.client_request_tokens.earlier(account_id, region, params, operation) is not None:
                return _json_response(200, {})  # the same statements again: not run twice
            status, answered = statements()
            if status == 200 and "Responses" not in answered:  # a write (a read keeps no token)
                emulator.client_request_tokens.remember(account_id, region, params, [], operation)
        return _json_response(status, answered)
    if operation == "TransactWriteItems":  # its token, capacity and metrics as DynamoDB answers them
        with emulator.lock:  # its token remembered once committed, before another request looks at it
            answered = transact_writes.answer(
                emulator.client_request_tokens, lambda work: emulator.dynamodb.write(request, params, work), params
            )
        return answered if isinstance(answered, Response) else _json_response(200, answered)
    return emulator.dynamodb.execute(
        operation,
        request,
        params,
        shape=functools.partial(unasked.shape, written=emulator.capture.images),
        after=functools.partial(_after, emulator, operation, request, params),
        written=functools.partial(unasked.with_write_capacity, operation, params, emulator.capture.images),
    )


def _after(
    emulator: Emulator,
    operation: str,
    request: Request,
    params: dict[str, Any],
    account_id: str,
    region: str,
    response: Response,
) -> Response:
    """moto's full-path answer as DynamoDB gives it (the engine's lock held): a replica's table changed in every
    region, a table described with its replicas and as AWS describes it, what was not asked for left out."""
    if operation in DEFINITION_OPERATIONS and response.status == 200:
        replica_tables.after(emulator, request, account_id, region, operation, params)
    if operation == "DescribeTable" and response.status == 200:
        response = replica_tables.described(emulator, account_id, region, params, response, "Table")
    if operation in table_descriptions.OPERATIONS:
        return _as_aws(operation, request, params, response)
    if (
        operation in item_collection_metrics.OPERATIONS
        and item_collection_metrics.asked(params)
        and response.status == 200
    ):  # moto's full path: DynamoDB's ItemCollectionMetrics
        answered = json.loads(response.body)
        item_collection_metrics.added(operation, params, answered, collection_key(account_id, region))
        response = moto_bridge.with_body(response, answered)
    response = unasked.with_read_capacity(operation, params, account_id, region, response)
    return unasked.unasked_capacity_removed(operation, params, response)


GLOBAL_TABLE_OPERATIONS = frozenset(
    {"UpdateTable", "DeleteTable", "CreateGlobalTable", "UpdateGlobalTable", "DescribeTableReplicaAutoScaling"}
)


def _global_tables(emulator: Emulator, operation: str, request: Request, params: dict[str, Any]) -> Response | None:
    """The operations global tables answer (None: the operation goes on as for any table)."""
    if operation in ("CreateGlobalTable", "UpdateGlobalTable"):
        return replica_tables.legacy_refused(emulator, params)
    account_id, region = moto_bridge.caller(request)
    if operation == "DescribeTableReplicaAutoScaling":
        return replica_tables.replica_auto_scaling(emulator, account_id, region, params)
    if operation == "UpdateTable":
        replica_tables.strong_consistency_refused(params)
        if "ReplicaUpdates" in params:
            return replica_updates.replica_updates(emulator, request, account_id, region, params)
    with emulator.lock:
        replica_tables.before(emulator, account_id, region, operation, params)
    return None


def _check_starting_key(operation: str, request: Request, params: dict[str, Any]) -> None:
    """An ExclusiveStartKey without each key attribute of the table (and of the index read) is refused as AWS refuses
    it (moto failed on it with a TypeError)."""
    names = moto_actions.key_attribute_names(
        *moto_bridge.caller(request), params.get("TableName"), params.get("IndexName")
    )  # none for a table that is not there
    if not all(isinstance(params["ExclusiveStartKey"].get(name), dict) for name in names):
        detail = ": The provided key element does not match the schema" if operation == "Scan" else ""
        raise ValidationException(f"The provided starting key is invalid{detail}")


def _by_table_names(operation: str, request: Request, params: dict[str, Any]) -> dict[str, Any] | None:
    """The request's tables given by their ARNs read as their names (in `params`): what the request gave, for its
    answer to be keyed as the request named them (None: it names no table of the caller's account and region by its
    ARN, and goes on as it is)."""
    account_id, region = moto_bridge.caller(request)
    given = table_arns.resolve(operation, params, account_id, region)
    if not given and operation == "CreateTable":  # an ARN of another account or region, or of no table: not a name
        raise constraint_violation(
            "tableName", params["TableName"], "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
        )
    return given or None


def _next_statement(emulator: Emulator, session: Any) -> None:
    """A batch's statement committed, the next one begun; one the disk refuses (put back) is that statement's
    InternalServerError, BatchExecuteStatement's error code for a fault of DynamoDB's own."""
    try:
        session.next_operation()
    except WriteFailed as failure:
        emulator.disk.refused(failure, emulator.clock.now())
        raise InternalServerError(f"The write was not made: {failure.reason}") from None


def _as_aws(operation: str, request: Request, params: dict[str, Any], response: Response) -> Response:
    """moto's description of a table as AWS answers `operation` (moto_seam/table_descriptions.py)."""
    return moto_tables.answer_as_aws(operation, params, response, moto_bridge.caller(request))


def _json_response(status: int, body: dict[str, Any]) -> Response:
    encoded = json.dumps(body).encode()
    response = raw_json_response(encoded, status)
    response.headers["x-amz-crc32"] = str(zlib.crc32(encoded))  # botocore checks it on DynamoDB answers
    return response
