"""The peer suite's parts (tools/peer_suite.py is the command)."""
