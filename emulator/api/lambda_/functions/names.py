"""The name of the function CreateFunction makes, from its FunctionName in any of its forms, refused in AWS's words
(`created_name`)."""

from __future__ import annotations

from eddy.emulator.errors import (
    AccessDeniedException,
    InvalidParameterValueException,
    constraint_violation,
    reachable,
    without_type,
)
from eddy.emulator.functions.versions.published import FUNCTION_NAME_FORMS

#: CreateFunction's FunctionName pattern, as botocore's model and AWS's answers give it
CREATE_FUNCTION_NAME_PATTERN = (
    r"(arn:(aws[a-zA-Z-]*)?:lambda:)?((eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?"
    r"([a-zA-Z0-9-_]+)(:(\$LATEST|[a-zA-Z0-9-_]+))?"
)

def created_name(given: str, account_id: str, region: str) -> str:
    """The name of the function CreateFunction makes, from a FunctionName that passed the model's length (140) and
    pattern: a name, a partial ARN (<account>:function:<name>) or an ARN, of the caller's account (another's:
    AccessDeniedException, 403, without a message) and region (another's: ResourceNotFoundException "Functions from
    '<region>' are not reachable in this region ('<region>')"), its name at most 64 characters (longer:
    InvalidParameterValueException in the model's words), as AWS answered (LocalStack's test_lambda_api.snapshot.json,
    TestLambdaFunction::test_function_arns and test_function_name_and_qualifier_validation[function_name_too_long-
    create_function]). A name with a qualifier (name:1, an ARN's :$LATEST) makes no function: refused in the pattern's
    words, as before (what AWS answers is not recorded)."""
    match = FUNCTION_NAME_FORMS.match(given)
    if match is None or match.group("qualifier") is not None:
        raise constraint_violation(
            "functionName", given, f"Member must satisfy regular expression pattern: {CREATE_FUNCTION_NAME_PATTERN}"
        )
    if match.group("account") not in (None, account_id):
        raise without_type(AccessDeniedException(None))  # type: ignore[arg-type]  # AWS's "Message": null
    reachable(match.group("region"), region)
    name = match.group("name")
    if len(name) > 64:
        raise InvalidParameterValueException(
            f"1 validation error detected: Value '{given}' at 'functionName' failed to satisfy constraint: "
            "Member must have length less than or equal to 64"
        )
    return name
