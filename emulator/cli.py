"""The `eddy` command.

    eddy serve [--host 127.0.0.1] [--port 4566] [--state-dir DIR]
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from .settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="eddy", description="A local emulator of DynamoDB Streams and triggers.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve DynamoDB, DynamoDB Streams and moto's services on one port")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--port", type=int, default=4566)
    serve.add_argument("--state-dir", default=".eddy",
                       help="where Eddy keeps its state: tables, streams, functions, mappings (default: .eddy)")
    serve.add_argument("--in-memory", action="store_true",
                       help="keep nothing: a temporary directory that goes when Eddy stops")
    serve.add_argument("--fsync", action="store_true",
                       help="fsync every write-ahead log entry (survives a machine crash, not only a kill)")
    defaults = Settings()
    serve.add_argument("--retention-hours", type=float, default=defaults.retention_seconds / 3600)
    serve.add_argument("--rollover-hours", type=float, default=defaults.shard_rollover_seconds / 3600,
                       help="an open shard closes and a child takes over after this long on the emulator's clock")
    serve.add_argument("--split-records-per-second", type=int, default=defaults.split_records_per_second,
                       help="a shard receiving more records than this in one second splits in two (0: never)")
    serve.add_argument("--housekeeping-interval", type=float, default=defaults.housekeeping_interval,
                       help="seconds between TTL sweeps and shard maintenance (0: only on demand)")
    serve.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    return serve_command(args)


def serve_command(args: argparse.Namespace) -> int:
    from .engine import Emulator
    from .server import Server
    from .wal import CorruptStateError

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.INFO if args.verbose else logging.WARNING)
    emulator = Emulator(
        state_dir=args.state_dir,
        in_memory=args.in_memory,
        fsync=args.fsync,
        retention_seconds=args.retention_hours * 3600,
        shard_rollover_seconds=args.rollover_hours * 3600,
        split_records_per_second=args.split_records_per_second or None,
        housekeeping_interval=args.housekeeping_interval or None,
    )
    try:
        emulator.recover()
    except CorruptStateError as error:
        print(f"eddy: cannot start on this state directory: {error}", file=sys.stderr)
        return 1
    try:
        server = Server(emulator, args.host, args.port)
    except (OSError, SystemExit) as error:  # werkzeug exits when the port is taken
        emulator.close()
        reason = getattr(error, "strerror", None) or "the address is in use or not available"
        print(f"eddy: cannot listen on {args.host}:{args.port}: {reason}", file=sys.stderr)
        return 1
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    server.start()
    print(f"Eddy is serving DynamoDB, DynamoDB Streams and moto's services on {server.url}", flush=True)
    kept = "kept" if emulator.persistence.durable else "temporary, nothing kept"
    print(f"  state directory: {emulator.state_dir} ({kept})", flush=True)
    print(f"  boto3: boto3.client('dynamodbstreams', endpoint_url='{server.url}', region_name='us-east-1')", flush=True)
    while not stopping.wait(0.5):
        pass
    print("Eddy is stopping", flush=True)
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
