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
    handler = function.handler
    if function.code:
        folder, prefix = (base_dir / function.code).resolve(), ""
    else:
        # the handler's package is zipped as a top-level package of the zip, as Lambda would import it:
        # eddy.handlers.replicate.handler -> handlers/ in the zip, handler handlers.replicate.handler
        parts = handler.split(".")
        package_name = ".".join(parts[:-2]) or parts[0]
        try:
            spec = importlib.util.find_spec(package_name)
        except ModuleNotFoundError:
            spec = None
        if spec is None or not spec.submodule_search_locations:
            raise StackError(f"handler {handler}: package {package_name!r} cannot be found to zip (give code: a folder)")
        top = package_name.rpartition(".")[2]
        folder, prefix = Path(list(spec.submodule_search_locations)[0]).resolve(), top + "/"
        handler = ".".join([top, *parts[len(package_name.split(".")):]])
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
    return buffer.getvalue(), handler


def sha256(data: bytes) -> str:
    """CodeSha256 as Lambda reports it: the base64 of the zip's SHA-256."""
    return base64.b64encode(hashlib.sha256(data).digest()).decode()
