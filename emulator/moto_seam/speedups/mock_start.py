"""moto's start (MockAWS._enable_patching) without building its `requests` mock's responses again at every start.

Each time mock_aws starts (every emulate() block), moto registers with `responses` (the mock of the `requests`
library) one CallbackResponse per HTTP method and backend URL pattern: 7 x 184, each built anew, about two thirds of
the CPU of an emulate() block's start. This start registers the same responses, in the same order, built once per
process and kept while moto's patterns and the stubber's callback stay what they were: each one's record of the calls
it answered (responses' `calls`, `call_count`) is emptied as it is registered again, as a new one's is.

    install()    # while an emulator is open (moto_seam/__init__.py); a MockAWS started then registers the kept ones
"""

from __future__ import annotations

import re
from typing import Any

from moto.core import models as moto_models
from moto.core.custom_responses_mock import CallbackResponse, not_implemented_callback
from moto.core.models import MockAWS

from eddy.emulator.moto_seam import Patches

original_enable_patching = MockAWS._enable_patching
_patches = Patches()
#: what the kept responses were built for (moto's URL patterns, the stubber's callback) and the responses
_kept: list[Any] = [None, []]


def _responses() -> list[CallbackResponse]:
    """The responses moto's _enable_patching registers, in its order: for each method, one per backend URL pattern
    answered by the botocore stubber, then one for any other amazonaws.com URL answered NotImplemented."""
    callback = moto_models.botocore_stubber.process_prepared_request
    made_for = (callback, tuple(pattern for _, pattern in moto_models.backend_index.backend_url_patterns))
    if _kept[0] != made_for:
        _kept[:] = made_for, [
            response
            for method in moto_models.RESPONSES_METHODS
            for response in (
                *(CallbackResponse(method=method, url=pattern, callback=callback) for pattern in made_for[1]),
                CallbackResponse(
                    method=method, url=re.compile(r"https?://.+\.amazonaws.com/.*"), callback=not_implemented_callback
                ),
            )
        ]
    return _kept[1]


def _enable_patching(self: MockAWS, reset: bool = True) -> None:
    moto_models.botocore_stubber.enabled = True
    if reset:
        self.reset()
    moto_models.responses_mock.start()
    for response in _responses():
        response.calls.reset()
        moto_models.responses_mock.add(response)


def install() -> None:
    _patches.set(MockAWS, "_enable_patching", _enable_patching)


def uninstall() -> None:
    _patches.restore()
