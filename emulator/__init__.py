"""Eddy's emulator: DynamoDB Streams with shards, lineage, iterators and retention, in-process or on a port."""

from emulator.clock import Clock
from emulator.engine import Emulator
from emulator.api.inprocess import emulate
from emulator.settings import Settings
from emulator.storage.ownership import StateDirectoryInUseError
from emulator.triggers.failures import NotDeliveredError

__all__ = ["Clock", "Emulator", "NotDeliveredError", "Settings", "StateDirectoryInUseError", "emulate"]
