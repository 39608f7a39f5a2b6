"""Where a call over HTTP spends the server's CPU: `eddy serve`'s request path under cProfile, stage by stage.

The server is made as `eddy serve` makes it (an Emulator on a temporary state directory, api/server.py's Server on a
free port) in this process; each connection's thread runs under a profiler of its own (merged at the end), and the
boto3 clients run in processes of their own (bench/peer_servers.py's workloads: the same tables and calls as
bench/peers.py). Printed: the stages' cumulative CPU per call (a stage's share includes the stages it calls, so the
shares do not add up), then the functions with the most time of their own. cProfile weighs many small calls more than
a plain run does: read the shares, and take the CPU per call of a plain run from bench/peers.py.

    .venv/bin/python bench/server_profile.py [--kind PutItem|GetItem|Query|BatchWriteItem] [--calls 1000] [--clients 1]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import tempfile
import threading
import time

import peer_servers as servers

os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

#: (stage, the functions whose cumulative time is that stage: file name's end, function name)
STAGES = [
    ("the connection's requests, all of it", "http_server.py", "_one_request"),
    ("... reading the request (line, headers, body)", "http_server.py", "_head"),
    ("... ... the body", "http_server.py", "_body"),
    ("... the WSGI environment", "http_server.py", "_environ"),
    ("... the application (EddyApp)", "api/server.py", "__call__"),
    ("... ... the Request read from the environment", "api/server.py", "request_of"),
    ("... ... the router", "api/router.py", "route"),
    ("... ... ... the caller (SigV4's access key -> account)", "moto_seam/bridge.py", "caller"),
    ("... ... ... the DynamoDB door", "api/dynamodb/door.py", "handle"),
    ("... ... ... ... JSON decode", "json/__init__.py", "loads"),
    ("... ... ... ... validation against botocore's model", "api/validation.py", "validate"),
    ("... ... ... ... the engine's execute", "dynamodb/operations.py", "execute"),
    ("... ... ... ... ... moto's action (seam)", "moto_seam/actions.py", "run"),
    ("... ... ... ... ... capture's end and commit", "streams/capture.py", "end"),
    ("... ... ... ... ... the commit", "streams/commits.py", "commit"),
    ("... ... ... ... JSON encode", "json/encoder.py", "encode"),
    ("... sending the answer", "http_server.py", "_send"),
]


def profiled_server(state_dir: str):
    from eddy.emulator.api.server import Server
    from eddy.emulator.engine import Emulator
    from eddy.emulator.http_server import ConnectionHandler

    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()
    original = ConnectionHandler.handle

    def handle(self) -> None:
        profile = cProfile.Profile(time.thread_time)  # CPU time: not the waits for the client or for a core
        with lock:
            profiles.append(profile)
        profile.enable()
        try:
            original(self)
        finally:
            profile.disable()

    ConnectionHandler.handle = handle
    emulator = Emulator(state_dir=state_dir)
    emulator.recover()
    server = Server(emulator, "127.0.0.1", servers.free_port()).start()
    return server, profiles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", default="PutItem", choices=("PutItem", "GetItem", "Query", "BatchWriteItem"))
    parser.add_argument("--calls", type=int, default=1000, help="calls each client makes")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--cumulative", action="store_true", help="also the functions by cumulative time")
    parser.add_argument("--callers", default="", help="also who calls the functions matching this name")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state_dir:
        server, profiles = profiled_server(state_dir)
        try:
            servers.create_tables(servers.client(server.url))
            servers.load(server.url, args.kind, args.clients, 50, "warm")
            profiles.clear()
            cpu = servers.tree_cpu_seconds(os.getpid())
            result = servers.load(server.url, args.kind, args.clients, args.calls, "profiled")
            cpu = servers.tree_cpu_seconds(os.getpid()) - cpu
        finally:
            server.stop()
    calls = args.clients * (args.calls + 1)
    stats = pstats.Stats(profiles[0])
    for profile in profiles[1:]:
        stats.add(profile)
    print(f"{args.kind}, {args.clients} client(s) x {args.calls} calls: {result['rate']:.0f}/s under the profiler, "
          f"errors {result['errors']}, the process's CPU {cpu / calls * 1e6:,.0f} us a call, load average "
          f"{os.getloadavg()[0]:.1f}")
    entries = stats.stats  # {(file, line, name): (calls, primitive calls, own time, cumulative time, callers)}
    total = max(cumulative for (file, _, name), (*_, cumulative, _) in entries.items()
                if file.endswith("http_server.py") and name == "_one_request")
    print("\n| stage | CPU us a call (cumulative, profiled) | share |\n|---|---|---|")
    for label, file_end, function in STAGES:
        spent = sum(cumulative for (file, _, name), (_, primitive, _, cumulative, _) in entries.items()
                    if file.endswith(file_end) and name == function and primitive)
        print(f"| {label} | {spent / calls * 1e6:,.0f} | {spent / total:.0%} |")
    print()
    stats.sort_stats("tottime").print_stats(args.top)
    if args.callers:
        stats.print_callers(args.callers)
    if args.cumulative:
        stats.sort_stats("cumulative").print_stats(args.top * 2)


if __name__ == "__main__":
    main()
