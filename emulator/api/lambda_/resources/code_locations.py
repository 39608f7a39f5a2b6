"""The zips Lambda's answers point to, downloaded as a client downloads AWS's presigned S3 URLs:

    GET /_eddy/code/layers/<account>/<region>/<layer name>/<version>   a layer version's (its Content.Location:
                                                                       GetLayerVersion, PublishLayerVersion, ...)
    GET /_eddy/code/functions/<account>/<region>/<name>/<code>.zip     a function version's package (GetFunction's
                                                                       Code.Location)

200 application/zip, the zip as it was given; a layer version or package that is not there (deleted, replaced) is
404 NoSuchKey, as S3 answers a URL whose object is gone. No signature is asked for: the URL is only ever handed to a
caller that may read the code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.functions.layers import CONTENT_PATH
from eddy.emulator.moto_seam.layers import find_layer_version

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator
    from eddy.emulator.functions.function import Function

#: where function packages are served (below it: the package's path under the functions' directory)
PACKAGE_PATH = "/_eddy/code/functions/"
NOT_THERE = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code>'
    b"<Message>The specified key does not exist.</Message></Error>"
)


def package_location(emulator: Emulator, function: Function) -> str | None:
    """The URL a function version's package is downloaded from (None: a registered callable, which has none)."""
    from eddy.emulator.functions.packages import package_of

    if function.code_dir is None:
        return None
    package = package_of(function.code_dir).relative_to(emulator.functions.directory)
    return f"{emulator.functions_endpoint().rstrip('/')}{PACKAGE_PATH}{package.as_posix()}"


def handle(emulator: Emulator, request: Request) -> Response:
    zipped = _package(emulator, request.path) if request.method.upper() == "GET" else None
    if zipped is None:
        return Response(404, {"Content-Type": "application/xml"}, NOT_THERE)
    return Response(200, {"Content-Type": "application/zip"}, zipped)


def _package(emulator: Emulator, path: str) -> bytes | None:
    if path.startswith(PACKAGE_PATH):
        directory = emulator.functions.directory.resolve()
        package = (directory / path[len(PACKAGE_PATH) :]).resolve()
        inside = package.suffix == ".zip" and directory in package.parents
        return package.read_bytes() if inside and package.is_file() else None
    parts = path[len(CONTENT_PATH) :].strip("/").split("/")
    if not path.startswith(CONTENT_PATH) or len(parts) != 4 or not parts[3].isdigit():
        return None
    account_id, region, name, version = parts
    with emulator.lock:
        found = find_layer_version(account_id, region, name, int(version))
    return None if found is None else found.zip_file
