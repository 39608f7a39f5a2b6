"""SAM and CloudFormation templates as `eddy up` deploys them: read as CloudFormation reads them (JSON, or YAML with
the short-form tags), their local code packaged as `sam deploy` / `aws cloudformation package` package it, then
deployed whole by the endpoint's CloudFormation (SAM's transform is CloudFormation's own, aws-sam-translator).

Local code is a path where a template may give one: AWS::Serverless::Function's CodeUri (and Globals.Function's),
AWS::Serverless::LayerVersion's ContentUri, AWS::Lambda::Function's Code, AWS::Lambda::LayerVersion's Content;
a folder (zipped) or a .zip file, relative to the template's folder. Each becomes the S3 object it is uploaded to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from eddy.emulator.cloudformation import template as cloudformation_template
from eddy.emulator.cloudformation.errors import ValidationError

from .packages import zipped
from .stack import StackError

#: resource type -> (property, how an S3 location is written there)
_LOCAL_CODE: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "AWS::Serverless::Function": ("CodeUri", lambda bucket, key: f"s3://{bucket}/{key}"),
    "AWS::Serverless::LayerVersion": ("ContentUri", lambda bucket, key: f"s3://{bucket}/{key}"),
    "AWS::Lambda::Function": ("Code", lambda bucket, key: {"S3Bucket": bucket, "S3Key": key}),
    "AWS::Lambda::LayerVersion": ("Content", lambda bucket, key: {"S3Bucket": bucket, "S3Key": key}),
}


@dataclass
class Template:
    """A template file: its document (short forms read as long forms), where its relative paths start, and the
    stack `eddy up` deploys it as (the file's stem unless named)."""

    document: dict[str, Any]
    source: str
    base_dir: Path
    stack_name: str
    region: str | None = None


def is_template(document: Any) -> bool:
    """A SAM / CloudFormation template rather than a stack file."""
    if not isinstance(document, dict):
        return False
    return (
        isinstance(document.get("Resources"), dict) or "AWSTemplateFormatVersion" in document or "Transform" in document
    )


def read(text: str, source: str) -> dict[str, Any]:
    """The template's document, its sections checked as CloudFormation checks them."""
    try:
        return cloudformation_template.parse(text)
    except ValidationError as error:  # "Template format error: ..."
        raise StackError(f"{source}: {error.message}") from None


def packaged(template: Template, upload: Callable[[bytes], tuple[str, str]]) -> dict[str, Any]:
    """The document with every local code path replaced by the S3 location its zip was uploaded to."""
    document = {**template.document, "Resources": dict(template.document["Resources"])}
    uploaded: dict[Path, tuple[str, str]] = {}

    def location(path: str, where: str) -> tuple[str, str]:
        folder = (template.base_dir / path).resolve()
        if folder not in uploaded:
            if not folder.exists():
                raise StackError(f"{template.source}: {where}: {path} does not exist (from {template.base_dir})")
            uploaded[folder] = upload(zipped(folder))
        return uploaded[folder]

    function_globals = (document.get("Globals") or {}).get("Function") or {}
    if _is_local(function_globals.get("CodeUri")):
        bucket, key = location(function_globals["CodeUri"], "Globals.Function.CodeUri")
        document["Globals"] = {
            **document["Globals"],
            "Function": {**function_globals, "CodeUri": f"s3://{bucket}/{key}"},
        }
    for logical_id, resource in template.document["Resources"].items():
        kind = _LOCAL_CODE.get(resource.get("Type")) if isinstance(resource, dict) else None
        properties = resource.get("Properties") if kind else None
        if kind is None or not isinstance(properties, dict) or not _is_local(properties.get(kind[0])):
            continue
        prop, written = kind
        bucket, key = location(properties[prop], f"Resources.{logical_id}.Properties.{prop}")
        document["Resources"][logical_id] = {**resource, "Properties": {**properties, prop: written(bucket, key)}}
    return document


def _is_local(value: Any) -> bool:
    return isinstance(value, str) and not value.startswith(("s3://", "https://", "http://"))
