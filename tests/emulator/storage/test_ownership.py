"""A state directory has one owner: a second server or emulate() on it is refused before it touches anything,
and a lock dies with its process, however it ends (issue 25's repro, both doors' owners)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import boto3
import pytest

from eddy import Emulator, StateDirectoryInUseError, emulate
from eddy.emulator.storage.ownership import Ownership
from tests.conftest import QUIET, ServerDoor, eddy_server


def tree(directory: Path) -> dict[str, tuple[int, str]]:
    """Every file under `directory`: its modification time and a hash of its bytes."""
    return {str(path.relative_to(directory)): (path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
            for path in sorted(directory.rglob("*")) if path.is_file()}


def serve(state_dir: Path) -> subprocess.CompletedProcess:
    """`eddy serve` on `state_dir`, to its end (a refused one ends at once)."""
    return subprocess.run([sys.executable, "-m", "eddy", "serve", "--port", "0", "--housekeeping-interval", "0",
                           "--state-dir", str(state_dir)], capture_output=True, text=True, timeout=120)


def emulate_elsewhere(state_dir: Path) -> subprocess.CompletedProcess:
    """emulate(state_dir=...) in another Python process: what it raised, by type and message."""
    script = textwrap.dedent(f"""
        from eddy import Emulator, StateDirectoryInUseError, emulate
        try:
            with emulate(state_dir={str(state_dir)!r}):
                print("started")
        except StateDirectoryInUseError as error:
            print(type(error).__name__, error)
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


def create_and_put(dynamodb, key: str) -> None:
    if key == "before":
        dynamodb.create_table(TableName="books", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST",
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    dynamodb.put_item(TableName="books", Item={"pk": {"S": key}})


def keys(dynamodb) -> list[str]:
    return sorted(item["pk"]["S"] for item in dynamodb.scan(TableName="books")["Items"])


def test_a_second_server_is_refused_before_it_touches_anything_and_nothing_acknowledged_is_lost(tmp_path):
    state_dir = tmp_path / "S"
    with eddy_server("--housekeeping-interval", "0", "--state-dir", str(state_dir)) as (url, first):
        dynamodb = ServerDoor(url).client("dynamodb")
        create_and_put(dynamodb, "before")
        files = tree(state_dir)

        second = serve(state_dir)  # step 2 of the repro: refused, not started

        assert second.returncode == 2
        assert second.stdout == ""
        assert second.stderr.splitlines() == [
            f"eddy serve: state directory {state_dir} is in use by pid {first.pid} (eddy serve on {url}) since "
            + second.stderr.split(" since ", 1)[1].split(": stop", 1)[0]
            + ": stop that process, or give this one another state directory (or --in-memory)"]
        assert " UTC" in second.stderr.split(" since ", 1)[1]
        assert tree(state_dir) == files
        refused = emulate_elsewhere(state_dir)  # the same for emulate() in another process
        assert refused.stdout.startswith(f"StateDirectoryInUseError state directory {state_dir} is in use by pid "
                                         f"{first.pid} (eddy serve on {url})")
        assert tree(state_dir) == files

        create_and_put(dynamodb, "after")  # step 3: acknowledged by the owner
        first.kill()  # step 4: kill -9
        first.wait(timeout=30)
    with eddy_server("--housekeeping-interval", "0", "--state-dir", str(state_dir)) as (url, _):  # the lock died with it
        assert keys(ServerDoor(url).client("dynamodb")) == ["after", "before"]


def test_an_in_process_owner_refuses_a_server_and_another_process(tmp_path):
    state_dir = tmp_path / "S"
    with emulate(state_dir=state_dir, **QUIET):
        create_and_put(boto3.client("dynamodb", region_name="us-east-1"), "before")
        files = tree(state_dir)
        server = serve(state_dir)
        assert server.returncode == 2
        assert server.stderr.startswith(f"eddy serve: state directory {state_dir} is in use by pid {os.getpid()} "
                                        f"(in-process) since ")
        assert len(server.stderr.splitlines()) == 1
        assert emulate_elsewhere(state_dir).stdout.startswith(
            f"StateDirectoryInUseError state directory {state_dir} is in use by pid {os.getpid()} (in-process) since ")
        with pytest.raises(StateDirectoryInUseError, match=f"is in use by pid {os.getpid()} "):
            Emulator(state_dir=state_dir, **QUIET)  # in this process too: one owner, not one per process
        assert tree(state_dir) == files
    assert emulate_elsewhere(state_dir).stdout == "started\n"  # let go when the block ended
    with emulate(state_dir=state_dir, **QUIET):
        assert keys(boto3.client("dynamodb", region_name="us-east-1")) == ["before"]


def test_an_owner_killed_with_9_leaves_no_lock(tmp_path):
    state_dir = tmp_path / "S"
    script = textwrap.dedent(f"""
        from eddy import emulate
        with emulate(state_dir={str(state_dir)!r}, housekeeping_interval=None):
            print("owned", flush=True)
            input()
    """)
    owner = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout.readline() == "owned\n"
        assert "(in-process)" in emulate_elsewhere(state_dir).stdout
        owner.kill()
        owner.wait(timeout=30)
    finally:
        owner.kill()
    assert emulate_elsewhere(state_dir).stdout == "started\n"


def test_in_memory_and_temporary_directories_take_no_lock(tmp_path):
    state_dir = tmp_path / "S"
    with emulate(state_dir=state_dir, **QUIET) as owner:
        assert owner.ownership is not None and owner.ownership.held
        with eddy_server("--housekeeping-interval", "0", "--in-memory", "--state-dir", str(state_dir)) as (url, _):
            assert url.startswith("http://127.0.0.1:")
    with emulate(**QUIET) as temporary:
        assert temporary.ownership is None
        assert not (temporary.state_dir / "owner.lock").exists()


def test_the_lock_file_says_who_owns_it_and_a_release_lets_the_next_in(tmp_path):
    first = Ownership.take(tmp_path, "in-process")
    with pytest.raises(StateDirectoryInUseError) as refused:
        Ownership.take(tmp_path, "in-process")
    assert refused.value.owner["pid"] == os.getpid() and refused.value.owner["owner"] == "in-process"
    first.describe("eddy serve on http://127.0.0.1:4701")
    assert (tmp_path / "owner.lock").read_text().splitlines()[0].startswith(
        f'{{"pid": {os.getpid()}, "owner": "eddy serve on http://127.0.0.1:4701", "since": ')
    with pytest.raises(StateDirectoryInUseError, match=r"\(eddy serve on http://127.0.0.1:4701\)"):
        Ownership.take(tmp_path, "in-process")
    first.release()
    assert not first.held
    Ownership.take(tmp_path, "in-process").release()
