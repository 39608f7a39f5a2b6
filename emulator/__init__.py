"""Eddy's emulator: DynamoDB Streams with shards, lineage, iterators and retention, in-process or on a port."""

from eddy.emulator.clock import Clock
from eddy.emulator.engine import Emulator
from eddy.emulator.api.inprocess import emulate
from eddy.emulator.settings import Settings
from eddy.emulator.storage.ownership import StateDirectoryInUseError
from eddy.emulator.triggers.failures import NotDeliveredError

__all__ = ["Clock", "Emulator", "NotDeliveredError", "Settings", "StateDirectoryInUseError", "emulate"]
