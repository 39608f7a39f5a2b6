"""moto's own tests: their test-only dependencies, the sdist of the installed moto, the extracted tests/ tree."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

from peer.common import CACHE_DIR, REPO_ROOT, TEST_DEPENDENCIES, HarnessError, log


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed(dist: str) -> bool:
    try:
        importlib.metadata.distribution(dist)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def _moto_pin(dist: str) -> str:
    """The requirement moto's own metadata states for `dist` (e.g. 'py-partiql-parser==0.6.3'), else `dist`."""
    for req in importlib.metadata.requires("moto") or []:
        spec = req.split(";", 1)[0].strip()
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if m and _norm(m.group(1)) == _norm(dist):
            return re.sub(r"\[.*?\]", "", spec).replace(" ", "")
    return dist


def ensure_test_dependencies(allow_install: bool) -> None:
    missing = [_moto_pin(d) for d in TEST_DEPENDENCIES if not _installed(d)]
    if not missing:
        return
    if not allow_install:
        raise HarnessError(f"missing test dependencies (and --no-install given): {' '.join(missing)}")
    log(f"peer: installing missing test dependencies into {sys.prefix}: {' '.join(missing)}")
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *missing], capture_output=True, text=True)
    if proc.returncode != 0:
        raise HarnessError(f"pip install {' '.join(missing)} failed:\n{proc.stdout}{proc.stderr}")
    importlib.invalidate_caches()


def fetch_sdist(version: str, explicit: Path | None) -> Path:
    if explicit is not None:
        if not explicit.is_file():
            raise HarnessError(f"--sdist {explicit}: no such file")
        return explicit
    CACHE_DIR.mkdir(exist_ok=True)
    candidates = sorted(CACHE_DIR.glob(f"moto-{version}.tar.gz"))
    if candidates:
        return candidates[0]
    log(f"peer: downloading the moto {version} sdist into {CACHE_DIR.relative_to(REPO_ROOT)}/ ...")
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-binary",
        ":all:",
        "--no-deps",
        f"moto=={version}",
        "--dest",
        str(CACHE_DIR),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    candidates = sorted(CACHE_DIR.glob(f"moto-{version}.tar.gz"))
    if proc.returncode != 0 or not candidates:
        raise HarnessError(f"`{shlex.join(cmd)}` failed (rc={proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return candidates[0]


def _tests_imports(source: bytes, rel: str) -> set[str]:
    """Dotted names of `tests.*` modules (and possible submodules) imported by the file at `rel`."""
    try:
        tree = ast.parse(source, filename=rel)
    except SyntaxError:
        return set()
    path = PurePosixPath(rel)
    package = list(path.parent.parts)  # the package the module lives in (for relative imports)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name == "tests" or a.name.startswith("tests."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                base = ".".join(base_parts + (node.module.split(".") if node.module else []))
            else:
                base = node.module or ""
            if base == "tests" or base.startswith("tests."):
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    return found


def _module_files(dotted: str) -> list[str]:
    parts = dotted.split(".")
    files = ["/".join(parts[:i]) + "/__init__.py" for i in range(1, len(parts) + 1)]
    files.append("/".join(parts) + ".py")
    return files


def extract_tests(sdist: Path, dest: Path, suites: list[str]) -> int:
    """Extract pytest config, tests/*.py, the suites and the `tests.*` modules they import. Returns #files."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        members: dict[str, tarfile.TarInfo] = {}
        for m in tar.getmembers():
            top, _, rel = m.name.partition("/")
            if rel and m.isfile():
                members[rel] = m
        wanted = {rel for rel in members if rel in ("pyproject.toml", "setup.cfg")}
        wanted |= {rel for rel in members if rel.startswith("tests/") and rel.count("/") == 1}
        wanted |= {rel for rel in members if any(rel.startswith(s.rstrip("/") + "/") for s in suites)}
        missing_suites = [s for s in suites if not any(r.startswith(s.rstrip("/") + "/") for r in members)]
        if missing_suites:
            raise HarnessError(f"{sdist.name} has no {', '.join(missing_suites)}")
        queue = sorted(r for r in wanted if r.endswith(".py"))
        seen: set[str] = set()
        while queue:
            rel = queue.pop()
            if rel in seen:
                continue
            seen.add(rel)
            data = tar.extractfile(members[rel]).read()
            for dotted in _tests_imports(data, rel):
                for cand in _module_files(dotted):
                    if cand in members and cand not in wanted:
                        wanted.add(cand)
                        queue.append(cand)
        for rel in sorted(wanted):
            target = dest / rel
            if ".." in PurePosixPath(rel).parts or PurePosixPath(rel).is_absolute():
                raise HarnessError(f"refusing to extract suspicious path {rel!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(members[rel]).read())
    return len(wanted)
