"""Stack files: a project's tables, functions, event source mappings and destinations, declared once.

    tables:
      orders:
        key: {pk: S}                        # partition key, then optionally the sort key: {pk: S, sk: N}
        attributes: {status: S}             # further attribute definitions (for GSI keys)
        billing: PAY_PER_REQUEST            # or PROVISIONED with read_capacity / write_capacity
        stream: NEW_AND_OLD_IMAGES          # KEYS_ONLY | NEW_IMAGE | OLD_IMAGE | NEW_AND_OLD_IMAGES
        ttl: expires                        # the TTL attribute
        indexes:
          - {name: by-status, key: {status: S}, projection: ALL}
    functions:
      replicate:
        handler: eddy.handlers.replicate.handler # a module path: its top-level package is zipped
        # code: ./src                       # or a folder to zip, with handler: app.handler inside it
        #                                   # (nodejs18.x/20.x/22.x: code: and handler: index.handler)
        runtime: python3.11
        timeout: 30
        memory: 256
        environment: {REPLICA_TABLE: orders-replica}
    mappings:
      - function: replicate
        table: orders                       # the table's stream (or stream_arn: ...)
        starting_position: TRIM_HORIZON
        batch_size: 100                     # and every other event source mapping parameter
        on_failure: {queue: failures}       # or {topic: ...} or {bucket: ...}
    queues: [failures]
    topics: [welcome]
    buckets: [archive]

`parse_stack` validates a stack file's document (infra/load.py reads the file; stack_template.py makes it the
CloudFormation template `eddy up` deploys); every error names its place in the file, e.g. `tables.orders.stream: Input should be 'KEYS_ONLY', ...`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from eddy.emulator.functions.runtimes import RUNTIMES
from eddy.infra.stack_schema import Bounds, Invalid, Section

AttributeType = Literal["S", "N", "B"]
ViewType = Literal["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"]


class StackError(Exception):
    """A stack file that cannot be used; the message lists every problem with its place in the file."""


def one_or_two_keys(key: dict[str, str]) -> dict[str, str]:
    if not 1 <= len(key) <= 2:
        raise ValueError("a key is a partition key and optionally a sort key: one or two attributes")
    return key


class Index(Section):
    name: str
    key: dict[str, AttributeType]
    projection: Literal["ALL", "KEYS_ONLY", "INCLUDE"] = "ALL"
    non_key_attributes: list[str] = Bounds(default_factory=list)

    field_checks = {"key": one_or_two_keys}


class Table(Section):
    key: dict[str, AttributeType]
    attributes: dict[str, AttributeType] = Bounds(default_factory=dict)
    billing: Literal["PAY_PER_REQUEST", "PROVISIONED"] = "PAY_PER_REQUEST"
    read_capacity: int = Bounds(5, ge=1)
    write_capacity: int = Bounds(5, ge=1)
    stream: ViewType | None = None
    ttl: str | None = None
    indexes: list[Index] = Bounds(default_factory=list)

    field_checks = {"key": one_or_two_keys}

    def attribute_definitions(self) -> list[dict[str, str]]:
        types = dict(self.attributes)
        types.update(self.key)
        for index in self.indexes:
            types.update(index.key)
        return [{"AttributeName": name, "AttributeType": kind} for name, kind in types.items()]


def runtime_eddy_runs(runtime: str) -> str:
    if runtime not in RUNTIMES:
        raise ValueError(f"Eddy runs {', '.join(RUNTIMES)} functions")
    return runtime


def module_and_function(handler: str) -> str:
    if "." not in handler:
        raise ValueError("a handler is module.function, e.g. handlers.replicate.handler")
    return handler


def text_values(environment: Any) -> Any:
    if isinstance(environment, dict):
        return {name: value if isinstance(value, str) else str(value) for name, value in environment.items()}
    return environment


class Function(Section):
    handler: str
    code: str | None = None
    runtime: str = "python3.11"
    timeout: int = Bounds(3, ge=1, le=900)
    memory: int = Bounds(128, ge=128, le=10240)
    environment: dict[str, str] = Bounds(default_factory=dict)
    role: str | None = None
    description: str = ""

    field_checks = {"runtime": runtime_eddy_runs, "handler": module_and_function}
    before = {"environment": text_values}


class OnFailure(Section):
    queue: str | None = None
    topic: str | None = None
    bucket: str | None = None
    arn: str | None = None

    def check(self) -> None:
        given = [name for name in ("queue", "topic", "bucket", "arn") if getattr(self, name)]
        if len(given) != 1:
            raise ValueError("name exactly one on-failure destination: queue, topic, bucket or arn")


class Mapping(Section):
    function: str
    table: str | None = None
    stream_arn: str | None = None
    starting_position: Literal["TRIM_HORIZON", "LATEST"] = "TRIM_HORIZON"
    enabled: bool = True
    batch_size: int = Bounds(100, ge=1, le=10000)
    maximum_batching_window_in_seconds: int = Bounds(0, ge=0, le=300)
    maximum_retry_attempts: int = Bounds(-1, ge=-1, le=10000)
    maximum_record_age_in_seconds: int = Bounds(-1, ge=-1, le=604800)
    bisect_batch_on_function_error: bool = False
    function_response_types: list[Literal["ReportBatchItemFailures"]] = Bounds(default_factory=list)
    parallelization_factor: int = Bounds(1, ge=1, le=10)
    tumbling_window_in_seconds: int = Bounds(0, ge=0, le=900)
    filters: list[dict[str, Any] | str] = Bounds(default_factory=list, max_length=5)
    on_failure: OnFailure | None = None

    def check(self) -> None:
        if bool(self.table) == bool(self.stream_arn):
            raise ValueError("name the source: a table of this stack (table:) or a stream (stream_arn:)")
        if self.maximum_record_age_in_seconds != -1 and self.maximum_record_age_in_seconds < 60:
            raise ValueError("maximum_record_age_in_seconds is -1 or from 60 to 604800")


class Stack(Section):
    region: str | None = None
    tables: dict[str, Table] = Bounds(default_factory=dict)
    functions: dict[str, Function] = Bounds(default_factory=dict)
    mappings: list[Mapping] = Bounds(default_factory=list)
    queues: list[str] = Bounds(default_factory=list)
    topics: list[str] = Bounds(default_factory=list)
    buckets: list[str] = Bounds(default_factory=list)
    #: where relative code folders are found (the stack file's folder): set by parse_stack, never read from the file
    base_dir: ClassVar[Path] = Path(".")
    #: the CloudFormation stack `eddy up` deploys it as (infra/load.py: the file's stem unless named)
    stack_name: ClassVar[str] = "stack"
    #: the file it was read from, named in errors
    source: ClassVar[str] = "stack"

    def check(self) -> None:
        problems = []
        for position, mapping in enumerate(self.mappings):
            if mapping.function not in self.functions:
                problems.append(f"mappings.{position}.function: no function {mapping.function!r} in this stack")
            if mapping.table and mapping.table not in self.tables:
                problems.append(f"mappings.{position}.table: no table {mapping.table!r} in this stack")
            elif mapping.table and not self.tables[mapping.table].stream:
                problems.append(f"mappings.{position}.table: table {mapping.table!r} has no stream")
            failure = mapping.on_failure
            if failure and failure.queue and failure.queue not in self.queues:
                problems.append(f"mappings.{position}.on_failure.queue: no queue {failure.queue!r} in this stack")
            if failure and failure.topic and failure.topic not in self.topics:
                problems.append(f"mappings.{position}.on_failure.topic: no topic {failure.topic!r} in this stack")
            if failure and failure.bucket and failure.bucket not in self.buckets:
                problems.append(f"mappings.{position}.on_failure.bucket: no bucket {failure.bucket!r} in this stack")
        if problems:
            raise ValueError("; ".join(problems))


def parse_stack(document: Any, source: str = "stack", base_dir: Path = Path(".")) -> Stack:
    if not isinstance(document, dict):
        raise StackError(f"{source}: a stack file is a YAML mapping (tables:, functions:, mappings:, ...)")
    try:
        stack = Stack.parse(document)
    except Invalid as error:
        lines = [
            f"  {'.'.join(str(part) for part in place) or '(top)'}: {message}" for place, message in error.problems
        ]
        raise StackError(f"{source} is not a valid stack:\n" + "\n".join(lines)) from None
    stack.base_dir, stack.source = base_dir, source
    return stack
