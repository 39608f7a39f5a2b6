"""Code packages: a stack function's folder (or its handler's package), or a template's local CodeUri / Code /
ContentUri, as a deterministic zip, uploaded to the deployment bucket as `sam deploy` and `aws cloudformation
package` upload theirs (an unchanged folder gives the same zip, the same key, and no change to the stack)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import os
import zipfile
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from .stack import Function, StackError

SKIPPED_IN_ZIP = {
    "__pycache__",
    ".git",
    ".venv",
    ".eddy",
    ".peer",
    ".node",
    ".tools",
    "node_modules",
    ".pytest_cache",
    "build",
    "bench",
    "tests",
    "spark-warehouse",
}


def package(function: Function, base_dir: Path) -> tuple[bytes, str]:
    """The function's zip (deterministic, so an unchanged folder gives the same CodeSha256) and its handler."""
    handler = function.handler
    if function.code:
        return zipped(base_dir / function.code), handler
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
    handler = ".".join([top, *parts[len(package_name.split(".")) :]])
    return zipped(Path(list(spec.submodule_search_locations)[0]), prefix=top + "/"), handler


def zipped(path: Path, prefix: str = "") -> bytes:
    """A folder's files as a zip (dates and modes fixed; caches, tests and virtualenvs left out); a .zip file as it
    is."""
    path = path.resolve()
    if path.is_file() and path.suffix in (".zip", ".jar"):
        return path.read_bytes()
    if not path.is_dir():
        raise StackError(f"function code folder {path} does not exist")
    files = []
    for folder, folders, names in os.walk(path):
        # never walked into: caches, tests, and any virtualenv whatever its name (a checkout's tool environments)
        folders[:] = [
            name for name in folders if name not in SKIPPED_IN_ZIP and not Path(folder, name, "pyvenv.cfg").is_file()
        ]
        files += [Path(folder, name) for name in names if not name.endswith(".pyc") and name not in SKIPPED_IN_ZIP]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(files):
            relative = file.relative_to(path)
            info = zipfile.ZipInfo(prefix + relative.as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
            # a program stays one (a custom runtime's bootstrap must be executable, as `zip` and SAM keep it)
            info.external_attr = (0o755 if os.access(file, os.X_OK) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, file.read_bytes())
    return buffer.getvalue()


def sha256(data: bytes) -> str:
    """CodeSha256 as Lambda reports it: the base64 of the zip's SHA-256."""
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


class DeploymentBucket:
    """Where a stack's code goes: s3://eddy-deployments-<account>-<region>/<stack>/<sha256>.zip, the bucket made
    when first needed. With `dry_run`, keys are named and nothing is uploaded (a change set reads no code)."""

    def __init__(self, s3: Any, account: str, region: str, stack_name: str, dry_run: bool = False) -> None:
        self.s3, self.region, self.stack_name, self.dry_run = s3, region, stack_name, dry_run
        self.name = f"eddy-deployments-{account}-{region}"
        self.ready = False

    def upload(self, data: bytes, always: bool = False) -> tuple[str, str]:
        """(bucket, key) of `data` (a zip; with `always`, a template, uploaded even in a dry run)."""
        key = f"{self.stack_name}/{hashlib.sha256(data).hexdigest()}.{'template' if always else 'zip'}"
        if always or not self.dry_run:
            self._made()
            self.s3.put_object(Bucket=self.name, Key=key, Body=data)
        return self.name, key

    def _made(self) -> None:
        if self.ready:
            return
        try:
            self.s3.head_bucket(Bucket=self.name)
        except ClientError as error:
            if error.response["Error"]["Code"] not in ("404", "NoSuchBucket", "NotFound"):
                raise
            request: dict[str, Any] = {"Bucket": self.name}
            if self.region != "us-east-1":
                request["CreateBucketConfiguration"] = {"LocationConstraint": self.region}
            self.s3.create_bucket(**request)
        self.ready = True
