"""MERGE INTO a Parquet table of Spark's catalog, executed by Eddy (Spark has MERGE only for Delta/Iceberg).

    MERGE INTO target [AS] t USING source [AS] s ON <condition>
    WHEN MATCHED [AND <condition>] THEN UPDATE SET col = expr, ... | DELETE
    WHEN NOT MATCHED [AND <condition>] THEN INSERT [(col, ...)] VALUES (expr, ...)

As in Snowflake and the Lakehouse: for each target row the first WHEN MATCHED clause whose condition holds
for its matching source row applies; a matching pair that no clause applies to changes nothing; a target
row that two source rows would change is an error (nothing is written). Each source row that matches no
target row is inserted by the first WHEN NOT MATCHED clause whose condition holds. The conditions and
expressions are Spark SQL over the aliases. The new content is computed whole, then written beside the
table's data and swapped in (io.replace_parquet); the table is refreshed. `source` is any table or view
(a table stream's rows, registered as a view named after the stream, when TableStreams.sql consumes it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from . import io

_MERGE = re.compile(
    r"^\s*MERGE\s+INTO\s+(?P<target>[\w.`]+)(?:\s+(?:AS\s+)?(?!USING\b)(?P<target_alias>\w+))?"
    r"\s+USING\s+(?P<source>[\w.`]+)(?:\s+(?:AS\s+)?(?!ON\b)(?P<source_alias>\w+))?"
    r"\s+ON\s+(?P<on>.+?)\s+(?P<clauses>WHEN\s+.+?)\s*;?\s*$",
    re.I | re.S,
)
_CLAUSE = re.compile(r"\bWHEN\s+(NOT\s+)?MATCHED\b", re.I)
_BODY = re.compile(r"^(?:AND\s+(?P<condition>.+?)\s+)?THEN\s+(?P<action>.+)$", re.I | re.S)
_INSERT = re.compile(r"^INSERT\s*(?:\((?P<columns>[^)]*)\))?\s*VALUES\s*\((?P<values>.*)\)$", re.I | re.S)
_ROW = "__eddy_row"


class MergeError(ValueError):
    """A MERGE statement Eddy cannot run (its text, or a target row changed twice)."""


@dataclass
class Clause:
    matched: bool
    action: str  # UPDATE, DELETE, INSERT
    condition: str | None = None
    assignments: dict[str, str] = field(default_factory=dict)  # target column (lower case) -> expression


@dataclass
class Merge:
    target: str
    target_alias: str
    source: str
    source_alias: str
    on: str
    clauses: list[Clause]


def is_merge(statement: str) -> bool:
    return re.match(r"^\s*MERGE\s+INTO\b", statement, re.I) is not None


def parse(statement: str) -> Merge:
    match = _MERGE.match(statement)
    if match is None:
        raise MergeError("MERGE INTO target [AS t] USING source [AS s] ON condition WHEN [NOT] MATCHED ... expected")
    heads = list(_CLAUSE.finditer(match["clauses"]))
    if not heads or heads[0].start() != 0:
        raise MergeError("a MERGE needs at least one WHEN MATCHED or WHEN NOT MATCHED clause")
    clauses = []
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(match["clauses"])
        clauses.append(_clause(head[1] is None, match["clauses"][head.end() : end].strip()))
    target, source = match["target"], match["source"]
    return Merge(
        target,
        match["target_alias"] or target.split(".")[-1],
        source,
        match["source_alias"] or source.split(".")[-1],
        match["on"],
        clauses,
    )


def _clause(matched: bool, body: str) -> Clause:
    parts = _BODY.match(body)
    if parts is None:
        raise MergeError(f"WHEN {'' if matched else 'NOT '}MATCHED [AND condition] THEN ... expected, not {body!r}")
    action, condition = parts["action"].strip(), parts["condition"]
    if matched and re.match(r"^DELETE$", action, re.I):
        return Clause(True, "DELETE", condition)
    if matched and re.match(r"^UPDATE\s+SET\s", action, re.I):
        assignments = {}
        for assignment in split_top_level(action[action.upper().index("SET") + 3 :]):
            column, equals, expression = assignment.partition("=")
            if not equals:
                raise MergeError(f"UPDATE SET column = expression expected, not {assignment!r}")
            assignments[column.strip().split(".")[-1].strip("`").lower()] = expression.strip()
        return Clause(True, "UPDATE", condition, assignments)
    insert = _INSERT.match(action)
    if not matched and insert is not None:
        values = split_top_level(insert["values"])
        columns = [c.strip().strip("`").lower() for c in insert["columns"].split(",")] if insert["columns"] else None
        if columns is not None and len(columns) != len(values):
            raise MergeError(f"INSERT names {len(columns)} columns and gives {len(values)} values")
        return Clause(False, "INSERT", condition, dict(zip(columns or [f"#{i}" for i in range(len(values))], values)))
    expected = "UPDATE SET ... or DELETE" if matched else "INSERT [(columns)] VALUES (...)"
    raise MergeError(f"WHEN {'' if matched else 'NOT '}MATCHED ... THEN {expected} expected, not {action!r}")


def split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside parentheses and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for index, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def merge_into(spark: SparkSession, statement: str) -> dict[str, int]:
    """Run a MERGE on a Parquet table of Spark's catalog; returns the rows inserted, updated and deleted."""
    merge = parse(statement)
    location = _location(spark, merge.target)
    current = spark.table(merge.target)
    columns = current.columns
    target = current.withColumn(_ROW, F.monotonically_increasing_id()).localCheckpoint(eager=True)
    view = f"__eddy_merge_target_{abs(hash(statement)) % 10**8}"
    target.createOrReplaceTempView(view)
    try:
        result, counts = _merged(spark, merge, view, columns)
        result = result.localCheckpoint(eager=True)  # computed whole before anything is written
        io.replace_parquet(result, location)
    finally:
        spark.catalog.dropTempView(view)
    spark.catalog.refreshTable(merge.target)
    return counts


