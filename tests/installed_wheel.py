"""The wheel built from this tree and installed in a fresh virtualenv outside the repository: the `installed` fixture
of tests/test_package.py and tests/test_guest_project.py (tests/conftest.py offers it).

One per session: building the wheel, making the virtualenv and installing the wheel with its dependencies cost about
20 s of CPU, paid once for both modules (both in the xdist group "package", so on one worker). The plain install's
size is taken right after the wheel is installed, before either module installs anything more (an extra, pytest,
moto's `events` extra).

The virtualenv is made without pip: this interpreter's pip installs into it (`pip --python`), as it would with its
own. ensurepip's install of pip into a new virtualenv was 9 to 10 s of CPU (`python -m venv`, 2026-11-29, with and
without PYTHONDONTWRITEBYTECODE; 0.1 s with --without-pip), and nothing the tests run needs pip inside it.

Installing from the package index takes minutes (an index look-up per dependency; pyspark is a source archive
to build), so the dependencies' wheels are made once into a wheelhouse (~/.cache/eddy-tests/wheelhouse, or
$EDDY_TEST_WHEELHOUSE) and installed from there with --no-index afterwards; the wheelhouse is filled again when
the dependencies change.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WHEELHOUSE = Path(os.environ.get("EDDY_TEST_WHEELHOUSE") or Path.home() / ".cache" / "eddy-tests" / "wheelhouse")


@dataclass
class PlainInstall:
    """What installing the wheel alone put into the virtualenv's site-packages."""

    kib: int  # `du -sk` of it, the bytecode pip compiles included
    top: list[str]  # its top-level names, without the .dist-info folders and compiled extensions


@dataclass
class Installed:
    wheel: Path
    python: Path
    eddy: Path
    outside: Path  # the working directory: no repository anywhere above it
    env: dict[str, str]
    plain: PlainInstall = field(default_factory=lambda: PlainInstall(0, []))

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.eddy), *args], cwd=self.outside, env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def pip_install(self, *requirements: str, compile_bytecode: bool = False) -> None:
        offline = [sys.executable, "-m", "pip", "--python", str(self.python), "install", "--quiet", "--no-index",
                   "--find-links", str(WHEELHOUSE), *([] if compile_bytecode else ["--no-compile"]), *requirements]
        if subprocess.run(offline, capture_output=True, text=True).returncode != 0:  # a dependency not there yet
            # wheels of every dependency (pyspark comes as a source archive: built once, here)
            build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(WHEELHOUSE), *requirements]
            subprocess.run(build, check=True, capture_output=True, text=True)
            for own in WHEELHOUSE.glob("eddy-*.whl"):  # this tree's wheel is installed from where it was built
                own.unlink()
            subprocess.run(offline, check=True, capture_output=True, text=True)


def _sources(target: Path) -> None:
    """This tree's files as git sees them (tracked and new, not ignored): what a clone would hold."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / name.decode()
        if source.is_file():
            (target / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            (target / name.decode()).write_bytes(source.read_bytes())


def _kib(paths: list[Path]) -> int:
    if not paths:
        return 0
    du = subprocess.run(["du", "-sk", "--total", *map(str, paths)], check=True, capture_output=True, text=True)
    return int(du.stdout.splitlines()[-1].split()[0])


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("package")
    _sources(base / "source")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(base / "dist"),
                    str(base / "source")], check=True, capture_output=True, text=True)
    wheel = next((base / "dist").glob("eddy-*.whl"))
    venv.create(base / "venv", with_pip=False)  # pip comes from this interpreter (the module says why)
    site = next((base / "venv" / "lib").glob("python*/site-packages"))
    before = set(site.iterdir())
    outside = base / "work"
    outside.mkdir()
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONPATH", "VIRTUAL_ENV", "EDDY_NODE_MODULES", "PYTHONHOME")}
    env.update(PATH=f"{base / 'venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}", XDG_CACHE_HOME=str(base / "cache"),
               PYTHONUNBUFFERED="1")
    found = Installed(wheel, base / "venv" / "bin" / "python", base / "venv" / "bin" / "eddy", outside, env)
    found.pip_install(str(wheel), compile_bytecode=True)  # as `pip install` does by default: the size counts it
    added = sorted(set(site.iterdir()) - before)
    found.plain = PlainInstall(_kib(added), sorted(path.name for path in added
                                                   if not path.name.endswith((".dist-info", ".so", ".pth"))))
    return found
