"""Code packages: a stack function's folder (or its handler's package) as a deterministic zip, and its CodeSha256."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import zipfile
from pathlib import Path

from .stack import Function, StackError

SKIPPED_IN_ZIP = {"__pycache__", ".git", ".venv", ".eddy", ".peer", "node_modules", ".pytest_cache", "build", "bench", "tests"}


def package(function: Function, base_dir: Path) -> tuple[bytes, str]:
    """The function's zip (deterministic, so an unchanged folder gives the same CodeSha256) and its handler."""
    if function.code:
        folder, prefix = (base_dir / function.code).resolve(), ""
    else:
        top = function.handler.split(".")[0]
        spec = importlib.util.find_spec(top)
        if spec is None or not spec.submodule_search_locations:
            raise StackError(f"handler {function.handler}: package {top!r} cannot be found to zip (give code: a folder)")
        folder, prefix = Path(list(spec.submodule_search_locations)[0]).resolve(), top + "/"
    if not folder.is_dir():
        raise StackError(f"function code folder {folder} does not exist")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if path.is_dir() or SKIPPED_IN_ZIP & set(relative.parts) or path.suffix == ".pyc":
                continue
            info = zipfile.ZipInfo(prefix + relative.as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue(), function.handler


def sha256(data: bytes) -> str:
    """CodeSha256 as Lambda reports it: the base64 of the zip's SHA-256."""
    return base64.b64encode(hashlib.sha256(data).digest()).decode()