def _merged(spark: SparkSession, merge: Merge, view: str, columns: list[str]) -> tuple[DataFrame, dict[str, int]]:
    t, s = merge.target_alias, merge.source_alias
    matched = [c for c in merge.clauses if c.matched]
    unmatched = [c for c in merge.clauses if not c.matched]
    frames: list[DataFrame] = []
    counts = {"inserted": 0, "updated": 0, "deleted": 0}
    changed_rows = spark.createDataFrame([], f"{_ROW} bigint")
    if matched:
        choice = " ".join(f"WHEN {c.condition or 'TRUE'} THEN {i}" for i, c in enumerate(matched))
        values = [_case(matched, column, f"{t}.`{column}`") + f" AS `{column}`" for column in columns]
        pairs = spark.sql(
            f"SELECT {t}.{_ROW} AS {_ROW}, CASE {choice} END AS __eddy_clause, {', '.join(values)} "
            f"FROM {view} {t} JOIN {merge.source} {s} ON {merge.on}"
        ).where("__eddy_clause IS NOT NULL")
        pairs = pairs.localCheckpoint(eager=True)
        twice = pairs.groupBy(_ROW).count().where("count > 1").limit(1).collect()
        if twice:
            raise MergeError(
                f"MERGE INTO {merge.target}: a target row matches more than one source row that a "
                f"WHEN MATCHED clause applies to (nothing was written)"
            )
        kinds = {i: c.action for i, c in enumerate(matched)}
        updates = [i for i, kind in kinds.items() if kind == "UPDATE"]
        updated = pairs.where(F.col("__eddy_clause").isin(updates))
        counts["updated"] = updated.count()
        counts["deleted"] = pairs.count() - counts["updated"]
        frames.append(updated.select(*columns))
        changed_rows = pairs.select(_ROW)
    frames.insert(0, spark.table(view).join(changed_rows, _ROW, "left_anti").select(*columns))
    if unmatched:
        choice = " ".join(f"WHEN {c.condition or 'TRUE'} THEN {i}" for i, c in enumerate(unmatched))
        values = [
            _case(unmatched, column, "NULL", position) + f" AS `{column}`" for position, column in enumerate(columns)
        ]
        inserted = spark.sql(
            f"SELECT CASE {choice} END AS __eddy_clause, {', '.join(values)} FROM {merge.source} {s} "
            f"LEFT ANTI JOIN {view} {t} ON {merge.on}"
        ).where("__eddy_clause IS NOT NULL")
        inserted = inserted.select(*columns).localCheckpoint(eager=True)
        counts["inserted"] = inserted.count()
        frames.append(inserted)
    schema = spark.table(view).select(*columns).schema
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame.select(*[F.col(f"`{f.name}`").cast(f.dataType) for f in schema]))
    return result, counts


def _case(clauses: list[Clause], column: str, otherwise: str, position: int | None = None) -> str:
    """The column's value as a SQL CASE over the first clause that applies: that clause's assignment (by
    name, or by position for an INSERT VALUES without column names), else `otherwise`."""
    choice = " ".join(f"WHEN {c.condition or 'TRUE'} THEN {i}" for i, c in enumerate(clauses))
    branches = []
    for index, clause in enumerate(clauses):
        expression = clause.assignments.get(column.lower())
        if expression is None and position is not None:
            expression = clause.assignments.get(f"#{position}")
        branches.append(f"WHEN {index} THEN {expression if expression is not None else otherwise}")
    return f"CASE (CASE {choice} END) {' '.join(branches)} ELSE {otherwise} END"


def _location(spark: SparkSession, table: str) -> str:
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()
    details = {row["col_name"]: row["data_type"] for row in rows}
    if (details.get("Provider") or "").lower() != "parquet":
        raise MergeError(
            f"MERGE INTO {table}: Eddy runs MERGE on Parquet tables; {table} is "
            f"{details.get('Provider') or 'not a data source table'}"
        )
    return details["Location"]
