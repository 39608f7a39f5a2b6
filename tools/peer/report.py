"""The comparison's outcome: AWS's behaviour where moto differs, and the summary table."""

from __future__ import annotations

from collections import Counter

from peer.common import PASSING, log
from peer.runs import Run

_NO_EMPTY_INDEXES = (
    "expects GlobalSecondaryIndexes/LocalSecondaryIndexes [] on a table without indexes: AWS (and "
    "Eddy) leave the members out"
)
_ON_DEMAND_SINCE = (
    "expects an on-demand table's BillingModeSummary without LastUpdateToPayPerRequestDateTime: AWS's "
    "DescribeTable (and Eddy's) has it"
)
_NEVER_ON_DEMAND = "expects BillingModeSummary on a table created provisioned: AWS (and Eddy) leave it out"

_MIXED = (
    "mixes Expected with an UpdateExpression: AWS (and Eddy) refuse 'Can not use both expression and non-expression "
    "parameters in the same request' (dynalite's test/updateItem.js, recorded against DynamoDB; moto's own "
    "test_error_when_providing_expression_and_nonexpression_params expects it for AttributeUpdates)"
)
_LSI_WITHOUT_SORT_KEY = (
    "creates a local secondary index on a table without a sort key: AWS (and Eddy) refuse it, 'Table "
    "KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex' "
    "(dynalite's test/createTable.js, recorded against DynamoDB)"
)

_SUITE = "the AWS-run conformance suite nubo-db/dynamodb-conformance, 2026, tests/tier3/"
_UNUSED_IN_UPDATE = (
    "expects UpdateItem's unused names and values in the '1 validation error detected: ' envelope: AWS "
    "(and Eddy) answer them without it today (" + _SUITE + "error-messages/updateItem.test.ts)"
)
_EMPTY_UPDATE = (
    "expects an empty UpdateExpression refused in the '1 validation error detected: ' envelope: AWS (and "
    "Eddy) answer 'Invalid UpdateExpression: The expression can not be empty;' ("
    + _SUITE
    + "error-messages/updateItem.test.ts)"
)
_RETURN_VALUES = (
    "expects moto's 'Return values set to invalid value' for a ReturnValues of no enum value: AWS (and "
    "Eddy) answer the model's enum violation, every bad enum named together ("
    + _SUITE
    + "validation-ordering/updateItem.test.ts; dynalite's test/updateItem.js)"
)

_RESERVED_IN_PATH = (
    "projects a document path with a reserved word after its first name ('Nested[1].Value', '...children[0].Name') "
    "without a placeholder: AWS (and Eddy) refuse it, 'Invalid ProjectionExpression: Attribute name is a reserved "
    "keyword; reserved keyword: ...' (dynalite's test/getItem.js 'a.abORt', written against DynamoDB)"
)

