"""The `eddy` command, the shell above the emulator and infra/: commands.py (`main`: serve and the subcommands
infra/ and spark_batch/ register), serve.py (`eddy serve`) and serve_flags.py (its Settings flags), failures.py
(every command's expected failures as one line and an exit status), doctor.py (`eddy doctor`), tail.py
(`eddy tail`)."""

from eddy.emulator.cli.commands import main

__all__ = ["main"]
