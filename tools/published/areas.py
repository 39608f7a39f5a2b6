"""What is counted: each area of the triggers' pipeline and the LocalStack test files that cover it.

Only tests marked ``aws_validated`` count (LocalStack's ``markers.aws.validated``: recorded against real AWS, the
snapshot file holds AWS's answers); each area's tests run as LocalStack wrote them, with their own snapshot
comparisons and skip markers.
"""

from __future__ import annotations

from typing import NamedTuple


class Area(NamedTuple):
    name: str
    title: str
    files: tuple[str, ...]
    keyword: str = ""  # pytest -k expression narrowing the files' tests, "" for all

    def pytest_args(self) -> list[str]:
        return [*self.files, "-m", "aws_validated", *(["-k", self.keyword] if self.keyword else [])]


SERVICES = "tests/aws/services"


def under(folder: str, *names: str) -> tuple[str, ...]:
    """Test files of one folder of LocalStack's tests/aws/services/."""
    return tuple(f"{SERVICES}/{folder}/{name}.py" for name in names)


ESM = "lambda_/event_source_mapping"
AREAS = (
    Area("patterns", "event patterns", under("events", "test_events_patterns")),
    Area("sns", "SNS", under("sns", "test_sns")),
    Area("sns-filter-policies", "SNS filter policies", under("sns", "test_sns_filter_policy")),
    Area("sqs-mappings", "SQS event source mappings", under(ESM, "test_lambda_integration_sqs")),
    Area("lambda-invoke", "Lambda invocations and behaviour", under("lambda_", "test_lambda")),
    Area("lambda-api", "Lambda API", under("lambda_", "test_lambda_api")),
    Area("destinations", "destinations and dead-letter queues", under("lambda_", "test_lambda_destinations")),
    Area("s3-notifications", "S3 notifications (SQS, SNS, Lambda)",
         under("s3", *(f"test_s3_notifications_{kind}" for kind in ("sqs", "sns", "lambda")))),
    Area("s3-eventbridge", "S3 notifications to EventBridge", under("s3", "test_s3_notifications_eventbridge")),
    Area("eventbridge", "EventBridge rules, inputs and targets",
         under("events", "test_events", "test_events_inputs", "test_events_targets")),
    Area("dynamodb-streams", "DynamoDB streams and their mappings",
         under("dynamodbstreams", "test_dynamodb_streams") + under(ESM, "test_lambda_integration_dynamodbstreams")),
    Area("dynamodb-global-tables", "DynamoDB global tables and stream details", under("dynamodb", "test_dynamodb"),
         "global or stream or replica"),
)
BY_NAME = {area.name: area for area in AREAS}


def chosen(names: list[str] | None) -> list[Area]:
    """The areas named (all when none is), in the table's order; an unknown name is a ValueError naming the known."""
    if not names:
        return list(AREAS)
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        raise ValueError(f"unknown area {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    return [area for area in AREAS if area.name in names]
