"""The `eddy` command.

    eddy [--verbose] COMMAND ...    --verbose: a failure's traceback too (any command; serve: every request)
    eddy serve [--host 127.0.0.1] [--port 4566] [--state-dir DIR | --in-memory] [--stack FILE]
    eddy tail TABLE                 follow a table's stream
    eddy tail --queue NAME          a queue's messages (without receiving them); --function NAME, --stack NAME
    eddy up -f stack.yaml           deploy a stack file or template as a stack (eddy down deletes it)
    eddy demo                       the end-to-end tour
    eddy export / eddy spark <job>  the Spark batch path (spark_batch/; needs `pip install "eddy[spark]"`)
    eddy setup node                 install the AWS SDK for JavaScript that Node.js functions import
    eddy doctor                     check Python, Java, Node.js and its SDK, the port and the state directory

An expected failure is one line on stderr and a non-zero status (cli_failures.py); `eddy serve` on a state
directory another process owns exits with status 2.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import socket
import sys
import threading

from typing import Any, Callable

from eddy.emulator.cli.failures import INTERRUPTED, CannotListenError, answer_failures, interrupted
from eddy.emulator.settings import Settings


def main(argv: list[str] | None = None) -> int:
    try:
        args = _arguments(argv)
    except KeyboardInterrupt:  # Ctrl-C while the commands are being loaded
        return interrupted("eddy", verbose="--verbose" in (sys.argv[1:] if argv is None else argv))
    words = [args.command] + [getattr(args, name) for name in ("job", "action") if getattr(args, name, None)]
    return answer_failures(lambda: args.handler(args), prefix=" ".join(["eddy", *words]), verbose=args.verbose)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="eddy", description="A local emulator of DynamoDB Streams and triggers.")
    parser.add_argument(
        "--verbose", action="store_true", help="show the traceback of a failure (and, for serve, log every request)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve DynamoDB, DynamoDB Streams and moto's services on one port")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--port", type=int, default=4566)
    serve.add_argument(
        "--state-dir",
        default=".eddy",
        help="where Eddy keeps its state: tables, streams, functions, mappings (default: .eddy)",
    )
    serve.add_argument(
        "--in-memory", action="store_true", help="keep nothing: a temporary directory that goes when Eddy stops"
    )
    serve.add_argument(
        "--fsync",
        action="store_true",
        help="fsync every write-ahead log entry (survives a machine crash, not only a kill)",
    )
    serve.add_argument(
        "--snapshot-every",
        type=int,
        default=100_000,
        metavar="ENTRIES",
        help="a snapshot every this many log entries (a request to S3, SQS, ... counts as 10); "
        "fewer: a shorter log to replay after a crash, more time spent on snapshots",
    )
    defaults = Settings()
    serve.add_argument("--retention-hours", type=float, default=defaults.retention_seconds / 3600)
    serve.add_argument(
        "--rollover-hours",
        type=float,
        default=defaults.shard_rollover_seconds / 3600,
        help="an open shard closes and a child takes over after this long on the emulator's clock",
    )
    serve.add_argument(
        "--split-records-per-second",
        type=int,
        default=defaults.split_records_per_second,
        help="a shard receiving more records than this in one second splits in two (0: never)",
    )
    serve.add_argument(
        "--housekeeping-interval",
        type=float,
        default=defaults.housekeeping_interval,
        help="seconds between TTL sweeps and shard maintenance (0: only on demand)",
    )
    _setting_flags(serve, defaults)
    serve.add_argument(
        "--stack",
        default=None,
        help="a stack file (or SAM / CloudFormation template) to deploy as a stack once serving",
    )
    serve.set_defaults(handler=serve_command)
    if _command_word(argv) != "serve":  # the others' modules (infra/, Spark's, doctor's) load only for them
        _register_others(commands)
    _everywhere(
        parser,
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the traceback of a failure (and, for serve, log every request)",
    )
    return parser.parse_args(argv)


def _share(text: str) -> float:
    """A share, 0 to 1 (argparse says what is wrong with any other)."""
    share = float(text)
    if not 0 <= share <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a share between 0 and 1")
    return share


def _at_least_zero(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """A number of `kind`, 0 or more (argparse says what is wrong with a negative one)."""

    def read(text: str) -> Any:
        value = kind(text)
        if value < 0:
            raise argparse.ArgumentTypeError(f"{text} is less than 0")
        return value

    read.__name__ = kind.__name__  # argparse names the type in its message for what it cannot read
    return read


#: the settings `eddy serve` takes as they are named (Settings' other fields have flags of their own above, in hours
#: or with 0 for None): setting -> (flag, type, metavar, meaning, what 0 means or None)
SETTING_FLAGS: dict[str, tuple[str, Any, str, str, str | None]] = {
    "iterator_ttl_seconds": (
        "--iterator-ttl-seconds",
        _at_least_zero(float),
        "S",
        "a shard iterator expires this long after it was issued",
        None,
    ),
    "get_records_per_second_per_shard": (
        "--get-records-per-second-per-shard",
        _at_least_zero(int),
        "N",
        "GetRecords calls per shard per second before LimitExceededException",
        "no throttle",
    ),
    "segment_max_bytes": (
        "--segment-max-bytes",
        _at_least_zero(int),
        "BYTES",
        "a new change-log segment file starts past this size",
        None,
    ),
    "columnar_copy_min_bytes": (
        "--columnar-copy-min-bytes",
        _at_least_zero(int),
        "BYTES",
        "a sealed segment this big gets a columnar copy Spark reads",
        "never",
    ),
    "replication_delay_seconds": (
        "--replication-delay-seconds",
        _at_least_zero(float),
        "S",
        "a global table's write reaches its other replicas this long after its commit",
        None,
    ),
    "replica_transition_seconds": (
        "--replica-transition-seconds",
        _at_least_zero(float),
        "S",
        "a replica being added (removed) is CREATING (DELETING) this long",
        None,
    ),
    "sns_retry_jitter": (
        "--sns-retry-jitter",
        _share,
        "SHARE",
        "each retry of an SNS notification to an HTTP/S endpoint comes up to this share of its delay sooner",
        None,
    ),
}


def _setting_flags(serve: argparse.ArgumentParser, defaults: Settings) -> None:
    for name, (flag, kind, metavar, meaning, zero) in SETTING_FLAGS.items():
        default = getattr(defaults, name)
        shown = "0" if default is None else f"{default:g}" if isinstance(default, float) else str(default)
        serve.add_argument(
            flag,
            type=kind,
            default=None,
            dest=name,
            metavar=metavar,
            help=f"{meaning} (default: {shown}{f'; 0: {zero}' if zero else ''})",
        )
    serve.add_argument(
        "--no-function-logs",
        action="store_false",
        dest="function_logs",
        default=None,
        help="write no invocation's log into CloudWatch Logs (moto keeps every log event in memory)",
    )


def serve_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings `eddy serve`'s flags give, as emulate() takes them: those always given (their defaults are
    Settings'), and those of SETTING_FLAGS and --no-function-logs that were named."""
    overrides: dict[str, Any] = {
        "retention_seconds": args.retention_hours * 3600,
        "shard_rollover_seconds": args.rollover_hours * 3600,
        "split_records_per_second": args.split_records_per_second or None,
        "housekeeping_interval": args.housekeeping_interval or None,
    }
    for name, (_, _, _, _, zero) in SETTING_FLAGS.items():
        value = getattr(args, name)
        if value is not None:
            overrides[name] = None if zero and value == 0 else value
    if args.function_logs is not None:
        overrides["function_logs"] = args.function_logs
    return overrides


