"""`bench/suite_cpu.py run --processes`: every Python process the suite starts writes a line when it starts (its
command line) and, if it exits normally, one when it ends (its own CPU time), to SUITE_PROCESSES_OUT. A process
killed (kill -9, a function's worker stopped) writes no end line: its start is counted, its CPU is not."""

import atexit
import contextlib
import json
import os
import sys


def _line(event: str) -> None:
    times = os.times()
    # not counted when SUITE_PROCESSES_OUT is not set (a test cleared the environment) or cannot be written
    with contextlib.suppress(KeyError, OSError), open(os.environ["SUITE_PROCESSES_OUT"], "a") as out:
        out.write(json.dumps({"event": event, "pid": os.getpid(), "argv": sys.orig_argv[:8],
                              "cpu": times.user + times.system}) + "\n")


_line("start")
atexit.register(_line, "end")
