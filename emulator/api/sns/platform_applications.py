"""Platform applications (mobile push) requests AWS refuses and moto accepts, refused in AWS's recorded words (LocalStack's
AWS-validated tests/aws/services/sns/test_sns.snapshot.json, TestSNSPlatformApplicationCrud; pinned by
tests/emulator/api/sns/test_platform_applications.py). moto makes an application of any name, platform and
attributes, and answers NotFound to an ARN that is not one.

- CreatePlatformApplication: no Attributes (ValidationError, the model's "Member must not be null"), a
  PlatformPrincipal without its PlatformCredential or the other way round (GCM's key and token credentials have no
  principal: the API reference), a Name of other than 1 to 256 letters, digits, "_", "-" and ".", a Platform SNS
  does not serve;
- Get/SetPlatformApplicationAttributes: an ARN of fewer than six elements (names.py); Set's missing Attributes.
"""

from __future__ import annotations

import re

from eddy.emulator.api.sns import Params, Refused, invalid, map_entries

#: the platforms SNS serves (the API reference's CreatePlatformApplication and the Developer Guide's "Mobile push")
PLATFORMS = frozenset({
    "ADM", "APNS", "APNS_SANDBOX", "APNS_VOIP", "APNS_VOIP_SANDBOX", "MACOS", "MACOS_SANDBOX", "BAIDU", "GCM", "MPNS",
    "WNS",
})
#: the platforms whose credential comes without a principal (Firebase Cloud Messaging's API key or key file)
WITHOUT_PRINCIPAL = frozenset({"GCM"})
NAME = re.compile(r"[A-Za-z0-9_.-]*")
NULL_ATTRIBUTES = Refused(
    "ValidationError",
    "1 validation error detected: Value null at 'attributes' failed to satisfy constraint: Member must not be null",
)


def _attributes(params: Params) -> Params:
    """The request's Attributes, refused where it has none (an empty map is sent as none)."""
    attributes = map_entries(params, "Attributes")
    if not attributes:
        raise NULL_ATTRIBUTES
    return attributes


def create_platform_application(params: Params) -> None:
    attributes = _attributes(params)
    name, platform = params.get("Name", ""), params.get("Platform", "")
    if not name:
        raise invalid(" Reason: cannot be empty")
    if len(name) > 256:
        raise invalid(f"{name} Reason: must be at most 256 characters long")
    if not NAME.fullmatch(name):
        raise invalid(f"{name} Reason: must contain only characters 'a'-'z', 'A'-'Z', '0'-'9', '_', '-', and '.'")
    if platform not in PLATFORMS:
        raise invalid(f"Platform Reason: {platform} is not supported")
    principal, credential = "PlatformPrincipal" in attributes, "PlatformCredential" in attributes
    if principal and not credential:
        raise invalid("Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential")
    if credential and not principal and platform not in WITHOUT_PRINCIPAL:
        raise invalid("Attributes Reason: PlatformCredential attribute provided without PlatformPrincipal")


def set_platform_application_attributes(params: Params) -> None:
    _attributes(params)


CHECKS = {
    "CreatePlatformApplication": create_platform_application,
    "SetPlatformApplicationAttributes": set_platform_application_attributes,
}
