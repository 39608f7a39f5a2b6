"""A registered callable's invocation on a thread of this process, as a zip function's worker would run it:
environment.py (the function's environment variables, seen by its invoking thread only) and output.py (what that
thread writes, kept for the invocation's log)."""
