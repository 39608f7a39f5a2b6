"""Platform applications' requests AWS refuses, refused in AWS's words and changing nothing
(emulator/api/sns/platform_applications.py, names.py).

Every expected answer is AWS's, recorded in LocalStack's AWS-validated snapshots: github.com/localstack/localstack
at 8b9a79f05846835cf4dff63ab7eefdde9df83783, tests/aws/services/sns/test_sns.snapshot.json,
TestSNSPlatformApplicationCrud (named per case as `<test>[<id>]/<snapshot key>`).
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

CREDENTIALS = {"PlatformPrincipal": "dummy", "PlatformCredential": "dummy"}
NULL = ("ValidationError",
        "1 validation error detected: Value null at 'attributes' failed to satisfy constraint: Member must not be null")
SHORT_ARN = ("InvalidParameter",
             "Invalid parameter: PlatformApplicationArn Reason: An ARN must have at least 6 elements, not 1")
MISSING = "arn:aws:sns:us-east-1:123456789012:app/ADM/NonExistingApp"

#: (source, operation, its request, AWS's Code and Message)
CASES = [
    ("test_create_platform_application_invalid_attributes[no-args]/platform-application-no-attributes",
     "create_platform_application", {"Name": "app", "Platform": "ADM", "Attributes": {}}, NULL),
    ("test_create_platform_application_invalid_attributes[missing-credential]/platform-application-no-attributes",
     "create_platform_application", {"Name": "app", "Platform": "ADM", "Attributes": {"PlatformPrincipal": "dummy"}},
     ("InvalidParameter", "Invalid parameter: Attributes Reason: PlatformPrincipal attribute provided without "
                          "PlatformCredential")),
    ("test_create_platform_application_invalid_attributes[missing-principal]/platform-application-no-attributes",
     "create_platform_application", {"Name": "app", "Platform": "ADM", "Attributes": {"PlatformCredential": "dummy"}},
     ("InvalidParameter", "Invalid parameter: Attributes Reason: PlatformCredential attribute provided without "
                          "PlatformPrincipal")),
    ("test_create_platform_application_invalid_name[too-long]/invalid-application-name",
     "create_platform_application", {"Name": "a" * 257, "Platform": "ADM", "Attributes": CREDENTIALS},
     ("InvalidParameter", f"Invalid parameter: {'a' * 257} Reason: must be at most 256 characters long")),
    ("test_create_platform_application_invalid_name[empty]/invalid-application-name",
     "create_platform_application", {"Name": "", "Platform": "ADM", "Attributes": CREDENTIALS},
     ("InvalidParameter", "Invalid parameter:  Reason: cannot be empty")),
    ("test_create_platform_application_invalid_name[invalid-char]/invalid-application-name",
     "create_platform_application", {"Name": "@name", "Platform": "ADM", "Attributes": CREDENTIALS},
     ("InvalidParameter", "Invalid parameter: @name Reason: must contain only characters 'a'-'z', 'A'-'Z', '0'-'9', "
                          "'_', '-', and '.'")),
    ("test_create_platform_application_invalid_platform/invalid-platform",
     "create_platform_application", {"Name": "app", "Platform": "AAA", "Attributes": CREDENTIALS},
     ("InvalidParameter", "Invalid parameter: Platform Reason: AAA is not supported")),
    ("test_get_platform_application_attributes_invalid_arn/invalid-application-arn",
     "get_platform_application_attributes", {"PlatformApplicationArn": "invalid-arn"}, SHORT_ARN),
    ("test_set_platform_application_attributes_invalid_arn/invalid-application-arn",
     "set_platform_application_attributes", {"PlatformApplicationArn": "invalid-arn", "Attributes": {}}, SHORT_ARN),
    ("test_set_platform_application_attributes_non_existing_app[no-args]/non_existing-application-arn",
     "set_platform_application_attributes", {"PlatformApplicationArn": MISSING, "Attributes": {}}, NULL),
]


def listing(sns) -> list:
    return sns.list_platform_applications()["PlatformApplications"]


@pytest.mark.parametrize("source, operation, request_, error", CASES, ids=[case[0].split("/")[0] for case in CASES])
def test_aws_refuses_and_nothing_changes(door, source, operation, request_, error):
    sns = door.client("sns")
    sns.create_platform_application(Name="kept", Platform="ADM", Attributes=CREDENTIALS)
    before = listing(sns)
    with pytest.raises(ClientError) as raised:
        getattr(sns, operation)(**request_)
    answer = raised.value.response
    assert (answer["Error"], answer["ResponseMetadata"]["HTTPStatusCode"]) == (
        {"Type": "Sender", "Code": error[0], "Message": error[1]}, 400)
    assert listing(sns) == before


def test_what_aws_accepts_goes_through(door):
    """An application named with every character SNS allows; Firebase Cloud Messaging's credential without a principal
    (the API reference: "For GCM ... there is no PlatformPrincipal"); a missing application with attributes is
    NotFound (test_get_platform_application_attributes_non_existing_app,
    test_set_platform_application_attributes_non_existing_app[dummy-args]: 404 "PlatformApplication does not exist")."""
    sns = door.client("sns")
    adm = sns.create_platform_application(Name="My_app-1.0", Platform="ADM", Attributes=CREDENTIALS)
    gcm = sns.create_platform_application(Name="fcm", Platform="GCM", Attributes={"PlatformCredential": "api-key"})
    assert sorted(app["PlatformApplicationArn"] for app in listing(sns)) == [
        "arn:aws:sns:us-east-1:123456789012:app/ADM/My_app-1.0", "arn:aws:sns:us-east-1:123456789012:app/GCM/fcm"]
    assert [adm["PlatformApplicationArn"], gcm["PlatformApplicationArn"]] == [
        "arn:aws:sns:us-east-1:123456789012:app/ADM/My_app-1.0", "arn:aws:sns:us-east-1:123456789012:app/GCM/fcm"]
    for call, request in ((sns.get_platform_application_attributes, {}),
                          (sns.set_platform_application_attributes, {"Attributes": {"PlatformPrincipal": "dummy"}})):
        with pytest.raises(ClientError) as raised:
            call(PlatformApplicationArn=MISSING, **request)
        answer = raised.value.response
        assert (answer["Error"], answer["ResponseMetadata"]["HTTPStatusCode"]) == (
            {"Type": "Sender", "Code": "NotFound", "Message": "PlatformApplication does not exist"}, 404)
