"""Query-protocol errors as AWS writes them: Type, Code and Message, without moto's second, lowercase `message`.

moto's QuerySerializer writes an error's modeled members after its metadata, and botocore's models give SNS's errors
(NotFoundException, InvalidParameterException, ...) a member `message`: so moto's XML carried
`<Message>...</Message><message>...</message>`, which botocore reads as `Error.message` and a top-level `message`
no AWS answer has (LocalStack's AWS-validated test_sns.snapshot.json: every recorded SNS error is
`{"Error": {"Code", "Message", "Type"}}`, e.g. test_create_topic_with_attributes' "get-attrs-nonexistent-topic").
Here the lowercase member is left out where it repeats Message; any other modeled member stays.
"""

from __future__ import annotations

import functools
from typing import Any

from moto.core.serialize import QuerySerializer

from eddy.emulator.moto_seam import Patches

_patches = Patches()


def install() -> None:
    _patches.set(QuerySerializer, "_serialize_error_metadata", _without_repeat(QuerySerializer._serialize_error_metadata))


def uninstall() -> None:
    _patches.restore()


def _without_repeat(serialize: Any) -> Any:
    @functools.wraps(serialize)
    def serialized(self: QuerySerializer, out: Any, error: Exception, shape: Any) -> None:
        serialize(self, out, error, shape)
        if "message" in out and out.get("message") == out.get("Message"):
            del out["message"]

    return serialized
