"""moto's SNS answers in the shapes SNS gives them: GetSMSAttributes' attributes, the listings' NextToken.

GetSMSAttributes: each attribute asked for, and the MonthlySpendLimit an account has before it sets one. moto reads
only the first name of the request's `attributes` list (`attributes.member.1`), so a request for two attributes was
answered one, and it answers only what was set. AWS's recorded answers (LocalStack's AWS-validated
tests/aws/services/sns/test_sns.snapshot.json, localstack/localstack at 8b9a79f05846, TestSNSSMS):
test_set_get_sms_attributes ("get-sms-all-attributes": the three attributes set and "MonthlySpendLimit": "1";
"get-sms-some-attributes": the two asked for) and test_get_sms_attributes_from_unmodified_region
({"MonthlySpendLimit": "1"}).

NextToken: moto pages ListTopics, ListSubscriptions and ListSubscriptionsByTopic (and SNS's other listings) by the
next page's offset as a number ("100"). SNS's is opaque base64 text (test_sns.py's
test_list_subscriptions_by_topic_pagination, recorded 06-10-2025, decodes it: `base64.b64decode(...)`). Here the
offset is given out as base64 and read back from it; a NextToken that is not one of them is SNS's InvalidParameter
(no recording of its words: SNS's "Invalid parameter: <name>" form) where moto failed with a 500.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from typing import Any

from moto.core.responses import ActionResult
from moto.sns.exceptions import SNSInvalidParameter
from moto.sns.models import SNSBackend
from moto.sns.responses import SNSResponse

from eddy.emulator.moto_seam import Patches

#: what an account's SMS attributes are before it sets any (SNS's default spend limit, in USD)
DEFAULTS = {"MonthlySpendLimit": "1"}
ASKED = re.compile(r"attributes\.member\.\d+")

_patches = Patches()


def install() -> None:
    _patches.set(SNSResponse, "get_sms_attributes", _get_sms_attributes)
    _patches.set(SNSBackend, "_get_values_nexttoken", _paged(SNSBackend._get_values_nexttoken))


def uninstall() -> None:
    _patches.restore()


def _get_sms_attributes(self: SNSResponse) -> ActionResult:
    asked = {values[0] for name, values in self.querystring.items() if ASKED.fullmatch(name)}
    attributes = {**DEFAULTS, **self.backend.get_sms_attributes(set())}
    return ActionResult({"attributes": {name: value for name, value in attributes.items()
                                        if not asked or name in asked}})


def token(offset: int) -> str:
    return base64.b64encode(str(offset).encode()).decode()


def offset(next_token: str) -> int:
    """The offset a NextToken given out by `token` holds; SNSInvalidParameter for any other text."""
    try:
        decoded = base64.b64decode(next_token, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        decoded = ""
    if not decoded.isdigit():
        raise SNSInvalidParameter("Invalid parameter: NextToken")
    return int(decoded)


def _paged(values_nexttoken: Any) -> Any:
    @functools.wraps(values_nexttoken)
    def paged(self: SNSBackend, values_map: dict[str, Any], next_token: str | None = None) -> tuple[list[Any], Any]:
        given = str(offset(next_token)) if next_token else None
        values, next_offset = values_nexttoken(self, values_map, given)
        return values, None if next_offset is None else token(next_offset)

    return paged