#: tests where Eddy answers as AWS does and plain moto does not. They are listed in the summary, with the
#: reason, and not counted as regressions. Keep this list short and every entry explained.
AWS_DIFFERENCES = {
    "test_enable_stream_on_table": "sends StreamViewType 'OLD_IMAGES', not a view type: AWS (and Eddy) answer "
    "ValidationException, moto accepts it",
    "test_stream_with_range_key": "sends StreamViewType 'NEW_IMAGES', not a view type: AWS (and Eddy) answer "
    "ValidationException, moto accepts it",
    # DynamoDB's TableDescription as AWS answers it (moto_seam/table_descriptions.py; AWS's answers as recorded in
    # LocalStack's AWS-validated test_dynamodb snapshots: test_table_crud, test_gsi_with_billing_mode)
    "test_create_table_standard": _NO_EMPTY_INDEXES,
    "test_create_table_with_local_index": _NO_EMPTY_INDEXES,
    "test_update_table_gsi_create": "takes len() of a table's GlobalSecondaryIndexes before it has any: AWS (and Eddy) "
    "leave the member out, so boto3's Table.global_secondary_indexes is None",
    "test_update_table_delete_gsi": "takes len() of a table's GlobalSecondaryIndexes after its last was deleted: AWS "
    "(and Eddy) leave the member out, so boto3's Table.global_secondary_indexes is None",
    "test_create_table_with_gsi": "expects CreateTable's index ACTIVE without IndexArn, IndexSizeBytes, ItemCount: AWS "
    "(and Eddy) answer CREATING (the table is CREATING) with those members",
    "test_dynamodb_table_without_range_key.py::test_create_table": "expects an index without IndexArn, IndexSizeBytes "
    "and ItemCount: AWS (and Eddy) describe them",
    "test_create_table_pay_per_request": _ON_DEMAND_SINCE,
    "test_create_stack_pay_per_request": _ON_DEMAND_SINCE,
    "test_create_table__provisioned_throughput": _NEVER_ON_DEMAND,
    "test_delete_stack_dynamo_template": _NEVER_ON_DEMAND + ", and the empty index lists",
    "test_update_table__billing_mode": "expects a table switched back to PROVISIONED to forget when it was on demand: "
    "LastUpdateToPayPerRequestDateTime is 'the time when PAY_PER_REQUEST was last "
    "set' (DynamoDB API reference, BillingModeSummary), so Eddy keeps it",
    # issue 37: DynamoDB's own request rules and moto's evaluation where AWS answers otherwise (api/dynamodb/rules/,
    # moto_seam/dynamodb_rules.py, conditions.py; tests/emulator/api/dynamodb/rules/ name the sources)
    "test_update_item_conditions_fail": _MIXED,
    "test_update_item_conditions_fail_because_expect_not_exists": _MIXED,
    "test_update_item_conditions_fail_because_expect_not_exists_by_compare_to_null": _MIXED,
    "test_update_item_conditions_pass": _MIXED,
    "test_update_item_conditions_pass_because_expect_not_exists": _MIXED,
    "test_update_item_conditions_pass_because_expect_not_exists_by_compare_to_null": _MIXED,
    "test_update_item_conditions_pass_because_expect_exists_by_compare_to_not_null": _MIXED,
    "test_update_settype_item_with_conditions": _MIXED,
    "test_only_return_consumed_capacity_when_required": _LSI_WITHOUT_SORT_KEY,
    "test_create_stack_with_indexes": _LSI_WITHOUT_SORT_KEY + " (the stack's table is not made)",
    "test_invalid_transact_get_items": "expects 26 gets in a TransactGetItems refused: AWS (and Eddy) take 100 since "
    "September 2022 (AWS's announcement; ScyllaDB's AWS-run "
    "test_transact_get_items_100)",
    "test_dynamodb.py::test_list_tables": "expects tables listed in creation order: AWS (and Eddy) list them in name "
    "order (the AWS-recorded suite of issue 37); its [multiple-tables] case "
    "names two tables by random UUIDs, so on Eddy it passes when they happen "
    "to sort in creation order (half the runs: Eddy's count moves by one)",
    "test_describe_table_using_arn": "disables Time to Live on a table where it was never enabled: AWS (and Eddy) "
    "answer 'TimeToLive is already disabled' (ScyllaDB's AWS-run "
    "test_ttl_disable_errors; the Terraform AWS provider matches those words)",
    "test_dynamodb.py::test_set_ttl": "disables Time to Live right after enabling it: AWS (and Eddy) refuse a second "
    "change within the hour, 'Time to live has been modified multiple times within "
    "a fixed interval' (the DynamoDB API reference, UpdateTimeToLive; the words as "
    "recorded from AWS in the ack-api-quirks DynamoDB finding DDB-TABLE-143)",
    "test_update_item_unused_attributes": _UNUSED_IN_UPDATE,
    "test_error_when_providing_empty_update_expression": _EMPTY_UPDATE,
    "test_update_item_with_empty_expression": _EMPTY_UPDATE,
    "test_update_return_attributes": _RETURN_VALUES,
    "test_update_return_updated_new_attributes_when_same": _RETURN_VALUES,
    "test_put_item_invalid_null": "expects NULL false in an item refused without 'One or more parameter values were "
    "invalid: ': AWS (and Eddy) give it (" + _SUITE + "error-messages/putItem.test.ts; "
    "dynalite's test/putItem.js)",
    "test_put_item_empty_set": "expects an empty set in an item refused in the '1 validation error detected: ' "
    "envelope: AWS (and Eddy) answer 'One or more parameter values were invalid: An string "
    "set  may not be empty' today (" + _SUITE + "error-messages/putItem.test.ts)",
    "test_segment_larger_than_total_segments": "expects moto's shorter words: AWS's (and Eddy's) name both, '... "
    "TotalSegments: Segment: 3 is not less than TotalSegments: 3' ("
    + _SUITE
    + "error-messages/scan.test.ts; dynalite's test/scan.js)",
    "test_transact_write_items__too_many_transactions": "expects moto's 'validation error detected at ...' for 101 "
    "actions: AWS's (and Eddy's) show the list, '1 validation error "
    "detected: Value '[...]' at 'transactItems' ...' (" + _SUITE + "error-messages/transactWriteItems.test.ts)",
    "test_batch_items_throws_exception_when_requesting_100_items_for_single_table": "expects the path in lower case: "
    "AWS's (and Eddy's) is 'RequestItems.<table>.member.Keys' (" + _SUITE + "error-messages/batchGetItem.test.ts)",
    "test_list_not_found_table_tags": "expects ResourceNotFoundException for the ResourceArn 'DymmyArn', no ARN: AWS "
    "(and Eddy) refuse it as a ValidationException ("
    + _SUITE.replace("tier3/", "")
    + "tier2/tags/basic.test.ts, for TagResource)",
    "test_condition_expressions": "gives DeleteItem an ExpressionAttributeValues its condition does not use: AWS (and "
    "Eddy) refuse the unused value (moto's AWS-verified test_update_item_unused_attributes)",
    "test_create_table_error_pay_per_request_with_provisioned_param": "expects moto's words for throughput on an "
    "on-demand table: AWS's (and Eddy's) are 'One or "
    "more parameter values were invalid: Neither "
    "ReadCapacityUnits nor WriteCapacityUnits can be "
    "specified when BillingMode is PAY_PER_REQUEST' "
    "(dynalite's test/createTable.js)",
    "test_projection_expression_accessing_list_elements": _RESERVED_IN_PATH,
    "test_nested_projection_expression_using_get_item_with_attr_expression": _RESERVED_IN_PATH,
    "test_invalid_projection_expressions": "expects moto's 'Attribute name starts with a number' for '3ame': AWS (and "
    'Eddy) read a ProjectionExpression with its parser, \'Invalid ProjectionExpression: Syntax error; token: "3", '
    'near: "3ame"\' (' + _SUITE + "error-messages/getItem.test.ts: token and near; dynalite's test/getItem.js: "
    "what does not parse is a syntax error)",
    "test_get_item_without_range_key": "expects moto's 'Validation Exception' for a key without its sort key: AWS's (and "
    "Eddy's) is 'The provided key element does not match the schema' (dynalite's "
    "test/getItem.js, recorded against DynamoDB)",
}


