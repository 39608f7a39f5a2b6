"""storage/user_cache.py: the per-user cache's folder ($XDG_CACHE_HOME/eddy, an absolute XDG_CACHE_HOME only, else
~/.cache/eddy; none where the user has no home directory, and then nothing is kept: the start's caches are skipped,
not failed), and its files written whole."""

from __future__ import annotations

import json
import pwd
import re

from eddy import compiled_patterns
from eddy.emulator.moto_seam import backend_regions
from eddy.emulator.moto_seam.services import botocore_data
from eddy.emulator.storage import user_cache


def test_the_folder_is_xdg_cache_home_s_or_the_home_directory_s(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache.cache_dir() == tmp_path / "xdg" / "eddy"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored (XDG base directory spec)
    assert user_cache.cache_dir() == tmp_path / "home" / ".cache" / "eddy"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert user_cache.cache_dir() == tmp_path / "home" / ".cache" / "eddy"


def test_without_a_home_directory_nothing_is_kept_and_the_start_s_work_is_done_as_before(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)

    def no_entry(uid: int):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    assert user_cache.cache_dir() is None
    assert user_cache.read(None) is None
    user_cache.write_whole(None, b"nothing")  # no folder: nothing written, no failure

    monkeypatch.chdir(tmp_path)
    original = re._compiler.compile
    with compiled_patterns.kept_per_user():
        assert re._compiler.compile is original  # nothing kept: the compiler as it is
    assert backend_regions.read() == json.loads(botocore_data._read_endpoint_regions())
    assert list(tmp_path.iterdir()) == []  # no "~" folder made in the working directory


def test_a_file_is_written_whole_and_read_back(tmp_path):
    path = tmp_path / "a" / "b" / "kept.bin"
    user_cache.write_whole(path, b"first")
    user_cache.write_whole(path, b"second, longer")
    assert user_cache.read(path) == b"second, longer"
    assert sorted(p.name for p in path.parent.iterdir()) == ["kept.bin"]  # no temporary file left
    assert user_cache.read(tmp_path / "missing") is None
