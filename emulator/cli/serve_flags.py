"""The flags of `eddy serve` that set the emulator's Settings (emulate() takes the same names):

    add_setting_flags(serve_parser, Settings())      # --iterator-ttl-seconds, --sns-retry-jitter, ...
    emulate(**serve_settings(args))                  # what the flags named, as Settings' fields

Every field of Settings has a flag (tests/emulator/cli/test_cli.py::test_every_setting_has_a_serve_flag): those in
SETTING_FLAGS as they are named, the others in hours or with 0 for None (serve.py).
"""

from __future__ import annotations

import argparse

from typing import Any, Callable

from eddy.emulator.settings import Settings


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


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free one); argparse says what is wrong with any other (before, 99999 reached
    the bind and ended in OverflowError's traceback)."""
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port: 0 to 65535")
    return port


port_number.__name__ = "int"  # argparse names the type in its message for what it cannot read


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
    "function_update_seconds": (
        "--function-update-seconds",
        _at_least_zero(float),
        "S",
        "a function's update is in progress this long unless its state is read sooner",
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


def add_setting_flags(serve: argparse.ArgumentParser, defaults: Settings) -> None:
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
