"""Eddy's emulator: DynamoDB Streams with shards, lineage, iterators and retention, in-process or on a port."""

from .clock import Clock
from .engine import Emulator
from .inprocess import emulate
from .settings import Settings

__all__ = ["Clock", "Emulator", "Settings", "emulate"]
