"""moto's CloudWatch Logs, written to as Lambda writes a function's logs (functions/logs/log_groups.py).

The log group and the log stream are created when missing, as Lambda creates them. Events go straight to the
group (`LogGroup.put_log_events`): moto's PutLogEvents refuses events more than 14 days old or 2 hours ahead of
the computer's clock, and Eddy's events carry the emulator's clock, which a test may have advanced. Readers
(GetLogEvents, FilterLogEvents, DescribeLogStreams, `aws logs tail`) are moto's own, in both doors.
"""

from __future__ import annotations

from typing import Any

from eddy.emulator.moto_seam.services.state import direct_writes

#: invocations finish on many threads and moto's log stream is not thread-safe; a snapshot holds it too
_lock = direct_writes


def load_backend() -> Any:
    """moto's CloudWatch Logs backends, loaded by the first function's logs (or a mapping's runner before it)."""
    from moto.logs.models import logs_backends

    return logs_backends


def put_events(account_id: str, region: str, group: str, stream: str, events: list[tuple[int, str]]) -> None:
    """Append (timestamp in epoch milliseconds, message) events, in order, to `stream` of `group`."""
    if not events:
        return
    backend = load_backend()[account_id][region]
    with _lock:
        if group not in backend.groups:
            backend.create_log_group(group, {})
        log_group = backend.groups[group]
        if stream not in log_group.streams:
            log_group.create_log_stream(stream)
        log_group.put_log_events(
            stream, [{"timestamp": timestamp, "message": message} for timestamp, message in events]
        )