def aws_difference(nodeid: str) -> str | None:
    """The reason a test is listed, by its module's file name and name ("test_x.py::test_y") or by its name alone."""
    path, _, name = nodeid.split("[", 1)[0].rpartition("::")
    return AWS_DIFFERENCES.get(f"{path.rsplit('/', 1)[-1]}::{name}") or AWS_DIFFERENCES.get(name)


COLUMNS = ["passed", "failed", "error", "skipped", "xfailed", "xpassed", "collection_error"]


def print_summary(moto_run: Run, eddy_run: Run, regressions: list[tuple[str, dict | None]]) -> None:
    log()
    log("=" * 100)
    log("peer suite summary (moto's own tests, TEST_SERVER_MODE=true)")
    cols = [c for c in COLUMNS if any(r.counts().get(c) for r in (moto_run, eddy_run))] or ["passed"]
    header = f"  {'server':<8}{'tests':>7}" + "".join(f"{c:>{max(9, len(c) + 2)}}" for c in cols) + f"{'time':>9}"
    log(header)
    for r in (moto_run, eddy_run):
        c = r.counts()
        row = f"  {r.label:<8}{len(r.results):>7}" + "".join(f"{c.get(k, 0):>{max(9, len(k) + 2)}}" for k in cols)
        row += f"{r.seconds:>8.1f}s"
        if r.timed_out:
            row += "  (TIMED OUT)"
        if r.note:
            row += f"  ({r.note})"
        log(row)

    skipped = Counter(r["message"] for r in moto_run.results.values() if r["outcome"] == "skipped")
    if skipped:
        log("\n  skipped on moto (not compared), by reason:")
        for reason, n in skipped.most_common():
            log(f"    {n:>4} x {reason}")
    base_fail = sorted(n for n, r in moto_run.results.items() if r["outcome"] not in PASSING | {"skipped", "xfailed"})
    if base_fail:
        log(f"\n  failing on plain moto too (not compared): {len(base_fail)}")
        for n in base_fail[:20]:
            log(f"    {moto_run.results[n]['outcome'].upper():<8} {n}")
        if len(base_fail) > 20:
            log(f"    ... and {len(base_fail) - 20} more")
    fixed = [
        n
        for n, r in eddy_run.results.items()
        if r["outcome"] in PASSING and n in moto_run.results and moto_run.results[n]["outcome"] not in PASSING
    ]
    if fixed:
        log(f"\n  not passing on moto but passing on Eddy (informational): {len(fixed)}")

    log()
    if regressions:
        log(f"  PASSED ON MOTO BUT NOT ON EDDY: {len(regressions)}")
        for nodeid, rec in regressions:
            outcome = rec["outcome"].upper() if rec else "NOT RUN"
            msg = f"  -- {rec['message']}" if rec and rec.get("message") else ""
            log(f"    {outcome:<8} {nodeid}{msg}")
    else:
        log("  no test that passes against plain moto fails against Eddy")
    log("=" * 100)
