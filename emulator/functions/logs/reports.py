"""What an invocation's REPORT says of it: its Duration, Billed Duration and Max Memory Used (log_groups.py writes the
line, or JSON's platform.report record).

    duration_ms, billed_ms, used_mb = report(result)
"""

from __future__ import annotations

import math
import resource
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eddy.emulator.functions.invocation_results import InvocationResult


def max_memory_used_mb(pid: int | None) -> int:
    """Peak resident memory in MB: the worker subprocess's (VmHWM), or this process's."""
    if pid is not None:
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return math.ceil(int(line.split()[1]) / 1024)
        except OSError:
            pass
    return math.ceil(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def report(result: InvocationResult) -> tuple[float, int, int]:
    """Duration, Billed Duration and Max Memory Used. A cold start's Init is billed with its first invocation, as
    Lambda bills it since 1 August 2025 ("Duration: 600000.00 ms\tBilled Duration: 600477 ms\t...\tInit Duration:
    476.75 ms" in users' logs of timed-out python3.12 functions; AWS Compute Blog, "AWS Lambda standardizes billing
    for INIT Phase")."""
    duration_ms = result.duration * 1000
    billed = duration_ms + (result.init_duration or 0.0) * 1000
    return round(duration_ms, 2), max(1, math.ceil(billed)), max_memory_used_mb(result.worker_pid)
