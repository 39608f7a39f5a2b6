"""clock.json: the emulator's time for readers in other processes, whatever the clock's source (issue 26)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import boto3
import pytest

from eddy import Clock, emulate
from tests.emulator.helpers import create_table

JUNE = datetime(2025, 6, 1, 12, tzinfo=timezone.utc).timestamp()


def emulator_time_read_by_another_process(state_dir: Path) -> float:
    """What a reader in another process (a Spark job, a table stream without clock=) takes for the emulator's time."""
    code = "import sys; from eddy.spark_batch.io import read_emulator_time; print(read_emulator_time(None, sys.argv[1]))"
    return float(subprocess.run([sys.executable, "-c", code, str(state_dir)], capture_output=True, text=True,
                                check=True).stdout)


def test_a_fixed_clock_source_is_what_readers_in_another_process_see(tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", clock=Clock(source=lambda: JUNE), housekeeping_interval=None) as emu:
        assert json.loads((tmp_path / "state" / "clock.json").read_text())["now"] == JUNE
        assert emulator_time_read_by_another_process(emu.state_dir) == pytest.approx(JUNE, abs=30)
        emu.clock.advance(3 * 86400)
        assert emulator_time_read_by_another_process(emu.state_dir) == pytest.approx(JUNE + 3 * 86400, abs=30)


def test_a_custom_source_that_jumps_reaches_the_file_at_the_next_commit(tmp_path: Path) -> None:
    moment = [JUNE]
    with emulate(state_dir=tmp_path / "state", clock=Clock(source=lambda: moment[0]), housekeeping_interval=None):
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "tab")
        moment[0] += 6 * 3600  # the test's own clock moves on, without advance()
        dynamodb.put_item(TableName="tab", Item={"pk": {"S": "a"}})
        clock = json.loads((tmp_path / "state" / "clock.json").read_text())
        assert clock["now"] == JUNE + 6 * 3600
        assert time.time() + clock["offset"] == pytest.approx(JUNE + 6 * 3600, abs=30)


def test_the_computer_s_clock_advanced_is_its_offset_exactly(tmp_path: Path) -> None:
    with emulate(state_dir=tmp_path / "state", housekeeping_interval=None) as emu:
        emu.clock.advance(7200)
        assert json.loads((tmp_path / "state" / "clock.json").read_text())["offset"] == 7200
        assert emu.clock.skew() == 7200