def _command_word(argv: list[str] | None) -> str | None:
    """The subcommand named (the first word that is not an option), None when none is."""
    return next((word for word in (sys.argv[1:] if argv is None else argv) if not word.startswith("-")), None)


def _register_others(commands: Any) -> None:
    """Every subcommand but serve (`eddy --help` lists them all; `eddy serve` loads none of their modules)."""
    from eddy.infra.cli import register as register_infra
    from eddy.infra.demo import register as register_demo
    from eddy.spark_batch.extra import missing_modules, register_missing

    from eddy.emulator.cli.doctor import register as register_doctor
    from eddy.emulator.functions.runtimes.node_sdk import register as register_setup
    from eddy.emulator.cli.tail import register as register_tail

    register_tail(commands)
    register_infra(commands)
    register_demo(commands)
    if missing_modules():  # installed without Spark's extra: `eddy spark` / `eddy export` say what to install
        register_missing(commands)
    else:
        from eddy.spark_batch.cli import register as register_spark

        register_spark(commands)
    register_setup(commands)
    register_doctor(commands)


def _everywhere(parser: argparse.ArgumentParser, *flags: str, **options: Any) -> None:
    """Add a global option to every subcommand too (`eddy tail --verbose` as well as `eddy --verbose tail`)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subcommand in action.choices.values():
                subcommand.add_argument(*flags, **options)
                _everywhere(subcommand, *flags, **options)


def serve_command(args: argparse.Namespace) -> int:
    """Serve until SIGTERM (status 0) or Ctrl-C (status 130). Ctrl-C while starting is KeyboardInterrupt, which
    answer_failures says in one line (status 130) once what was started is stopped."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("eddy.server").setLevel(logging.DEBUG if args.verbose else logging.INFO)  # each request
    opened = _opened_early(args)
    try:
        Emulator, Server = _server_modules()
        if args.port and opened is None:  # a busy port is said before the state directory is made, read or logged about
            _can_listen(args.host, args.port)
        emulator = Emulator(
            state_dir=args.state_dir,
            in_memory=args.in_memory,
            fsync=args.fsync,
            snapshot_every=args.snapshot_every,
            **serve_settings(args),
            owner=f"eddy serve, port {args.port}",
        )
    except BaseException:
        if opened is not None:
            opened.close()
        raise
    try:
        emulator.recover()
        server = Server(emulator, args.host, args.port, opened=opened)
    except BaseException as error:  # Ctrl-C, or recovery failed: the state directory goes back as it was
        if opened is not None:
            opened.close()
        emulator.close(keep_state=True)
        if isinstance(error, OSError):
            raise CannotListenError(args.host, args.port, error) from error
        raise
    stopping = threading.Event()
    signals: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):  # from here on a signal stops the server in order, once started
        signal.signal(signum, lambda received, _: (signals.append(received), stopping.set()))
    if emulator.ownership is not None:
        emulator.ownership.describe(f"eddy serve on {server.url}")
    server.start()
    try:
        _banner(server, emulator, args)
    except BaseException:  # a stack that fails to apply: answered by the command's failure handling (status 2)
        server.stop()
        raise
    while not stopping.is_set():  # woken every half second, so a signal is noticed promptly
        stopping.wait(0.5)
    _say("Eddy is stopping")
    server.stop()
    return INTERRUPTED if signal.SIGINT in signals else 0


