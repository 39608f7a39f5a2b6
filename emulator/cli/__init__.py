"""The `eddy` command, the shell above the emulator and infra/: commands.py (serve and the subcommands infra/ and
spark_batch/ register; `main`), failures.py (every command's expected failures as one line and an exit status),
doctor.py (`eddy doctor`), tail.py (`eddy tail`)."""

from eddy.emulator.cli.commands import main

__all__ = ["main"]
