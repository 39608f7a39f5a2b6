"""Transforms: `Transform: AWS::Serverless-2016-10-31` (SAM) expanded into plain CloudFormation by AWS's own
aws-sam-translator library (what CloudFormation itself runs), offline: its managed-policy map is empty (a policy
named by name becomes arn:aws:iam::aws:policy/<name>, as the translator makes it) and its session is the stack's
region with no credentials asked for. The translator is the `sam` extra's: without it a SAM template is refused with
a ValidationError naming `pip install "eddy[sam]"`."""

from __future__ import annotations

from typing import Any

import boto3

from eddy.emulator.cloudformation import template as templates
from eddy.emulator.cloudformation.errors import ValidationError

SERVERLESS = "AWS::Serverless-2016-10-31"
INSTALL_SAM = 'pip install "eddy[sam]"'


def expand(
    template: dict[str, Any], given: list[dict[str, Any]], previous: dict[str, str] | None, region: str
) -> dict[str, Any]:
    """The template with its transforms applied (the same template when it declares none)."""
    declared = templates.transforms(template)
    if not declared:
        return template
    unknown = [name for name in declared if name != SERVERLESS]
    if unknown:
        raise ValidationError(f"Transform {unknown[0]} is not served by Eddy (only {SERVERLESS} is)")
    try:  # the translator is imported when needed, and only the `sam` extra installs it
        from samtranslator.metrics.metrics import DummyMetricsPublisher, Metrics
        from samtranslator.model.exceptions import InvalidDocumentException
        from samtranslator.parser.parser import Parser
        from samtranslator.translator.translator import Translator
    except ModuleNotFoundError:
        raise ValidationError(
            f"Transform {SERVERLESS} needs aws-sam-translator, which a plain install of Eddy leaves out: {INSTALL_SAM}"
        ) from None

    values: dict[str, Any] = {}
    for entry in given:
        if entry.get("UsePreviousValue") and previous is not None and entry["ParameterKey"] in previous:
            values[entry["ParameterKey"]] = previous[entry["ParameterKey"]]
        elif "ParameterValue" in entry:
            values[entry["ParameterKey"]] = entry["ParameterValue"]
    session = boto3.session.Session(region_name=region, aws_access_key_id="eddy", aws_secret_access_key="eddy")
    metrics = Metrics("ServerlessTransform", DummyMetricsPublisher())  # published nowhere, but published
    try:
        expanded = Translator({}, Parser(), boto_session=session, metrics=metrics).translate(
            _plain(template), values, get_managed_policy_map=lambda: {}
        )
    except InvalidDocumentException as error:
        causes = " ".join(cause.message for cause in error.causes)
        raise ValidationError(
            f"Transform {SERVERLESS} failed with: Invalid Serverless Application Specification "
            f"document. Number of errors found: {len(error.causes)}. {causes}"
        ) from None
    finally:
        metrics.publish()  # else the translator's metrics warn, when collected, that they never were
    templates.check(expanded)
    return expanded


def _plain(value: Any) -> Any:
    """A copy the translator may change (it edits the template it is given)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
