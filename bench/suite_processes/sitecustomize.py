"""`bench/suite_cpu.py run --processes`: every Python process the suite starts writes a line when it starts (its
command line) and, if it exits normally, one when it ends (its own CPU time), to SUITE_PROCESSES_OUT. A process
killed (kill -9, a function's worker stopped) writes no end line: its start is counted, its CPU is not."""

import atexit
import json
import os
import sys


def _line(event: str) -> None:
    times = os.times()
    try:
        with open(os.environ["SUITE_PROCESSES_OUT"], "a") as out:
            out.write(json.dumps({"event": event, "pid": os.getpid(), "argv": sys.orig_argv[:8],
                                  "cpu": times.user + times.system}) + "\n")
    except (KeyError, OSError):  # not set (a test cleared the environment) or not writable: not counted
        pass


_line("start")
atexit.register(_line, "end")
