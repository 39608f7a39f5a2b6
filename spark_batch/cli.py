"""`eddy export` and `eddy spark <job>`: the Spark batch path's subcommands, for `eddy`'s parser.

    commands = parser.add_subparsers(dest="command", required=True)
    spark_batch.cli.register(commands)
    args = parser.parse_args(argv)
    return args.handler(args)            # for the subcommands registered here

    eddy export --table orders --to exports/ [--state-dir .eddy] [--format both] [--scan --endpoint-url URL]
    eddy spark aggregate --out metrics/ [--state-dir .eddy] [--window 60] [--numbers amount] [--group-by ...]
    eddy spark ttl-archive --out archive/ [--state-dir .eddy]
    eddy spark search-index-rebuild --export DIR [--state-dir .eddy | --incremental DIR] --attributes a,b --index F
    eddy spark stream {create,show,consume,drop,list} ...     (table streams; see `eddy spark stream -h`)
    eddy spark sql ["STATEMENT"] --offsets DIR [--state-dir .eddy] [--endpoint-url URL]  (no statement: a prompt)

Every Spark subcommand takes `--master URL` (default: $SPARK_MASTER, else local[*]) and `--conf KEY=VALUE`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from .errors import MissingChangeLogError
from .jobs import JOBS, add_common_arguments, session_for


def register(subparsers: Any) -> None:
    """Add `export` and `spark` to an argparse subparsers object; each parsed namespace has `handler(args)`."""
    export = subparsers.add_parser(
        "export",
        help="write a table's DynamoDB export files (full and incremental)",
        description=_first_line("eddy.spark_batch.export"),
    )
    add_common_arguments(export)
    export.add_argument("--table", required=True)
    export.add_argument("--to", required=True, help="the export prefix: exports land in <to>/AWSDynamoDB/<id>/")
    export.add_argument("--state-dir", default=".eddy", help="Eddy's state directory (default .eddy)")
    export.add_argument("--format", choices=("both", "full", "incremental"), default="both")
    export.add_argument(
        "--scan", action="store_true", help="the full export from a Scan of the live table, not the log"
    )
    export.add_argument("--endpoint-url", help="with --scan: the DynamoDB endpoint (e.g. http://127.0.0.1:4566)")
    export.add_argument(
        "--region",
        help="with --scan: the table's region (default: the change log's, else the configured one, else us-east-1)",
    )
    export.add_argument("--from-time", help="incremental: the period's start (ISO 8601 or epoch seconds)")
    export.add_argument("--to-time", help="the export's time / the period's end (default: now)")
    export.set_defaults(handler=export_command)

    spark = subparsers.add_parser("spark", help="run a Spark batch job over the change log or exports")
    jobs = spark.add_subparsers(dest="job", required=True)
    for job, module_name in JOBS.items():
        module = importlib.import_module(f"eddy.spark_batch.jobs.{module_name}")
        parser = jobs.add_parser(
            job,
            help=module.__doc__.split("\n")[0],
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        add_common_arguments(parser)
        module.add_arguments(parser)
        parser.set_defaults(handler=_job_handler(job, module))
    _register_streams(jobs)
    _register_sql(jobs)


def require_change_log(state_dir: str) -> None:
    """A local state directory must exist and hold a change log (`streams/`), or the command would read nothing
    and say "0 rows": MissingChangeLogError naming the path instead. A remote one (s3a://...) is Spark's to read."""
    if "://" in state_dir:
        return
    path = Path(state_dir).absolute()
    if not path.is_dir():
        raise MissingChangeLogError(
            f"state directory {path} does not exist: pass --state-dir with the directory "
            f"`eddy serve --state-dir` (or emulate(state_dir=...)) writes"
        )
    if not (path / "streams").is_dir():
        raise MissingChangeLogError(
            f"state directory {path} holds no change log (no streams/): is it Eddy's state "
            f"directory, and has a table there a stream enabled?"
        )


def export_command(args: argparse.Namespace) -> int:
    from .export import export_table, parse_time

    require_change_log(args.state_dir)
    spark = session_for(args, "export")
    formats = ("full", "incremental") if args.format == "both" else (args.format,)
    for summary in export_table(
        spark,
        args.state_dir,
        args.table,
        args.to,
        formats=formats,
        scan=args.scan,
        endpoint_url=args.endpoint_url,
        region=args.region,
        from_time=parse_time(args.from_time),
        to_time=parse_time(args.to_time),
    ):
        print(f"{summary['exportType']}: {summary['itemCount']:,} items -> {summary['directory']}")
    return 0


def _job_handler(job: str, module: Any):
    def handler(args: argparse.Namespace) -> int:
        if not getattr(args, "incremental", None):  # search-index-rebuild reads exports instead with --incremental
            require_change_log(args.state_dir)
        print(module.run(session_for(args, job), args).line())
        return 0

    return handler


# -- table streams -----------------------------------------------------------------------------------


def _register_streams(jobs: Any) -> None:
    stream = jobs.add_parser("stream", help="table streams: named offsets on a table, read as net changes")
    actions = stream.add_subparsers(dest="action", required=True)

    def action(name: str, help: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=help)
        add_common_arguments(parser)
        parser.add_argument("--state-dir", default=".eddy", help="Eddy's state directory (default .eddy)")
        parser.add_argument("--offsets", required=True, help="the directory holding the streams' offsets")
        parser.set_defaults(handler=_stream_command)
        return parser

    create = action("create", "create a stream on a table at an offset")
    create.add_argument("name")
    create.add_argument("--table", required=True)
    create.add_argument("--mode", choices=("STANDARD", "APPEND_ONLY"), default="STANDARD")
    at = create.add_mutually_exclusive_group()
    at.add_argument("--at-version", type=int, help="return the commits after this version (default: now)")
    at.add_argument("--at-time", help="the table as of this time (ISO 8601 or epoch seconds)")
    create.add_argument("--show-initial-rows", action="store_true")
    create.add_argument("--replace", action="store_true")
    show = action("show", "print the change set from the offset to the latest commit (the offset stays)")
    show.add_argument("name")
    show.add_argument("--limit", type=int, default=100)
    consume = action("consume", "write the change set, then move the offset")
    consume.add_argument("name")
    target = consume.add_mutually_exclusive_group(required=True)
    target.add_argument("--replica", help="MERGE into this Parquet replica (needs --keys)")
    target.add_argument("--append-to", help="append the change rows to this Parquet directory")
    consume.add_argument("--keys", help="with --replica: the key attributes")
    drop = action("drop", "forget a stream")
    drop.add_argument("name")
    action("list", "list the streams and their offsets")


def _stream_command(args: argparse.Namespace) -> int:
    from . import io
    from .export import parse_time
    from .jobs import split_names
    from .table_streams import TableStreams

    if args.action in ("create", "show", "consume"):
        require_change_log(args.state_dir)
    streams = TableStreams(session_for(args, "stream"), args.state_dir, args.offsets)
    if args.action == "create":
        moment = parse_time(args.at_time)
        stream = streams.create(
            args.name,
            args.table,
            mode=args.mode,
            at_version=args.at_version,
            at_timestamp=moment,
            show_initial_rows=args.show_initial_rows,
            replace=args.replace,
        )
        print(f"{stream.name}: on {stream.table}, {stream.mode}, offset {stream.offset}")
    elif args.action == "show":
        streams.get(args.name).read().show(args.limit, truncate=False)
    elif args.action == "consume":
        stream = streams.get(args.name)
        if args.replica:
            if not args.keys:
                raise SystemExit("eddy spark stream consume --replica needs --keys")
            version = stream.apply_changes(args.replica, split_names(args.keys))
        else:
            version = stream.consume(lambda rows, batch_id: io.append_parquet(rows, args.append_to))
        print(f"{stream.name}: offset {version}")
    elif args.action == "drop":
        streams.drop(args.name)
    else:
        for name in streams.names():
            state = streams.get(name).state
            print(json.dumps({key: state[key] for key in ("name", "table", "mode", "offset")}))
    return 0


def _register_sql(jobs: Any) -> None:
    sql = jobs.add_parser(
        "sql",
        help="the Lakehouse's table-stream SQL (CREATE TABLE STREAM, SELECT, MERGE ...)",
        description=_first_line("eddy.spark_batch.stream_sql"),
    )
    add_common_arguments(sql)
    sql.add_argument("statement", nargs="?", help="one statement; without it, a prompt reads statements ending in ;")
    sql.add_argument("--state-dir", default=".eddy", help="Eddy's state directory (default .eddy)")
    sql.add_argument("--offsets", required=True, help="the directory holding the streams' offsets")
    sql.add_argument("--endpoint-url", help="DynamoDB's endpoint for ALTER TABLE (e.g. http://127.0.0.1:4566)")
    sql.add_argument(
        "--region", default=None, help="ALTER TABLE's region (default: the configured one, else us-east-1)"
    )
    sql.set_defaults(handler=_sql_command)


def _sql_command(args: argparse.Namespace) -> int:
    from eddy.emulator.aws_environment import session_for as aws_session_for

    from .table_streams import TableStreams

    streams = TableStreams(session_for(args, "sql"), args.state_dir, args.offsets)
    # at Eddy's endpoint, a machine without AWS configuration still has a region and (fake) credentials
    dynamodb = aws_session_for(args.endpoint_url, args.region).client("dynamodb", endpoint_url=args.endpoint_url)

    def run(statement: str) -> None:
        result = streams.sql(statement, dynamodb=dynamodb)
        if result is not None:
            result.show(1000, truncate=False)
        else:
            print("OK")

    if args.statement is not None:
        run(args.statement)
        return 0
    buffer = ""
    while True:
        try:
            line = input("eddy> " if not buffer else "   -> ")
        except EOFError:
            print()
            return 0
        buffer += line + "\n"
        if not buffer.strip().endswith(";"):
            continue
        statement, buffer = buffer.strip(), ""
        if statement.rstrip(";").strip().lower() in ("exit", "quit"):
            return 0
        try:
            run(statement)
        except Exception as error:  # the prompt goes on after a failed statement, saying what failed
            print(f"error: {type(error).__name__}: {error}")


def _first_line(module: str) -> str:
    return (importlib.import_module(module).__doc__ or "").split("\n")[0]


def main(argv: list[str] | None = None) -> int:
    """`python -m spark_batch.cli export|spark ...` until `eddy` registers these subcommands."""
    parser = argparse.ArgumentParser(prog="eddy")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
