"""moto's look for a request's action among its response class's methods, without listing the class at every request.

BaseResponse.call_action asks `action in method_names_from_class(self.__class__)`, and moto's method_names_from_class
lists every member of the class with inspect.getmembers (each one read with getattr, then sorted): some 75 us of CPU
for SQS's or Kinesis's class and 130 us for DynamoDB's, at every request that takes moto's full path (every service's
but DynamoDB's common operations, which moto_seam/actions.py answers). Here the same question is answered for the one
name asked: a name is among them when reading it from the class gives a Python function (what getmembers keeps with
its isfunction predicate; an attribute of the metaclass, which dir() does not list, reads as a bound method, never a
function). The answer follows the class as it is when the request comes, Eddy's own patches of it included; iterated,
it gives moto's list.

    install()    # while an emulator is open (moto_seam/__init__.py)
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from moto.core import responses as moto_responses
from moto.core.utils import method_names_from_class as original_method_names_from_class

from eddy.emulator.moto_seam import Patches


class MethodNames:
    """The names of a class's methods, as moto's method_names_from_class lists them, asked one at a time."""

    __slots__ = ("owner",)

    def __init__(self, owner: Any) -> None:
        self.owner = owner

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and inspect.isfunction(getattr(self.owner, name, None))

    def __iter__(self) -> Iterator[str]:
        return iter(original_method_names_from_class(self.owner))


def method_names_from_class(clazz: Any) -> MethodNames:
    return MethodNames(clazz)


_patches = Patches()


def install() -> None:
    _patches.set(moto_responses, "method_names_from_class", method_names_from_class)


def uninstall() -> None:
    _patches.restore()
