"""Deployment packages and layers: a zip unpacked safely, as Lambda unpacks one into /var/task or /opt."""

from __future__ import annotations

import io
import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from eddy.emulator.errors import InvalidParameterValueException

MAX_UNZIPPED_BYTES = 250 * 1024 * 1024


def unpack_zip(data: bytes, destination: Path, *, replace: bool = True) -> int:
    """Unpack a deployment package or a layer safely (no absolute paths, no '..', no links); returns the unpacked size.

    `replace` empties the destination first; without it the files are laid over what is there, as Lambda lays a
    function's layers one over another into /opt.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InvalidParameterValueException(
            "Could not unzip uploaded file. Please check your file, then try to upload again."
        ) from None
    total = 0
    members = archive.infolist()
    for member in members:
        path = PurePosixPath(member.filename)
        if path.is_absolute() or ".." in path.parts or "\\" in member.filename:
            raise InvalidParameterValueException(f"Unsafe path in deployment package: {member.filename}")
        if stat.S_ISLNK(member.external_attr >> 16):
            raise InvalidParameterValueException(f"Links are not allowed in a deployment package: {member.filename}")
        total += member.file_size
    if total >= MAX_UNZIPPED_BYTES:  # "must be smaller": AWS refused exactly 262144000 bytes (test_oversized_unzipped_lambda)
        raise InvalidParameterValueException("Unzipped size must be smaller than 262144000 bytes")
    if replace:
        shutil.rmtree(destination, ignore_errors=True)
    destination.mkdir(parents=True, exist_ok=not replace)
    for member in members:
        target = destination.joinpath(*PurePosixPath(member.filename).parts)
        _make_room(destination, target, member.is_dir())
        if member.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(member) as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out)
        if (member.external_attr >> 16) & 0o111:  # executable in the zip (a custom runtime's bootstrap): so here
            target.chmod(target.stat().st_mode | 0o755)
    return total


def _make_room(destination: Path, target: Path, is_dir: bool) -> None:
    """A later layer's file replaces an earlier layer's folder of the same path, and the other way round."""
    for ancestor in reversed(target.relative_to(destination).parents[:-1]):
        if (destination / ancestor).is_file():
            (destination / ancestor).unlink()
    if target.is_dir() and not is_dir:
        shutil.rmtree(target)
    elif target.is_file() and is_dir:
        target.unlink()

def package_of(code_dir: Path) -> Path:
    """The zip a function's code directory was unpacked from, kept beside it (not in it: the function sees its code
    directory only, as Lambda's /var/task holds the package's files, not the package)."""
    return code_dir.with_name(f"{code_dir.name}.zip")


def remove_code(code_dir: Path) -> None:
    shutil.rmtree(code_dir, ignore_errors=True)
    package_of(code_dir).unlink(missing_ok=True)
