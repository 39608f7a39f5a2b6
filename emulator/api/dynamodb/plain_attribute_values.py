"""The shortcut of a write's request check: most of a PutItem's or a BatchWriteItem's request is its items, and most
items hold nothing botocore's model or DynamoDB's rules for an AttributeValue would refuse. `plain(value)` says so of
one value quickly; validation.py then skips its walk of it (a value not plain takes the whole walk and
attribute_values.check, which word the error: the outcome is the same either way, tests/emulator/api/test_validation.py).

    plain({"M": {"id": {"S": "o-1"}, "total": {"N": "42"}}})    # True
    plain({"N": "042"})                                          # False: read, and rewritten 42, by attribute_values
"""

from __future__ import annotations

import re
from typing import Any

#: the longest attribute name in a map (botocore's AttributeName: max 65535)
_ATTRIBUTE_NAME_MAX = 65535


#: a number the shortcut passes without reading it further: written as DynamoDB writes it (no exponent, no leading or
#: trailing zeros, no -0), at most 38 characters; anything else is read, and rewritten so, by attribute_values
_PLAIN_NUMBER = re.compile(r"-?(?:[1-9][0-9]*(?:\.[0-9]*[1-9])?|0\.[0-9]*[1-9])|0")  # as DynamoDB writes it
#: a number set's member the shortcut passes: an integer written as DynamoDB writes it, so that two members are
#: one value only if they are one string
_PLAIN_SET_NUMBER = re.compile(r"0|-?[1-9][0-9]{0,36}")


def plain(value: Any) -> bool:
    """True if `value` is an AttributeValue that neither the generic walk nor DynamoDB's rules for its content
    would refuse: exactly one of S, N (plain numbers), SS and NS (not empty, no duplicates), BOOL, NULL (true),
    and L and M of such values. Anything else (B and BS, which need decoding; a wrong type; an unknown member;
    an exponent) takes the generic walk and attribute_values.check, which word the error. (Text is checked for
    UTF-8 only when it is not ASCII.)"""
    if type(value) is not dict:
        return False
    if len(value) == 1:
        [(kind, member)] = value.items()
    else:  # members that are None are not there, as for AWS; exactly one must be
        present = [(kind, member) for kind, member in value.items() if member is not None]
        if len(present) != 1:
            return False
        [(kind, member)] = present
    if kind == "S":
        if type(member) is not str or not (member.isascii() or _utf8(member)):
            return False
    elif kind == "N":
        if (
            type(member) is not str
            or len(member) > 38
            or not (member.isascii() and member.isdigit() and member[0] != "0" or _PLAIN_NUMBER.fullmatch(member))
        ):
            return False
    elif kind == "BOOL":
        if type(member) is not bool:
            return False
    elif kind == "NULL":
        if member is not True:
            return False
    elif kind == "M":
        if type(member) is not dict:
            return False
        for name, element in member.items():
            if type(name) is not str or len(name) > _ATTRIBUTE_NAME_MAX or not (name.isascii() or _utf8(name)):
                return False
            if type(element) is dict and len(element) == 1:  # the common case, a lone S or N, written out
                [(inner_kind, inner)] = element.items()
                if (
                    type(inner) is str
                    and inner.isascii()
                    and (
                        inner_kind == "S"
                        or inner_kind == "N"
                        and len(inner) <= 38
                        and (inner.isdigit() and inner[0] != "0" or _PLAIN_NUMBER.fullmatch(inner))
                    )
                ):
                    continue
            if not plain(element):
                return False
    elif kind == "L":
        if type(member) is not list:
            return False
        for element in member:
            if not plain(element):
                return False
    elif kind == "SS":
        if type(member) is not list or not member:
            return False
        for element in member:
            if type(element) is not str or not (element.isascii() or _utf8(element)):
                return False
        if len(set(member)) < len(member):
            return False
    elif kind == "NS":
        if type(member) is not list or not member:
            return False
        for element in member:
            if type(element) is not str or not _PLAIN_SET_NUMBER.fullmatch(element):
                return False
        if len(set(member)) < len(member):
            return False
    else:
        return False
    return True


def _utf8(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
