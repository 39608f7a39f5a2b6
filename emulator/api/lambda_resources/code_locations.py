"""A layer version's zip, downloaded from the Content.Location Lambda's answers give (GetLayerVersion,
PublishLayerVersion, ListLayerVersions' LatestMatchingVersion), as a client downloads AWS's presigned S3 URL:

    GET /_eddy/code/layers/<account>/<region>/<layer name>/<version>   -> 200 application/zip, the zip as published

A version that is not there (or was deleted) is 404 NoSuchKey, as S3 answers a URL whose object is gone. No signature
is asked for: the URL is only ever handed to the caller that may read the version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eddy.emulator.aws_requests import Request, Response
from eddy.emulator.functions.layers import CONTENT_PATH
from eddy.emulator.moto_seam.layers import find_layer_version

if TYPE_CHECKING:
    from eddy.emulator.engine import Emulator

NOT_THERE = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code>'
    b"<Message>The specified key does not exist.</Message></Error>"
)


def claims(request: Request) -> bool:
    return request.path.startswith(CONTENT_PATH)


def handle(emulator: Emulator, request: Request) -> Response:
    parts = request.path[len(CONTENT_PATH) :].strip("/").split("/")
    found = None
    if request.method.upper() == "GET" and len(parts) == 4 and parts[3].isdigit():
        account_id, region, name, version = parts
        with emulator.lock:
            found = find_layer_version(account_id, region, name, int(version))
    if found is None:
        return Response(404, {"Content-Type": "application/xml"}, NOT_THERE)
    return Response(200, {"Content-Type": "application/zip"}, found.zip_file)
