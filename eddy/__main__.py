"""`python -m eddy` and the `eddy` command (pyproject.toml's console script is `run`).

Ctrl-C at any moment is one line and status 130: while Eddy is being imported (here), while a command runs
(eddy.emulator.cli.failures.answer_failures; `eddy serve` stops in order), and after it returned, while the
interpreter ends (no KeyboardInterrupt traceback from its shutdown).
"""

import os
import signal
import sys

from eddy import interrupts

#: the status of a command ended by Ctrl-C (128 + SIGINT), as shells report it
INTERRUPTED = 130


def run() -> int:
    interrupts.keep()  # a Ctrl-C from here on is kept, even where Python drops its KeyboardInterrupt
    try:
        from eddy.emulator.cli import main
    except KeyboardInterrupt:
        print("eddy: interrupted", file=sys.stderr, flush=True)
        return INTERRUPTED
    status = main()
    signal.signal(signal.SIGINT, lambda *_: os._exit(INTERRUPTED))  # the interpreter's shutdown joins threads
    return status


if __name__ == "__main__":
    raise SystemExit(run())
