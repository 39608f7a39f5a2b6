"""handlers/nodejs/order_audit: the Node.js example handler, run by a mapping as the example stack wires it."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from tests.emulator.functions.test_functions import ROLE
from tests.emulator.helpers import create_table
from tests.emulator.trigger_helpers import wait_idle
from tests.lambda_functions import created_function

FOLDER = Path(__file__).resolve().parents[2] / "handlers" / "nodejs" / "order_audit"


def folder_zip(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


def test_status_changes_become_audit_items(door):
    dynamodb, lam = door.client("dynamodb"), door.client("lambda")
    stream_arn = create_table(dynamodb, "orders")["LatestStreamArn"]
    create_table(dynamodb, "order-audit", view_type=None)
    created_function(lam, FunctionName="order-audit", Runtime="nodejs22.x", Role=ROLE, Handler="index.handler",
                        Code={"ZipFile": folder_zip(FOLDER)}, Environment={"Variables": {"AUDIT_TABLE": "order-audit"}})
    lam.create_event_source_mapping(EventSourceArn=stream_arn, FunctionName="order-audit", StartingPosition="TRIM_HORIZON",
                                    FunctionResponseTypes=["ReportBatchItemFailures"],
                                    FilterCriteria={"Filters": [{"Pattern": '{"eventName": ["MODIFY"]}'}]})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}, "status": {"S": "new"}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}, "status": {"S": "paid"}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}, "status": {"S": "paid"}, "note": {"S": "gift"}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "o-1"}, "status": {"S": "shipped"}})
    assert wait_idle(door)["Idle"]
    items = sorted(dynamodb.scan(TableName="order-audit")["Items"], key=lambda item: item["pk"]["S"])
    assert [(i["order"]["S"], i["from"]["S"], i["to"]["S"]) for i in items] == [("o-1", "new", "paid"), ("o-1", "paid", "shipped")]
    assert all(i["pk"]["S"].startswith("o-1#") and int(i["at"]["N"]) > 0 for i in items)
