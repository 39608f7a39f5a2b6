"""`eddy serve`: its command line, and serving until a signal.

    eddy serve [--host 127.0.0.1] [--port 4566] [--state-dir DIR | --in-memory] [--stack FILE] [--fsync] ...

On an empty state the port opens before the engine and moto are loaded (most of a start's time): ListTables is
answered at once and every other request waits for the engine (http_server.StartingApp). A state to recover opens
the port once it is recovered. The flags that set the emulator's Settings are in serve_flags.py.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import socket

from typing import Any

from eddy import interrupts
from eddy.emulator.cli.failures import INTERRUPTED, CannotListenError
from eddy.emulator.cli.serve_flags import add_setting_flags, port_number, serve_settings
from eddy.emulator.settings import Settings


def register(commands: Any) -> None:
    """The `serve` subcommand, with every flag it takes."""
    serve = commands.add_parser("serve", help="serve DynamoDB, DynamoDB Streams and moto's services on one port")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--port", type=port_number, default=4566, help="port to listen on (0: any free one)")
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
    add_setting_flags(serve, defaults)
    serve.add_argument(
        "--stack",
        default=None,
        help="a stack file (or SAM / CloudFormation template) to deploy as a stack once serving",
    )
    serve.set_defaults(handler=serve_command)


def serve_command(args: argparse.Namespace) -> int:
    """Serve until SIGTERM (status 0) or Ctrl-C (status 130). Ctrl-C while starting is KeyboardInterrupt, which
    answer_failures says in one line (status 130) once what was started is stopped."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("eddy.server").setLevel(logging.DEBUG if args.verbose else logging.INFO)  # each request
    # Ctrl-C while starting is KeyboardInterrupt, and is kept in interrupts.received as well, from the `eddy` command's
    # first line (eddy/__main__.py) or, for a caller of main(), from here: a KeyboardInterrupt Python dropped (raised
    # in importlib's module-lock callback during an import) is then waited for below, not lost
    interrupts.keep()
    signals = interrupts.received
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
    for signum in (signal.SIGINT, signal.SIGTERM):  # from here on a signal stops the server in order, once started
        signal.signal(signum, lambda received, _: signals.put(received))
    if emulator.ownership is not None:
        emulator.ownership.describe(f"eddy serve on {server.url}")
    server.start()
    try:
        _banner(server, emulator, args)
    except BaseException:  # a stack that fails to apply: answered by the command's failure handling (status 2)
        server.stop()
        raise
    first = signals.get()  # the first signal, or one that came while starting (the wait lets the handler run)
    _say("Eddy is stopping")
    server.stop()
    return INTERRUPTED if first == signal.SIGINT else 0


def _server_modules() -> tuple[Any, Any]:
    """Emulator and Server, their modules imported without the garbage collector, whose collections would only
    walk what the imports make (every object of which lives as long as the process: 7% of the imports' CPU time);
    those objects are then set apart (gc.freeze), so that no full collection of the serving process walks them
    again. The regular expressions the imports compile (about 400, moto's backend index 183 of them) are read from
    the per-user cache of compiled patterns, made by the first start (compiled_patterns.py)."""
    from eddy import compiled_patterns

    collecting = gc.isenabled()
    gc.disable()
    try:
        with compiled_patterns.kept_per_user():
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
        _deploy_stack(args.stack, server.loopback_url)
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


def _deploy_stack(path: str, endpoint_url: str) -> None:
    from eddy.infra.apply import Clients, summary, up
    from eddy.infra.load import load_stack

    source = load_stack(path)
    print(f"Deploying {path} as stack {source.stack_name}:", flush=True)
    actions = up(source, Clients(endpoint_url, source.region or "us-east-1"), echo=lambda line: print(line, flush=True))
    print(f"  {summary(actions)}", flush=True)
