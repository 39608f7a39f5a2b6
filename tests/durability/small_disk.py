"""A real small filesystem for a test: a tmpfs of a few megabytes mounted under the test's directory.

Mounting needs root (CAP_SYS_ADMIN): the machines this project's tests and CI run on run them as root. Elsewhere
the tests that need one are skipped, saying so; tests/durability/test_disk_full.py's injected failures
(storage/disk.py's EDDY_TEST_DISK_FULL) still cover the same refusals there.

`fill()` takes every free byte with a filler file (the disk is then as full as a disk gets: a write that needs a new
page fails with ENOSPC, as it does on a full disk); `room()` deletes it.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest


class SmallDisk:
    def __init__(self, mount_point: Path) -> None:
        self.mount_point = mount_point
        self.filler = mount_point / "filler"

    @property
    def free(self) -> int:
        return shutil.disk_usage(self.mount_point).free

    def fill(self) -> None:
        """Every free byte taken (1 MB writes, then pages, then bytes, each until the disk refuses)."""
        descriptor = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for size in (1 << 20, 4096, 1):
                block = b"f" * size
                while True:
                    try:
                        if os.write(descriptor, block) < size:
                            break
                    except OSError as error:
                        if error.errno != errno.ENOSPC:
                            raise
                        break
        finally:
            os.close(descriptor)

    def room(self) -> None:
        self.filler.unlink(missing_ok=True)


@contextmanager
def small_disk(directory: Path, size: str = "8m") -> Iterator[SmallDisk]:
    """A tmpfs of `size` mounted at `directory` for the block (skips the test where it cannot be mounted)."""
    directory.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(directory)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"a small tmpfs cannot be mounted here (mount needs root): {mounted.stderr.strip()}")
    try:
        yield SmallDisk(directory)
    finally:
        subprocess.run(["umount", "--lazy", str(directory)], check=True)
