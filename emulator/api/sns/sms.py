"""SMS requests AWS refuses in words of its own, or refuses where moto accepts (LocalStack's AWS-validated
tests/aws/services/sns/test_sns.snapshot.json, TestSNSSMS; pinned by tests/emulator/api/sns/test_sms.py):

- Publish to a PhoneNumber that is not E.164 ("+" and up to 15 digits, as moto checks it): "Invalid parameter:
  PhoneNumber Reason: <number> is not valid to publish to" (moto: "Phone number does not meet the E164 format");
- SetSMSAttributes: an attribute SMS does not have, "<name> is not a valid attribute" (moto keeps any), a
  DefaultSMSType other than Promotional or Transactional, "DefaultSMSType is invalid";
- OptInPhoneNumber: a number that is not "+" and digits, "Invalid parameter: PhoneNumber Reason: input incorrectly
  formatted" (moto's CheckIfPhoneNumberIsOptedOut's words and rule; its OptInPhoneNumber takes anything).
"""

from __future__ import annotations

import re

from eddy.emulator.api.sns import Params, Refused, invalid, map_entries

#: SetSMSAttributes' attribute names (the API reference)
SMS_ATTRIBUTES = frozenset({
    "MonthlySpendLimit", "DeliveryStatusIAMRole", "DeliveryStatusSuccessSamplingRate", "DefaultSenderID",
    "DefaultSMSType", "UsageReportS3Bucket",
})
SMS_TYPES = frozenset({"Promotional", "Transactional"})
E164 = re.compile(r"\+?[1-9]\d{1,14}")
OPT_IN_NUMBER = re.compile(r"\+?\d+")


def check_phone_number(number: str) -> None:
    """Publish's PhoneNumber."""
    if not E164.fullmatch(number):
        raise invalid(f"PhoneNumber Reason: {number} is not valid to publish to")


def set_sms_attributes(params: Params) -> None:
    for name, value in (map_entries(params, "attributes") or {}).items():
        if name not in SMS_ATTRIBUTES:
            raise Refused("InvalidParameter", f"{name} is not a valid attribute")
        if name == "DefaultSMSType" and value not in SMS_TYPES:
            raise Refused("InvalidParameter", "DefaultSMSType is invalid")


def opt_in_phone_number(params: Params) -> None:
    if not OPT_IN_NUMBER.fullmatch(params.get("phoneNumber", "")):
        raise invalid("PhoneNumber Reason: input incorrectly formatted")


CHECKS = {"SetSMSAttributes": set_sms_attributes, "OptInPhoneNumber": opt_in_phone_number}
