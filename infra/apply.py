"""Applying a stack with boto3: to Eddy, to LocalStack, or to AWS — the same file, idempotently.

    apply_stack("stack.yaml")                                   # in an emulate() block (or the `eddy` fixture)
    apply_stack("stack.yaml", endpoint_url="http://127.0.0.1:4566")   # to a running `eddy serve`

`up(stack, clients)` compares the stack with what the endpoint has and carries out the Actions that make it
so (create, update; what matches is unchanged), `dry_run=True` only lists them; `down(stack, clients)`
removes what the stack declares; `summary(actions)` counts them. `apply_stack` is `up` for a stack file, with
the clients made for you. Every step is an ordinary boto3 call, so what works here works against any endpoint.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import boto3
from botocore.exceptions import ClientError

from .packages import package, sha256
from .stack import Function, Mapping, Stack, StackError, Table

DEFAULT_ROLE = "arn:aws:iam::{account}:role/eddy-stack-function"


@dataclass
class Action:
    verb: str  # create, update, unchanged, delete
    kind: str  # table, function, mapping, queue, topic, bucket
    name: str
    detail: str = ""
    run: Callable[[], None] | None = field(default=None, repr=False)

    def line(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"  {self.verb:<9} {self.kind:<8} {self.name}{detail}"


class Clients:
    """boto3 clients for one endpoint (None: AWS itself), region and profile."""

    def __init__(self, endpoint_url: str | None, region: str, profile: str | None = None) -> None:
        if profile:
            self.session = boto3.session.Session(profile_name=profile, region_name=region)
        elif endpoint_url:
            self.session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=region)
        else:
            self.session = boto3.session.Session(region_name=region)
        self.endpoint_url = endpoint_url
        self.region = region
        self._clients: dict[str, Any] = {}

    def __call__(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self.session.client(service, endpoint_url=self.endpoint_url, region_name=self.region)
        return self._clients[service]

    def account_id(self) -> str:
        try:
            return self("sts").get_caller_identity()["Account"]
        except Exception:
            return "123456789012"


# -- resources -------------------------------------------------------------------------------------------------


def _missing(error: ClientError) -> bool:
    code = error.response["Error"]["Code"]
    return code in ("ResourceNotFoundException", "NoSuchBucket", "404", "NotFound", "AWS.SimpleQueueService.NonExistentQueue",
                    "QueueDoesNotExist", "NoSuchEntity")


def _found(call: Callable[[], Any]) -> Any | None:
    """The answer of a describe-style call, or None when the endpoint has no such resource."""
    try:
        return call()
    except ClientError as error:
        if _missing(error):
            return None
        raise


def _table_actions(name: str, table: Table, clients: Clients) -> list[Action]:
    dynamodb = clients("dynamodb")
    try:
        current = dynamodb.describe_table(TableName=name)["Table"]
    except ClientError as error:
        if not _missing(error):
            raise
        return [Action("create", "table", name, _table_summary(table), lambda: _create_table(name, table, dynamodb))]
    actions = []
    have_stream = current.get("StreamSpecification", {}).get("StreamViewType")
    if have_stream != table.stream:
        def change_stream() -> None:
            if have_stream:
                dynamodb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
            if table.stream:
                dynamodb.update_table(TableName=name, StreamSpecification={"StreamEnabled": True, "StreamViewType": table.stream})
        actions.append(Action("update", "table", name, f"stream {have_stream or 'none'} -> {table.stream or 'none'}", change_stream))
    ttl = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    have_ttl = ttl.get("AttributeName") if ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING") else None
    if have_ttl != table.ttl:
        actions.append(Action("update", "table", name, f"ttl {have_ttl or 'off'} -> {table.ttl or 'off'}",
                              lambda: _set_ttl(dynamodb, name, table.ttl or have_ttl, bool(table.ttl))))
    have_indexes = {index["IndexName"] for index in current.get("GlobalSecondaryIndexes", [])}
    for index in table.indexes:
        if index.name not in have_indexes:
            actions.append(Action("update", "table", name, f"add index {index.name}", lambda index=index: dynamodb.update_table(
                TableName=name, AttributeDefinitions=table.attribute_definitions(),
                GlobalSecondaryIndexUpdates=[{"Create": _index(index, table)}])))
    want_keys = list(table.key)
    have_keys = [element["AttributeName"] for element in current["KeySchema"]]
    if want_keys != have_keys:
        raise StackError(f"table {name}: its key is {have_keys} on the endpoint, {want_keys} in the stack: "
                         "a key cannot change, remove the table first (eddy down)")
    return actions or [Action("unchanged", "table", name)]


def _table_summary(table: Table) -> str:
    parts = [f"key {', '.join(table.key)}"]
    if table.stream:
        parts.append(f"stream {table.stream}")
    if table.ttl:
        parts.append(f"ttl {table.ttl}")
    return ", ".join(parts)


def _index(index: Any, table: Table) -> dict[str, Any]:
    names = list(index.key)
    spec: dict[str, Any] = {
        "IndexName": index.name,
        "KeySchema": [{"AttributeName": names[0], "KeyType": "HASH"}]
        + ([{"AttributeName": names[1], "KeyType": "RANGE"}] if len(names) > 1 else []),
        "Projection": {"ProjectionType": index.projection},
    }
    if index.projection == "INCLUDE":
        spec["Projection"]["NonKeyAttributes"] = index.non_key_attributes
    if table.billing == "PROVISIONED":
        spec["ProvisionedThroughput"] = {"ReadCapacityUnits": table.read_capacity, "WriteCapacityUnits": table.write_capacity}
    return spec


def _create_table(name: str, table: Table, dynamodb: Any) -> None:
    names = list(table.key)
    params: dict[str, Any] = {
        "TableName": name,
        "KeySchema": [{"AttributeName": names[0], "KeyType": "HASH"}]
        + ([{"AttributeName": names[1], "KeyType": "RANGE"}] if len(names) > 1 else []),
        "AttributeDefinitions": table.attribute_definitions(),
        "BillingMode": table.billing,
    }
    if table.billing == "PROVISIONED":
        params["ProvisionedThroughput"] = {"ReadCapacityUnits": table.read_capacity, "WriteCapacityUnits": table.write_capacity}
    if table.indexes:
        params["GlobalSecondaryIndexes"] = [_index(index, table) for index in table.indexes]
    if table.stream:
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": table.stream}
    dynamodb.create_table(**params)
    dynamodb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    if table.ttl:
        _set_ttl(dynamodb, name, table.ttl, True)


def _set_ttl(dynamodb: Any, name: str, attribute: str, enabled: bool) -> None:
    dynamodb.update_time_to_live(TableName=name, TimeToLiveSpecification={"Enabled": enabled, "AttributeName": attribute})


def _function_actions(name: str, function: Function, stack: Stack, clients: Clients, account_id: str) -> list[Action]:
    lam = clients("lambda")
    code, handler = package(function, stack.base_dir)
    configuration = {"Runtime": function.runtime, "Handler": handler, "Timeout": function.timeout,
                     "MemorySize": function.memory, "Environment": {"Variables": function.environment},
                     "Description": function.description}
    try:
        current = lam.get_function_configuration(FunctionName=name)
    except ClientError as error:
        if not _missing(error):
            raise
        role = function.role or DEFAULT_ROLE.format(account=account_id)
        return [Action("create", "function", name, f"{handler}, {len(code)} bytes of code",
                       lambda: lam.create_function(FunctionName=name, Role=role, Code={"ZipFile": code}, **configuration))]
    actions = []
    if current.get("CodeSha256") != sha256(code):
        actions.append(Action("update", "function", name, "code", lambda: lam.update_function_code(FunctionName=name, ZipFile=code)))
    changed = [key for key, value in configuration.items()
               if (current.get(key) or ({"Variables": {}} if key == "Environment" else "")) != value]
    if changed:
        actions.append(Action("update", "function", name, ", ".join(changed),
                              lambda: lam.update_function_configuration(FunctionName=name, **configuration)))
    return actions or [Action("unchanged", "function", name)]


MAPPING_PARAMETERS = {
    "batch_size": "BatchSize", "maximum_batching_window_in_seconds": "MaximumBatchingWindowInSeconds",
    "maximum_retry_attempts": "MaximumRetryAttempts", "maximum_record_age_in_seconds": "MaximumRecordAgeInSeconds",
    "bisect_batch_on_function_error": "BisectBatchOnFunctionError", "parallelization_factor": "ParallelizationFactor",
    "tumbling_window_in_seconds": "TumblingWindowInSeconds", "function_response_types": "FunctionResponseTypes",
    "enabled": "Enabled",
}


def _mapping_parameters(mapping: Mapping, destinations: dict[str, str]) -> dict[str, Any]:
    params = {api: getattr(mapping, name) for name, api in MAPPING_PARAMETERS.items()}
    params["FilterCriteria"] = {"Filters": [{"Pattern": f if isinstance(f, str) else json.dumps(f)} for f in mapping.filters]}
    failure = mapping.on_failure
    destination = None
    if failure is not None:
        destination = failure.arn or destinations[
            ("queue:" + failure.queue) if failure.queue else ("topic:" + failure.topic) if failure.topic else ("bucket:" + failure.bucket)]
    params["DestinationConfig"] = {"OnFailure": {"Destination": destination} if destination else {}}
    return params


def _mapping_actions(mapping: Mapping, clients: Clients, destinations: dict[str, str]) -> list[Action]:
    lam, dynamodb = clients("lambda"), clients("dynamodb")
    source = mapping.stream_arn
    label = f"{mapping.function} <- {mapping.table or mapping.stream_arn}"
    wanted = _mapping_parameters(mapping, destinations)

    def stream_arn() -> str:
        return source or dynamodb.describe_table(TableName=mapping.table)["Table"]["LatestStreamArn"]

    def create() -> None:
        lam.create_event_source_mapping(EventSourceArn=stream_arn(), FunctionName=mapping.function,
                                        StartingPosition=mapping.starting_position, **wanted)

    try:
        arn = stream_arn()
        theirs = lam.list_event_source_mappings(FunctionName=mapping.function)["EventSourceMappings"]
    except ClientError as error:
        if not _missing(error):
            raise
        arn, theirs = source, []
    existing = [m for m in theirs if m["EventSourceArn"] == arn]
    table_arn = arn.split("/stream/")[0] if arn else None
    replaced = [m for m in theirs if m["EventSourceArn"] != arn and m["EventSourceArn"].split("/stream/")[0] == table_arn]
    if not existing and replaced:  # the table's stream was replaced (view type changed): so is its mapping

        def replace() -> None:
            for old in replaced:
                lam.delete_event_source_mapping(UUID=old["UUID"])
            create()
        return [Action("update", "mapping", label, "the table's stream was replaced", replace)]
    if not existing:
        return [Action("create", "mapping", label, f"batch size {mapping.batch_size}, {mapping.starting_position}", create)]
    current = existing[0]
    current_view = {key: current.get(key) for key in wanted}
    current_view["Enabled"] = current.get("State") in ("Enabled", "Enabling", "Creating", "Updating")
    current_view["FilterCriteria"] = {"Filters": [{"Pattern": f["Pattern"]} for f in
                                                  (current.get("FilterCriteria") or {}).get("Filters", [])]}
    changed = [key for key, value in wanted.items() if _normal(current_view.get(key)) != _normal(value)]
    if not changed:
        return [Action("unchanged", "mapping", label)]
    return [Action("update", "mapping", label, ", ".join(changed),
                   lambda: lam.update_event_source_mapping(UUID=current["UUID"], **wanted))]


def _normal(value: Any) -> Any:
    if isinstance(value, dict) and "Filters" in value:
        return sorted(json.dumps(json.loads(f["Pattern"]), sort_keys=True) for f in value["Filters"])
    if isinstance(value, dict) and "OnFailure" in value:
        return (value.get("OnFailure") or {}).get("Destination")
    return value


def _destination_actions(stack: Stack, clients: Clients, destinations: dict[str, str], account_id: str) -> list[Action]:
    actions = []
    sqs, sns, s3 = clients("sqs"), clients("sns"), clients("s3")
    region = clients.region
    for name in stack.queues:
        destinations["queue:" + name] = f"arn:aws:sqs:{region}:{account_id}:{name}"
        if _found(lambda: sqs.get_queue_url(QueueName=name)) is not None:
            actions.append(Action("unchanged", "queue", name))
        else:
            actions.append(Action("create", "queue", name, run=lambda name=name: sqs.create_queue(QueueName=name)))
    topics = {arn.rsplit(":", 1)[1]: arn for arn in _topic_arns(sns)}
    for name in stack.topics:
        destinations["topic:" + name] = topics.get(name, f"arn:aws:sns:{region}:{account_id}:{name}")
        if name in topics:
            actions.append(Action("unchanged", "topic", name))
        else:
            actions.append(Action("create", "topic", name, run=lambda name=name: sns.create_topic(Name=name)))
    for name in stack.buckets:
        destinations["bucket:" + name] = f"arn:aws:s3:::{name}"
        if _found(lambda: s3.head_bucket(Bucket=name)) is not None:
            actions.append(Action("unchanged", "bucket", name))
        else:
            params: dict[str, Any] = {"Bucket": name}
            if region != "us-east-1":
                params["CreateBucketConfiguration"] = {"LocationConstraint": region}
            actions.append(Action("create", "bucket", name, run=lambda params=params: s3.create_bucket(**params)))
    return actions


def _topic_arns(sns: Any) -> list[str]:
    return [topic["TopicArn"] for page in sns.get_paginator("list_topics").paginate() for topic in page["Topics"]]


# -- the commands' engine ------------------------------------------------------------------------------------


def up(stack: Stack, clients: Clients, *, dry_run: bool = False, echo: Callable[[str], None] = print) -> list[Action]:
    """Create or change what the stack declares; leave alone what already matches. Returns what it did (or would)."""
    account_id = clients.account_id()
    destinations: dict[str, str] = {}
    done: list[Action] = []

    def carry_out(actions: list[Action]) -> None:
        for action in actions:
            echo(action.line())
            if not dry_run and action.run is not None:
                action.run()
            done.append(action)

    carry_out(_destination_actions(stack, clients, destinations, account_id))
    for name, table in stack.tables.items():
        carry_out(_table_actions(name, table, clients))
    for name, function in stack.functions.items():
        carry_out(_function_actions(name, function, stack, clients, account_id))
    for mapping in stack.mappings:
        if dry_run and mapping.table and any(a.kind == "table" and a.name == mapping.table and a.verb == "create" for a in done):
            carry_out([Action("create", "mapping", f"{mapping.function} <- {mapping.table}")])
            continue
        carry_out(_mapping_actions(mapping, clients, destinations))
    for name in stack.unsupported:
        echo(f"  skipped   {name}")
    return done


def apply_stack(path: str | Path, *, endpoint_url: str | None = None, region: str | None = None,
                echo: Callable[[str], None] | None = None) -> list[Action]:
    """Apply a stack file (or SAM / CloudFormation template) and return what was done.

    `endpoint_url`: a running Eddy (or any endpoint); None: this process's boto3, which inside `emulate()` or
    the pytest plugin's `eddy` fixture is Eddy in-process. `region`: default the stack's, else the configured
    one, else us-east-1. `echo`: called with one line per action (default: silent). Raises StackError for a
    stack that cannot be read or applied.
    """
    from eddy.emulator.aws_environment import DEFAULT_REGION, configured_region

    from .load import load_stack

    stack = load_stack(path)
    clients = Clients(endpoint_url, region or stack.region or configured_region() or DEFAULT_REGION)
    return up(stack, clients, echo=echo or (lambda line: None))


def down(stack: Stack, clients: Clients, *, dry_run: bool = False, echo: Callable[[str], None] = print) -> list[Action]:
    """Remove what the stack declares (mappings, functions, tables, then queues, topics, buckets)."""
    lam, dynamodb, sqs, sns, s3 = (clients(s) for s in ("lambda", "dynamodb", "sqs", "sns", "s3"))
    actions: list[Action] = []
    for name in stack.functions:
        if _found(lambda: lam.get_function_configuration(FunctionName=name)) is None:
            continue
        for mapping in lam.list_event_source_mappings(FunctionName=name)["EventSourceMappings"]:
            actions.append(Action("delete", "mapping", f"{name} <- {mapping['EventSourceArn']}",
                                  run=lambda uuid=mapping["UUID"]: lam.delete_event_source_mapping(UUID=uuid)))
        actions.append(Action("delete", "function", name, run=lambda name=name: lam.delete_function(FunctionName=name)))
    for name in stack.tables:
        if _found(lambda: dynamodb.describe_table(TableName=name)) is not None:
            actions.append(Action("delete", "table", name, run=lambda name=name: dynamodb.delete_table(TableName=name)))
    for name in stack.queues:
        queue = _found(lambda: sqs.get_queue_url(QueueName=name))
        if queue is not None:
            actions.append(Action("delete", "queue", name, run=lambda url=queue["QueueUrl"]: sqs.delete_queue(QueueUrl=url)))
    for arn in _topic_arns(sns):
        if arn.rsplit(":", 1)[1] in stack.topics:
            actions.append(Action("delete", "topic", arn.rsplit(":", 1)[1], run=lambda arn=arn: sns.delete_topic(TopicArn=arn)))
    for name in stack.buckets:
        if _found(lambda: s3.head_bucket(Bucket=name)) is not None:
            actions.append(Action("delete", "bucket", name, run=lambda name=name: _empty_and_delete(s3, name)))
    for action in actions:
        echo(action.line())
        if not dry_run and action.run is not None:
            action.run()
    return actions


def _empty_and_delete(s3: Any, bucket: str) -> None:
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            s3.delete_object(Bucket=bucket, Key=item["Key"])
    s3.delete_bucket(Bucket=bucket)


def summary(actions: list[Action]) -> str:
    counts = {verb: sum(1 for a in actions if a.verb == verb) for verb in ("create", "update", "delete", "unchanged")}
    words = {"create": "created", "update": "changed", "delete": "deleted", "unchanged": "left alone"}
    return ", ".join(f"{count} {words[verb]}" for verb, count in counts.items() if count) or "nothing to do"
