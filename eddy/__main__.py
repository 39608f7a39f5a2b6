"""`python -m eddy`: the `eddy` command."""

from eddy.emulator.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