def _server_modules() -> tuple[Any, Any]:
    """Emulator and Server, their modules imported without the garbage collector, whose collections would only
    walk what the imports make (every object of which lives as long as the process: 7% of the imports' CPU time);
    those objects are then set apart (gc.freeze), so that no full collection of the serving process walks them
    again."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        from eddy.emulator.engine import Emulator
        from eddy.emulator.api.server import Server
    finally:
        gc.freeze()
        if collecting:
            gc.enable()
    return Emulator, Server


def _opened_early(args: argparse.Namespace) -> Any:
    """The port, open and answering before the engine and moto are loaded (most of a start's time), where the state
    is empty: in memory, or a state directory that does not exist or holds nothing. Until the engine is ready no table
    can exist there, so ListTables is answered at once (moto_seam/tables/empty_listing.py) and every other request
    waits for the engine (http_server.StartingApp). A state to recover opens the port once it is recovered (None)."""
    if args.state_dir is not None and not args.in_memory:
        try:
            if os.path.lexists(args.state_dir) and (not os.path.isdir(args.state_dir) or os.listdir(args.state_dir)):
                return None
        except OSError:  # unreadable: the emulator says why
            return None
    from eddy.emulator.http_server import OpenedPort
    from eddy.emulator.moto_seam.tables import empty_listing

    try:
        return OpenedPort(args.host, args.port, empty_listing.answer)
    except OSError as error:
        raise CannotListenError(args.host, args.port, error) from error


def _can_listen(host: str, port: int) -> None:
    """CannotListenError unless `port` can be bound (it is let go at once: the server binds it once it is ready)."""
    try:
        socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET).close()
    except OSError as error:
        raise CannotListenError(host, port, error) from error


def _banner(server: Any, emulator: Any, args: argparse.Namespace) -> None:
    _say(f"Eddy is serving DynamoDB, DynamoDB Streams, Lambda and moto's services on {server.url}")
    kept = "kept" if emulator.persistence.durable else "temporary, nothing kept"
    _say(f"  state directory: {emulator.state_dir} ({kept})")
    if args.stack:
        apply_stack(args.stack, server.loopback_url)
    _say(
        f"  boto3:             boto3.client('dynamodb', endpoint_url='{server.url}', region_name='us-east-1', "
        "aws_access_key_id='eddy', aws_secret_access_key='eddy')"
    )  # works where no AWS configuration is, as the AWS CLI line does
    _say(f"  localstack-client: localstack_client.session.Session(localstack_host='{server.host}:{server.port}')")
    _say(
        f"  AWS CLI:           AWS_ACCESS_KEY_ID=eddy AWS_SECRET_ACCESS_KEY=eddy aws --region us-east-1 "  # works
        f"--endpoint-url {server.url} dynamodbstreams list-streams"
    )  # where no AWS configuration is
    _say(f"  follow a stream:   eddy tail TABLE --endpoint-url {server.url}")
    _say(f"  dashboard:         {server.url}/_eddy/ui")


def _say(line: str) -> None:
    """A line on stdout; none when no one reads it any more (the process that started the server is gone)."""
    try:
        print(line, flush=True)
    except OSError:
        pass


def apply_stack(path: str, endpoint_url: str) -> None:
    from eddy.infra.apply import Clients, summary, up
    from eddy.infra.load import load_stack

    source = load_stack(path)
    print(f"Deploying {path} as stack {source.stack_name}:", flush=True)
    actions = up(source, Clients(endpoint_url, source.region or "us-east-1"), echo=lambda line: print(line, flush=True))
    print(f"  {summary(actions)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
