"""Whether Spark's extra is installed: `pip install "eddy[spark]"` brings pyspark and pyarrow.

Eddy's emulator needs neither; the Spark batch path (`eddy export`, `eddy spark ...`, the demo's aggregation)
needs both, and Java 17 or later to run. Without the extra, those commands say what to install, in one line:

    missing_modules()        # ["pyspark", "pyarrow"] without the extra, [] with it
    register_missing(commands)   # `eddy export` / `eddy spark` answer MISSING_HINT and exit 1
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

MODULES = ("pyspark", "pyarrow")
INSTALL = 'pip install "eddy[spark]"'


def missing_modules() -> list[str]:
    return [name for name in MODULES if importlib.util.find_spec(name) is None]


def missing_hint(command: str) -> str:
    return (
        f"eddy {command}: the Spark batch path needs Spark's extra ({', '.join(missing_modules())} not "
        f"installed): run `{INSTALL}` (Spark also needs Java 17 or later: `eddy doctor` checks)"
    )


def register_missing(subparsers: Any) -> None:
    """`eddy export` and `eddy spark` for an install without the extra: any arguments, one line, exit 1."""
    for command in ("export", "spark"):
        # no option of its own ('+' is no argument's prefix): whatever follows is taken as it is, -h included
        parser = subparsers.add_parser(
            command, help=f"(needs {INSTALL}) the Spark batch path", add_help=False, prefix_chars="+"
        )
        parser.add_argument("arguments", nargs="*")
        parser.set_defaults(handler=lambda args, command=command: _refuse(command))


def _refuse(command: str) -> int:
    print(missing_hint(command), file=sys.stderr)
    return 1
