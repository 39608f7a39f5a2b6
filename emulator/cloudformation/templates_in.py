"""A template as an operation is given it (TemplateBody, or TemplateURL read from Eddy's S3), parsed and checked,
and the capabilities it needs (CAPABILITY_IAM, CAPABILITY_NAMED_IAM) held against the ones acknowledged."""

from __future__ import annotations

import json
import re
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

from eddy.emulator.cloudformation import graph, template as templates
from eddy.emulator.cloudformation.errors import InsufficientCapabilitiesException, ValidationError

_VIRTUAL_HOST = re.compile(r"^(?P<bucket>.+)\.s3[.-]([a-z0-9-]+\.)?amazonaws\.com$")
_NAMED_IAM = {
    "AWS::IAM::Role": "RoleName",
    "AWS::IAM::User": "UserName",
    "AWS::IAM::Group": "GroupName",
    "AWS::IAM::ManagedPolicy": "ManagedPolicyName",
    "AWS::IAM::InstanceProfile": "InstanceProfileName",
}


def body_of(params: dict[str, Any], s3_object: Callable[[str, str], str]) -> str:
    """The template text an operation names (TemplateBody or TemplateURL, exactly one)."""
    body, url = params.get("TemplateBody"), params.get("TemplateURL")
    if body is not None and url is not None:
        raise ValidationError("Specify exactly one of TemplateBody or TemplateUrl.")
    if body is not None:
        return body
    if url is None:
        raise ValidationError("Either Template URL or Template Body must be specified.")
    parts = urlsplit(url)
    hosted = _VIRTUAL_HOST.match(parts.hostname or "")
    path = unquote(parts.path.lstrip("/"))
    bucket, _, key = (hosted.group("bucket"), "", path) if hosted else path.partition("/")
    if not bucket or not key:
        raise ValidationError("TemplateURL must be a supported URL.")
    try:
        return s3_object(bucket, key)
    except Exception:
        raise ValidationError(f"S3 error: Access Denied or the object does not exist: {url}") from None


def parsed(body: str) -> dict[str, Any]:
    """The template, its sections checked, every name it refers to resolvable and its resources' order acyclic."""
    template = templates.parse(body)
    if not templates.transforms(template):
        check_references(template)
    return template


def check_references(template: dict[str, Any]) -> None:
    graph.creation_order(graph.dependencies(template["Resources"], template.get("Parameters") or {}))


def canonical(template: dict[str, Any]) -> str:
    return json.dumps(template, sort_keys=True)


def required_capabilities(template: dict[str, Any]) -> list[str]:
    needed: list[str] = []
    for resource in (template.get("Resources") or {}).values():
        kind = resource.get("Type", "")
        if kind.startswith("AWS::IAM::"):
            named = _NAMED_IAM.get(kind)
            capability = (
                "CAPABILITY_NAMED_IAM" if named and named in (resource.get("Properties") or {}) else "CAPABILITY_IAM"
            )
            if capability not in needed:
                needed.append(capability)
    return needed


def check_capabilities(template: dict[str, Any], given: list[str]) -> None:
    needed = required_capabilities(template)
    missing = [
        capability
        for capability in needed
        if capability not in given and not (capability == "CAPABILITY_IAM" and "CAPABILITY_NAMED_IAM" in given)
    ]
    if "CAPABILITY_NAMED_IAM" in missing:
        missing = ["CAPABILITY_NAMED_IAM"]
    if missing:
        raise InsufficientCapabilitiesException(f"Requires capabilities : [{', '.join(missing)}]")
