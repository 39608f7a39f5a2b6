"""A code folder's zip holds the code and nothing a checkout keeps beside it: no caches, tests, node_modules or
virtualenvs, whatever a virtualenv is called (a fresh clone after `make test` has .tools/deploy, a virtualenv of
hundreds of megabytes, beside handlers/: the example template's CodeUri, the repository root, zipped it whole)."""

from __future__ import annotations

import io
import venv
import zipfile
from pathlib import Path

from eddy.infra.packages import zipped


def test_a_folders_zip_leaves_out_caches_tests_and_every_virtualenv(tmp_path: Path) -> None:
    for name in ("handlers/__init__.py", "handlers/replicate.py", "handlers/nodejs/audit/index.mjs",
                 "handlers/__pycache__/replicate.cpython-311.pyc", "tests/test_x.py", ".node/package.json",
                 ".tools/cdk/package.json", "node_modules/x/index.js", "README.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    venv.create(tmp_path / "tools-env")  # a virtualenv under any name
    archive = zipfile.ZipFile(io.BytesIO(zipped(tmp_path)))
    assert sorted(archive.namelist()) == ["README.md", "handlers/__init__.py", "handlers/nodejs/audit/index.mjs",
                                          "handlers/replicate.py"]
    assert archive.read("handlers/replicate.py") == b"handlers/replicate.py"


def test_a_program_in_the_folder_stays_executable_in_its_zip(tmp_path: Path) -> None:
    """A custom runtime's bootstrap keeps its executable bit (Lambda runs /var/task/bootstrap; without the bit it
    answers Runtime.InvalidEntrypoint "fork/exec /var/task/bootstrap: permission denied"); other files are 0644."""
    (tmp_path / "bootstrap").write_text("#!/bin/sh\n")
    (tmp_path / "bootstrap").chmod(0o700)
    (tmp_path / "data.json").write_text("{}")
    archive = zipfile.ZipFile(io.BytesIO(zipped(tmp_path)))
    modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
    assert modes == {"bootstrap": 0o755, "data.json": 0o644}
