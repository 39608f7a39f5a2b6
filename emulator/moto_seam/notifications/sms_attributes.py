"""GetSMSAttributes answered as SNS answers it: each attribute asked for, and the MonthlySpendLimit an account has
before it sets one.

moto reads only the first name of the request's `attributes` list (`attributes.member.1`), so a request for two
attributes was answered one, and it answers only what was set. AWS's recorded answers (LocalStack's AWS-validated
tests/aws/services/sns/test_sns.snapshot.json, localstack/localstack at 8b9a79f05846, TestSNSSMS):
test_set_get_sms_attributes ("get-sms-all-attributes": the three attributes set and "MonthlySpendLimit": "1";
"get-sms-some-attributes": the two asked for) and test_get_sms_attributes_from_unmodified_region
({"MonthlySpendLimit": "1"}).
"""

from __future__ import annotations

import re

from moto.core.responses import ActionResult
from moto.sns.responses import SNSResponse

from eddy.emulator.moto_seam import Patches

#: what an account's SMS attributes are before it sets any (SNS's default spend limit, in USD)
DEFAULTS = {"MonthlySpendLimit": "1"}
ASKED = re.compile(r"attributes\.member\.\d+")

_patches = Patches()


def install() -> None:
    _patches.set(SNSResponse, "get_sms_attributes", _get_sms_attributes)


def uninstall() -> None:
    _patches.restore()


def _get_sms_attributes(self: SNSResponse) -> ActionResult:
    asked = {values[0] for name, values in self.querystring.items() if ASKED.fullmatch(name)}
    attributes = {**DEFAULTS, **self.backend.get_sms_attributes(set())}
    return ActionResult({"attributes": {name: value for name, value in attributes.items()
                                        if not asked or name in asked}})
