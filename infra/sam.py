"""SAM / CloudFormation templates as Eddy stacks: the part of a template Eddy can run, and a list of the rest.

`load_stack` reads a template (YAML, short-form tags included, or JSON) through this module when the document
has Resources. What becomes what:

    AWS::DynamoDB::Table             tables     TableName (else the logical id), KeySchema, AttributeDefinitions,
                                                GlobalSecondaryIndexes, BillingMode, ProvisionedThroughput,
                                                StreamSpecification, TimeToLiveSpecification
    AWS::Lambda::Function            functions  FunctionName (else the logical id), Handler, Runtime, Timeout,
                                                MemorySize, Environment, Description; Code as a local folder
    AWS::Serverless::Function        functions  the same with CodeUri, plus Globals.Function; its Events of
                                     mappings   Type DynamoDB become mappings
    AWS::Lambda::EventSourceMapping  mappings   from a DynamoDB stream
    AWS::SQS::Queue, AWS::SNS::Topic, AWS::S3::Bucket   queues, topics, buckets (by name, else the logical id)

Anything else (other resource types, other event types, inline or S3 code, runtimes other than python3.x and
nodejs18.x/20.x/22.x,
LocalSecondaryIndexes) is listed in `stack.unsupported`, never dropped silently. Outputs are ignored.

Intrinsic functions are evaluated as the template is read. Ref of a resource gives its physical name (of a
queue too, not CloudFormation's URL; a topic's is its ARN, as in CloudFormation), of a parameter its Default; the pseudo parameters
are AWS::Region us-east-1, AWS::AccountId 123456789012, AWS::Partition aws and AWS::StackName the file's
stem. GetAtt Arn gives the ARNs Eddy uses; GetAtt Table.StreamArn is known only once the table exists, so it
may only name a mapping's source. Fn::If evaluates Conditions built of Fn::Equals, Fn::Not, Fn::And, Fn::Or.
Every error names the template and its place in it: `template.yaml: Resources.Orders.Properties.KeySchema: ...`.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, NamedTuple

import yaml
from pydantic import BaseModel, ValidationError

from emulator.functions.runtimes import RUNTIMES

from .stack import Function, Mapping, Stack, StackError, Table, parse_stack

# -- loading: CloudFormation's short forms ------------------------------------------------------------------

_SHORT_FORMS = {"Ref": "Ref", "Condition": "Condition"} | {
    name: f"Fn::{name}"
    for name in ("GetAtt", "Sub", "Join", "Select", "Split", "If", "Equals", "Not", "And", "Or", "FindInMap",
                 "Base64", "ImportValue", "GetAZs")
}


def _long_form(name: str) -> Callable[[yaml.SafeLoader, yaml.Node], dict[str, Any]]:
    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> dict[str, Any]:
        value: Any
        if isinstance(node, yaml.ScalarNode):
            value = loader.construct_scalar(node)
            if name == "Fn::GetAtt":
                value = value.split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {name: value}

    return construct


class _TemplateLoader(yaml.SafeLoader):
    """yaml.SafeLoader that also reads `!Ref x` as {"Ref": "x"}, `!GetAtt A.B` as {"Fn::GetAtt": ["A", "B"]}, ..."""


for _tag, _name in _SHORT_FORMS.items():
    _TemplateLoader.add_constructor(f"!{_tag}", _long_form(_name))


def template_loader() -> type[yaml.SafeLoader]:
    """The loader for stack files and templates alike: plain YAML loads as yaml.safe_load loads it."""
    return _TemplateLoader


def is_template(document: Any) -> bool:
    """A SAM / CloudFormation template rather than a stack file."""
    if not isinstance(document, dict):
        return False
    return isinstance(document.get("Resources"), dict) or "AWSTemplateFormatVersion" in document or "Transform" in document


# -- what resources become ----------------------------------------------------------------------------------

_SAM_FUNCTION = "AWS::Serverless::Function"
_SAM_TRANSFORM = "AWS::Serverless-2016-10-31"
_KINDS = {
    "AWS::DynamoDB::Table": "table",
    "AWS::Lambda::Function": "function",
    _SAM_FUNCTION: "function",
    "AWS::Lambda::EventSourceMapping": "mapping",
    "AWS::SQS::Queue": "queue",
    "AWS::SNS::Topic": "topic",
    "AWS::S3::Bucket": "bucket",
}


class _Named(NamedTuple):
    """A kind of resource that has a physical name: the property that gives it, its ARN, its Fn::GetAtt attributes."""

    name_property: str
    arn: str
    attributes: dict[str, str]  # attribute -> what it gives: "arn", "name" or "stream"


_NAMED = {
    "table": _Named("TableName", "arn:{partition}:dynamodb:{region}:{account}:table/{name}", {"Arn": "arn", "StreamArn": "stream"}),
    "function": _Named("FunctionName", "arn:{partition}:lambda:{region}:{account}:function:{name}", {"Arn": "arn"}),
    "queue": _Named("QueueName", "arn:{partition}:sqs:{region}:{account}:{name}", {"Arn": "arn", "QueueName": "name"}),
    "topic": _Named("TopicName", "arn:{partition}:sns:{region}:{account}:{name}",
                    {"Arn": "arn", "TopicArn": "arn", "TopicName": "name"}),
    "bucket": _Named("BucketName", "arn:{partition}:s3:::{name}", {"Arn": "arn"}),
}
_PSEUDO = {"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::Partition": "aws",
           "AWS::URLSuffix": "amazonaws.com"}
_FUNCTION_PROPERTIES = {"Handler": "handler", "Runtime": "runtime", "Timeout": "timeout", "MemorySize": "memory",
                        "Description": "description"}
_MAPPING_PROPERTIES = {
    "StartingPosition": "starting_position",
    "BatchSize": "batch_size",
    "MaximumBatchingWindowInSeconds": "maximum_batching_window_in_seconds",
    "MaximumRetryAttempts": "maximum_retry_attempts",
    "MaximumRecordAgeInSeconds": "maximum_record_age_in_seconds",
    "BisectBatchOnFunctionError": "bisect_batch_on_function_error",
    "ParallelizationFactor": "parallelization_factor",
    "TumblingWindowInSeconds": "tumbling_window_in_seconds",
    "FunctionResponseTypes": "function_response_types",
    "Enabled": "enabled",
}
_DESTINATION_TYPES = {"SQS": "queue", "SNS": "topic", "S3": "bucket"}
_STREAM_ARN = re.compile(r"^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[^/]+/stream/.+$")
_FUNCTION_ARN = re.compile(r"^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:([^:]+)(?::[^:]+)?$")
_SUB_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_UNSUPPORTED = "not supported by Eddy's stack files"

#: where a field of a stack entry came from in the template: (field, ...) -> property path
_Origins = dict[tuple, str]


class _NoValue:
    """Ref AWS::NoValue: the property, or list item, is left out."""

    def __repr__(self) -> str:
        return "AWS::NoValue"


_NO_VALUE = _NoValue()


@dataclass(frozen=True)
class _StreamOf:
    """GetAtt Table.StreamArn: the table's stream, whose ARN exists only once the table does."""

    table: str
    logical_id: str


class _Problems(Exception):
    """Places in the template, each with what is wrong there."""

    def __init__(self, *places: tuple[str, str]) -> None:
        super().__init__(places)
        self.places = list(places)


def _problem(path: str, message: str) -> _Problems:
    return _Problems((path, message))


def _describe(value: Any) -> str:
    if isinstance(value, _StreamOf):
        return f"the stream ARN of {value.logical_id}"
    if isinstance(value, bool):
        return "true/false"
    kinds = {dict: "a mapping", list: "a list", str: "text", int: "a number", float: "a number", type(None): "nothing"}
    return kinds.get(type(value), type(value).__name__)


def _expect(value: Any, kind: type, path: str, what: str) -> Any:
    if not isinstance(value, kind):
        raise _problem(path, f"expected {what}, got {_describe(value)}")
    return value


def _is_intrinsic(value: Any) -> bool:
    if not (isinstance(value, dict) and len(value) == 1):
        return False
    key = next(iter(value))
    return key in ("Ref", "Condition") or key.startswith("Fn::")


def _merged(defaults: Any, own: Any) -> Any:
    """SAM's Globals: mappings merge (the resource's keys win), lists add up, anything else is the resource's."""
    if isinstance(defaults, dict) and isinstance(own, dict) and not _is_intrinsic(defaults) and not _is_intrinsic(own):
        return {**defaults, **{key: _merged(defaults[key], value) if key in defaults else value for key, value in own.items()}}
    if isinstance(defaults, list) and isinstance(own, list):
        return defaults + own
    return own


def _comparable(value: Any) -> Any:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value) if isinstance(value, (int, float)) else value


# -- the converter ------------------------------------------------------------------------------------------


class _Template:
    def __init__(self, document: dict, source: str, pseudo: dict[str, str]) -> None:
        self.source = source
        self.pseudo = {**_PSEUDO, "AWS::StackName": Path(source).stem, **pseudo}
        self.parameters = self._section(document, "Parameters")
        self.conditions = self._section(document, "Conditions")
        self.maps = self._section(document, "Mappings")
        if document.get("Resources") is None:
            raise StackError(f"{source}: Resources: a template declares its resources under Resources")
        self.resources = self._section(document, "Resources")
        self.function_globals = self._section(self._section(document, "Globals"), "Function", "Globals.Function")
        transforms = document.get("Transform") or []
        self.transforms = [transform.get("Name", transform) if isinstance(transform, dict) else transform
                           for transform in (transforms if isinstance(transforms, list) else [transforms])]
        self.stack: dict[str, Any] = {"tables": {}, "functions": {}, "mappings": [], "queues": [], "topics": [], "buckets": []}
        self.unsupported: list[str] = []
        self.problems: list[tuple[str, str]] = []
        self.skipped_functions: set[str] = set()
        self.names: dict[str, str] = {}
        self.naming: set[str] = set()
        self.truths: dict[str, bool] = {}
        self.weighing: set[str] = set()

    def _section(self, document: dict, name: str, path: str = "") -> dict:
        section = document.get(name)
        if section is None:
            return {}
        if not isinstance(section, dict):
            raise StackError(f"{self.source}: {path or name}: expected a mapping, got {_describe(section)}")
        return section

    # -- the whole template

    def convert(self) -> dict[str, Any]:
        for transform in self.transforms:
            if transform != _SAM_TRANSFORM:
                self.unsupported.append(f"Transform {transform}: not applied by Eddy")
        later: list[Callable[[], None]] = []  # mappings, once every function, table and destination is known
        for logical_id in self.resources:
            self._attempt(partial(self._resource, logical_id, later))
        for step in later:
            self._attempt(step)
        if self.problems:
            raise StackError("\n".join(f"{self.source}: {path}: {message}" for path, message in self.problems))
        return self.stack

    def _attempt(self, step: Callable[[], None]) -> None:
        try:
            step()
        except _Problems as problems:
            self.problems.extend(problems.places)

    def _resource(self, logical_id: str, later: list[Callable[[], None]]) -> None:
        kind, resource_type = self._kind(logical_id)
        if not self._created(logical_id):
            return
        if kind is None:
            self.unsupported.append(f"{logical_id} ({resource_type}): {_UNSUPPORTED}")
            return
        at = f"Resources.{logical_id}.Properties"
        props = self._properties(logical_id)
        if kind == "table":
            self._table(logical_id, props, at)
        elif kind == "function":
            self._function(logical_id, resource_type, props, at, later)
        elif kind == "mapping":
            later.append(partial(self._event_source_mapping, logical_id, props, at))
        else:
            name = self.name_of(logical_id, at)
            self._add(self.stack[kind + "s"], name, kind, at)
            self.stack[kind + "s"].append(name)

    def _kind(self, logical_id: str) -> tuple[str | None, str]:
        resource = self.resources[logical_id]
        path = f"Resources.{logical_id}"
        _expect(resource, dict, path, "a mapping with a Type")
        resource_type = _expect(resource.get("Type"), str, f"{path}.Type", "a resource type such as AWS::DynamoDB::Table")
        return _KINDS.get(resource_type), resource_type

    def _created(self, logical_id: str) -> bool:
        condition = self.resources[logical_id].get("Condition")
        return condition is None or self._truth_of(condition, f"Resources.{logical_id}.Condition")

    def _properties(self, logical_id: str) -> dict:
        resource = self.resources[logical_id]
        props = _expect(resource.get("Properties") or {}, dict, f"Resources.{logical_id}.Properties", "a mapping")
        return _merged(self.function_globals, props) if resource["Type"] == _SAM_FUNCTION else props

    def _add(self, existing: Any, name: str, kind: str, path: str) -> None:
        if name in existing:
            raise _problem(path, f"a second {kind} named {name!r}")

    def get(self, props: dict, key: str, at: str) -> Any:
        """A property, evaluated; None when it is absent (or AWS::NoValue)."""
        if key not in props:
            return None
        value = self.resolve(props[key], f"{at}.{key}")
        return None if value is _NO_VALUE else value

    def _copy(self, props: dict, fields: dict[str, str], entry: dict, origins: _Origins, at: str) -> None:
        for prop, field in fields.items():
            value = self.get(props, prop, at)
            if value is not None:
                entry[field] = value
                origins[(field,)] = f"{at}.{prop}"

    def _validated(self, model: type[BaseModel], entry: dict, origins: _Origins) -> None:
        """The entry as the stack model takes it, or its problems at their places in the template."""
        try:
            model.model_validate(entry)
        except ValidationError as error:
            places = []
            for problem in error.errors():
                loc = tuple(problem["loc"])
                cut = max(length for length in range(len(loc) + 1) if loc[:length] in origins)
                path = ".".join([origins[loc[:cut]], *(str(part) for part in loc[cut:])])
                places.append((path, problem["msg"].removeprefix("Value error, ")))
            raise _Problems(*places) from None

    # -- names, ARNs and intrinsic functions

    def name_of(self, logical_id: str, path: str) -> str:
        """The physical name of a table, function, queue, topic or bucket of the template."""
        if logical_id in self.names:
            return self.names[logical_id]
        kind, resource_type = self._kind(logical_id)
        if kind not in _NAMED:
            raise _problem(path, f"{logical_id} ({resource_type}) is not a resource Eddy creates, so it has no value here")
        if not self._created(logical_id):
            raise _problem(path, f"{logical_id} is not created: its Condition is false")
        if logical_id in self.naming:
            raise _problem(path, f"the name of {logical_id} depends on itself")
        self.naming.add(logical_id)
        try:
            at = f"Resources.{logical_id}.Properties"
            prop = _NAMED[kind].name_property
            given = self.get(self._properties(logical_id), prop, at)
            name = logical_id if given is None else self._text(given, f"{at}.{prop}")
        finally:
            self.naming.discard(logical_id)
        self.names[logical_id] = name
        return name

    def arn(self, kind: str, name: str) -> str:
        return _NAMED[kind].arn.format(partition=self.pseudo["AWS::Partition"], region=self.pseudo["AWS::Region"],
                                  account=self.pseudo["AWS::AccountId"], name=name)

    def resolve(self, value: Any, path: str) -> Any:
        """The value with every intrinsic function evaluated."""
        if isinstance(value, dict):
            if len(value) == 1:
                key, argument = next(iter(value.items()))
                if key == "Ref" or key.startswith("Fn::"):
                    return self._intrinsic(key, argument, f"{path}.{key}")
            resolved = {key: self.resolve(item, f"{path}.{key}") for key, item in value.items()}
            return {key: item for key, item in resolved.items() if item is not _NO_VALUE}
        if isinstance(value, list):
            items = [self.resolve(item, f"{path}.{position}") for position, item in enumerate(value)]
            return [item for item in items if item is not _NO_VALUE]
        return value

    def _intrinsic(self, key: str, argument: Any, path: str) -> Any:
        evaluate = {
            "Ref": self._ref, "Fn::GetAtt": self._get_att, "Fn::Sub": self._sub, "Fn::Join": self._join,
            "Fn::Select": self._select, "Fn::Split": self._split, "Fn::If": self._if, "Fn::Equals": self._equals,
            "Fn::Not": self._not, "Fn::And": partial(self._all_or_any, all), "Fn::Or": partial(self._all_or_any, any),
            "Fn::FindInMap": self._find_in_map, "Fn::Base64": self._base64, "Fn::GetAZs": self._get_azs,
            "Fn::ImportValue": self._import_value,
        }.get(key)
        if evaluate is None:
            raise _problem(path, f"{key} is not an intrinsic function Eddy evaluates")
        return evaluate(argument, path)

    def _text(self, value: Any, path: str) -> str:
        if isinstance(value, _StreamOf):
            raise _problem(path, f"the stream ARN of {value.logical_id} is known only once the table exists: "
                                 "it can name a mapping's source (Stream, EventSourceArn), nothing else")
        if isinstance(value, (str, int, float)):
            return _comparable(value)
        raise _problem(path, f"expected text, got {_describe(value)}")

    def _ref(self, argument: Any, path: str) -> Any:
        name = _expect(argument, str, path, "the name of a parameter or resource")
        if name == "AWS::NoValue":
            return _NO_VALUE
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.parameters:
            declared = self.parameters[name]
            if not isinstance(declared, dict) or "Default" not in declared:
                raise _problem(path, f"parameter {name!r} has no Default (Eddy takes no parameter values: give it one)")
            default, kind = declared["Default"], str(declared.get("Type", ""))
            if kind == "CommaDelimitedList" or kind.startswith("List<"):
                return [part.strip() for part in str(default).split(",")]
            return default
        if name in self.resources:
            if self._kind(name)[0] == "topic":  # as CloudFormation: !Ref of a topic is its ARN
                return self._get_att([name, "TopicArn"], path)
            return self.name_of(name, path)
        raise _problem(path, f"no parameter or resource named {name!r}")

    def _get_att(self, argument: Any, path: str) -> Any:
        argument = self.resolve(argument, path)
        if not (isinstance(argument, list) and len(argument) == 2 and all(isinstance(part, str) for part in argument)):
            raise _problem(path, "Fn::GetAtt takes a resource and an attribute: [Resource, Attribute] or Resource.Attribute")
        logical_id, attribute = argument
        if logical_id not in self.resources:
            raise _problem(path, f"no resource named {logical_id!r}")
        kind, resource_type = self._kind(logical_id)
        if kind not in _NAMED:
            raise _problem(path, f"{logical_id} ({resource_type}) is not a resource Eddy creates, so it has no {attribute}")
        attributes = _NAMED[kind].attributes
        if attribute not in attributes:
            raise _problem(path, f"Eddy knows these attributes of {logical_id} ({resource_type}): {', '.join(attributes)}, "
                                 f"not {attribute!r}")
        gives = attributes[attribute]
        name = self.name_of(logical_id, path)
        if gives == "stream":
            return _StreamOf(name, logical_id)
        return name if gives == "name" else self.arn(kind, name)

    def _sub(self, argument: Any, path: str) -> str:
        if isinstance(argument, list) and len(argument) == 2 and isinstance(argument[1], dict):
            text, variables = argument
        else:
            text, variables = argument, {}
        _expect(text, str, path, "text, or [text, {variables}]")

        def value_of(match: re.Match) -> str:
            name = match.group(1).strip()
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return self._text(self.resolve(variables[name], f"{path}.1.{name}"), f"{path}.1.{name}")
            if "." in name:
                return self._text(self._get_att(name.split(".", 1), path), path)
            return self._text(self._ref(name, path), path)

        return _SUB_VARIABLE.sub(value_of, text)

    def _pair(self, argument: Any, path: str, usage: str) -> list:
        argument = self.resolve(argument, path)
        if not (isinstance(argument, list) and len(argument) == 2):
            raise _problem(path, f"expected {usage}")
        return argument

    def _join(self, argument: Any, path: str) -> str:
        delimiter, items = self._pair(argument, path, "[delimiter, [values]]")
        _expect(delimiter, str, f"{path}.0", "the delimiter")
        _expect(items, list, f"{path}.1", "a list of values")
        return delimiter.join(self._text(item, f"{path}.1.{position}") for position, item in enumerate(items))

    def _select(self, argument: Any, path: str) -> Any:
        index, items = self._pair(argument, path, "[index, [values]]")
        _expect(items, list, f"{path}.1", "a list of values")
        if not str(index).isdigit() or int(index) >= len(items):
            raise _problem(f"{path}.0", f"no item {index!r} in a list of {len(items)}")
        return items[int(index)]

    def _split(self, argument: Any, path: str) -> list[str]:
        delimiter, text = self._pair(argument, path, "[delimiter, text]")
        _expect(delimiter, str, f"{path}.0", "the delimiter")
        return self._text(text, f"{path}.1").split(delimiter)

    def _if(self, argument: Any, path: str) -> Any:
        if not (isinstance(argument, list) and len(argument) == 3):
            raise _problem(path, "expected [condition name, value if true, value if false]")
        branch = 1 if self._truth_of(argument[0], f"{path}.0") else 2
        return self.resolve(argument[branch], f"{path}.{branch}")

    def _equals(self, argument: Any, path: str) -> bool:
        first, second = self._pair(argument, path, "[value, value]")
        return _comparable(first) == _comparable(second)

    def _not(self, argument: Any, path: str) -> bool:
        _expect(argument, list, path, "[condition]")
        if len(argument) != 1:
            raise _problem(path, "expected [condition]")
        return not self._truth(argument[0], f"{path}.0")

    def _all_or_any(self, combine: Callable, argument: Any, path: str) -> bool:
        _expect(argument, list, path, "a list of conditions")
        return combine([self._truth(condition, f"{path}.{position}") for position, condition in enumerate(argument)])

    def _find_in_map(self, argument: Any, path: str) -> Any:
        argument = self.resolve(argument, path)
        if not (isinstance(argument, list) and len(argument) == 3):
            raise _problem(path, "expected [map, top-level key, second-level key]")
        value: Any = self.maps
        for depth, key in enumerate(argument):
            key = self._text(key, f"{path}.{depth}")
            if not isinstance(value, dict) or key not in value:
                raise _problem(f"{path}.{depth}", f"no {key!r} in Mappings.{'.'.join(map(str, argument[:depth]))}".rstrip("."))
            value = value[key]
        return value

    def _base64(self, argument: Any, path: str) -> str:
        return base64.b64encode(self._text(self.resolve(argument, path), path).encode()).decode()

    def _get_azs(self, argument: Any, path: str) -> list[str]:
        region = self.resolve(argument, path) or self.pseudo["AWS::Region"]
        return [f"{self._text(region, path)}{zone}" for zone in "abc"]

    def _import_value(self, argument: Any, path: str) -> Any:
        raise _problem(path, "values exported by other stacks are not available: Eddy reads this template alone")

    def _truth(self, expression: Any, path: str) -> bool:
        if isinstance(expression, dict) and list(expression) == ["Condition"]:
            return self._truth_of(expression["Condition"], f"{path}.Condition")
        value = self.resolve(expression, path)
        if not isinstance(value, bool):
            raise _problem(path, "a condition is Fn::Equals, Fn::Not, Fn::And, Fn::Or or {Condition: name}, "
                                 f"not {_describe(value)}")
        return value

    def _truth_of(self, name: Any, path: str) -> bool:
        """The value of the condition `name` of Conditions."""
        if not isinstance(name, str) or name not in self.conditions:
            raise _problem(path, f"no condition {name!r} in Conditions")
        if name not in self.truths:
            if name in self.weighing:
                raise _problem(path, f"condition {name!r} depends on itself")
            self.weighing.add(name)
            try:
                self.truths[name] = self._truth(self.conditions[name], f"Conditions.{name}")
            except _Problems as problems:
                raise _Problems(*((path, f"condition {name!r} cannot be evaluated: {where}: {message}")
                                  for where, message in problems.places)) from None
            finally:
                self.weighing.discard(name)
        return self.truths[name]

    # -- tables

    def _table(self, logical_id: str, props: dict, at: str) -> None:
        name = self.name_of(logical_id, at)
        definitions, origins = self._attribute_definitions(props, at)
        key = self._key(self.get(props, "KeySchema", at), definitions, f"{at}.KeySchema")
        entry: dict[str, Any] = {"key": key, "attributes": {n: kind for n, kind in definitions.items() if n not in key}}
        origins |= {(): at, ("key",): f"{at}.KeySchema"} | {("key", n): origins[("attributes", n)] for n in key}
        billing, throughput = self.get(props, "BillingMode", at), self.get(props, "ProvisionedThroughput", at)
        if billing is not None or throughput is not None:
            entry["billing"], origins[("billing",)] = billing or "PROVISIONED", f"{at}.BillingMode"
        if throughput is not None and entry["billing"] == "PROVISIONED":
            _expect(throughput, dict, f"{at}.ProvisionedThroughput", "a mapping")
            for units, field in (("ReadCapacityUnits", "read_capacity"), ("WriteCapacityUnits", "write_capacity")):
                if units in throughput:
                    entry[field], origins[(field,)] = throughput[units], f"{at}.ProvisionedThroughput.{units}"
        stream = self.get(props, "StreamSpecification", at)
        if stream is not None:
            entry["stream"] = _expect(stream, dict, f"{at}.StreamSpecification", "a mapping").get("StreamViewType")
            origins[("stream",)] = f"{at}.StreamSpecification.StreamViewType"
        ttl = self.get(props, "TimeToLiveSpecification", at)
        if ttl is not None and _expect(ttl, dict, f"{at}.TimeToLiveSpecification", "a mapping").get("Enabled") in (True, "true"):
            entry["ttl"], origins[("ttl",)] = ttl.get("AttributeName"), f"{at}.TimeToLiveSpecification.AttributeName"
        indexes = self.get(props, "GlobalSecondaryIndexes", at)
        if indexes is not None:
            entry["indexes"] = [self._index(index, definitions, f"{at}.GlobalSecondaryIndexes.{position}",
                                            ("indexes", position), origins)
                                for position, index in enumerate(_expect(indexes, list, f"{at}.GlobalSecondaryIndexes", "a list"))]
        if "LocalSecondaryIndexes" in props:
            self.unsupported.append(f"{logical_id} (AWS::DynamoDB::Table): LocalSecondaryIndexes: {_UNSUPPORTED} "
                                    "(the table is made without them)")
        self._validated(Table, entry, origins)
        self._add(self.stack["tables"], name, "table", at)
        self.stack["tables"][name] = entry

    def _attribute_definitions(self, props: dict, at: str) -> tuple[dict[str, str], _Origins]:
        path = f"{at}.AttributeDefinitions"
        definitions, origins = {}, {("attributes",): path}
        for position, definition in enumerate(_expect(self.get(props, "AttributeDefinitions", at) or [], list, path, "a list")):
            where = f"{path}.{position}"
            _expect(definition, dict, where, "{AttributeName, AttributeType}")
            name = _expect(definition.get("AttributeName"), str, f"{where}.AttributeName", "an attribute name")
            definitions[name] = definition.get("AttributeType")
            origins[("attributes", name)] = f"{where}.AttributeType"
        return definitions, origins

    def _key(self, schema: Any, definitions: dict[str, str], path: str) -> dict[str, str]:
        """{partition key: type, sort key: type} from a KeySchema, typed by the AttributeDefinitions."""
        roles = {}
        for position, part in enumerate(_expect(schema, list, path, "a list of {AttributeName, KeyType}")):
            where = f"{path}.{position}"
            _expect(part, dict, where, "{AttributeName, KeyType}")
            name = _expect(part.get("AttributeName"), str, f"{where}.AttributeName", "an attribute name")
            if part.get("KeyType") not in ("HASH", "RANGE"):
                raise _problem(f"{where}.KeyType", f"expected HASH or RANGE, got {part.get('KeyType')!r}")
            if name not in definitions:
                raise _problem(f"{where}.AttributeName", f"{name!r} is not among the AttributeDefinitions")
            roles[name] = part["KeyType"]
        order = sorted(roles, key=lambda name: roles[name] != "HASH")
        if [roles[name] for name in order] not in (["HASH"], ["HASH", "RANGE"]):
            raise _problem(path, "a key is one HASH attribute and at most one RANGE attribute")
        return {name: definitions[name] for name in order}

    def _index(self, index: Any, definitions: dict[str, str], path: str, place: tuple, origins: _Origins) -> dict:
        _expect(index, dict, path, "{IndexName, KeySchema, Projection}")
        entry = {"name": index.get("IndexName"), "key": self._key(index.get("KeySchema"), definitions, f"{path}.KeySchema")}
        origins |= {place: path, place + ("name",): f"{path}.IndexName", place + ("key",): f"{path}.KeySchema"}
        projection = _expect(index.get("Projection") or {}, dict, f"{path}.Projection", "a mapping")
        for prop, field in (("ProjectionType", "projection"), ("NonKeyAttributes", "non_key_attributes")):
            if prop in projection:
                entry[field], origins[place + (field,)] = projection[prop], f"{path}.Projection.{prop}"
        return entry

    # -- functions

    def _function(self, logical_id: str, resource_type: str, props: dict, at: str, later: list[Callable[[], None]]) -> None:
        name = self.name_of(logical_id, at)
        entry: dict[str, Any] = {}
        origins: _Origins = {(): at}
        reason = self._code(props, at, resource_type == _SAM_FUNCTION, entry, origins)
        runtime = self.get(props, "Runtime", at)
        if reason is None and isinstance(runtime, str) and runtime not in RUNTIMES:
            reason = f"Runtime {runtime}: Eddy runs {', '.join(RUNTIMES)} functions"
        if reason is not None:
            self.unsupported.append(f"{logical_id} ({resource_type}): {reason}")
            self.skipped_functions.add(name)
            return
        self._copy(props, _FUNCTION_PROPERTIES, entry, origins, at)
        environment = self.get(props, "Environment", at)
        if environment is not None:
            path = f"{at}.Environment.Variables"
            variables = _expect(_expect(environment, dict, f"{at}.Environment", "{Variables: {...}}").get("Variables") or {},
                                dict, path, "a mapping of names to values")
            entry["environment"] = {key: self._text(value, f"{path}.{key}") for key, value in variables.items()}
            origins[("environment",)] = path
        self._validated(Function, entry, origins)
        self._add(self.stack["functions"], name, "function", at)
        self.stack["functions"][name] = entry
        if resource_type == _SAM_FUNCTION:
            self._events(logical_id, name, props, at, later)

    def _code(self, props: dict, at: str, sam: bool, entry: dict, origins: _Origins) -> str | None:
        """Put a local code folder in the entry; or say why the function's code is out of Eddy's reach."""
        if self.get(props, "PackageType", at) == "Image":
            return "PackageType Image: container images are not supported; Eddy zips a local folder"
        if sam and "InlineCode" in props:
            return "InlineCode: inline code is not supported; give CodeUri as a local folder"
        prop = "CodeUri" if sam else "Code"
        code = self.get(props, prop, at)
        if isinstance(code, dict) and "ZipFile" in code:
            return f"{prop}.ZipFile: inline code is not supported; give {prop} as a local folder"
        if isinstance(code, dict) and "ImageUri" in code:
            return f"{prop}.ImageUri: container images are not supported; Eddy zips a local folder"
        if isinstance(code, dict) or isinstance(code, str) and code.startswith("s3://"):
            return f"{prop}: code in S3 is not supported; give {prop} as a local folder"
        if code is not None:
            entry["code"], origins[("code",)] = self._text(code, f"{at}.{prop}"), f"{at}.{prop}"
        return None

    def _events(self, logical_id: str, function: str, props: dict, at: str, later: list[Callable[[], None]]) -> None:
        events = _expect(props.get("Events") or {}, dict, f"{at}.Events", "a mapping of events")
        for event_id, event in events.items():
            path = f"{at}.Events.{event_id}"
            event_type = _expect(event, dict, path, "{Type, Properties}").get("Type")
            if event_type != "DynamoDB":
                self.unsupported.append(f"{logical_id} ({_SAM_FUNCTION}): Events.{event_id} (Type {event_type}): {_UNSUPPORTED}")
                continue
            event_props = _expect(event.get("Properties") or {}, dict, f"{path}.Properties", "a mapping")
            later.append(partial(self._sam_event, function, event_props, f"{path}.Properties"))

    # -- mappings

    def _sam_event(self, function: str, props: dict, at: str) -> None:
        source = self._source(self.get(props, "Stream", at), f"{at}.Stream")
        if source is None:
            raise _problem(f"{at}.Stream", "expected a DynamoDB stream: !GetAtt Table.StreamArn or a stream ARN")
        self._mapping(function, source, props, at)

    def _event_source_mapping(self, logical_id: str, props: dict, at: str) -> None:
        resource_type = "AWS::Lambda::EventSourceMapping"
        function = _expect(self.get(props, "FunctionName", at), str, f"{at}.FunctionName", "a function")
        matched = _FUNCTION_ARN.match(function)
        function = matched.group(1) if matched else function
        if function in self.skipped_functions:
            self.unsupported.append(f"{logical_id} ({resource_type}): its function {function!r} is not supported (listed)")
            return
        if function not in self.stack["functions"]:
            raise _problem(f"{at}.FunctionName", f"no function {function!r} in this template")
        arn = self.get(props, "EventSourceArn", at)
        source = self._source(arn, f"{at}.EventSourceArn")
        if source is None:
            self.unsupported.append(f"{logical_id} ({resource_type}): EventSourceArn {arn}: not a DynamoDB stream, "
                                    "and Eddy's mappings read table streams")
            return
        self._mapping(function, source, props, at)

    def _source(self, value: Any, path: str) -> dict[str, str] | None:
        """{table: name} or {stream_arn: arn}; None for what is not a DynamoDB stream."""
        if isinstance(value, _StreamOf):
            table = self.stack["tables"].get(value.table)
            if table is None:
                raise _problem(path, f"table {value.logical_id} is not usable (see its own problem)")
            if not table.get("stream"):
                raise _problem(path, f"table {value.logical_id} has no StreamSpecification")
            return {"table": value.table}
        if isinstance(value, str) and _STREAM_ARN.match(value):
            return {"stream_arn": value}
        return None

    def _mapping(self, function: str, source: dict[str, str], props: dict, at: str) -> None:
        entry: dict[str, Any] = {"function": function, **source}
        origins: _Origins = {(): at}
        self._copy(props, _MAPPING_PROPERTIES, entry, origins, at)
        criteria = self.get(props, "FilterCriteria", at)
        if criteria is not None:
            path = f"{at}.FilterCriteria.Filters"
            filters = _expect(_expect(criteria, dict, f"{at}.FilterCriteria", "{Filters: [...]}").get("Filters") or [],
                              list, path, "a list of {Pattern}")
            entry["filters"] = [self._pattern(item, f"{path}.{position}") for position, item in enumerate(filters)]
            origins |= {("filters",): path} | {("filters", position): f"{path}.{position}.Pattern" for position in range(len(filters))}
        destinations = self.get(props, "DestinationConfig", at)
        if destinations is not None:
            path = f"{at}.DestinationConfig.OnFailure"
            on_failure = _expect(destinations, dict, f"{at}.DestinationConfig", "{OnFailure: {Destination}}").get("OnFailure")
            if on_failure is not None:
                entry["on_failure"] = self._destination(_expect(on_failure, dict, path, "{Destination}"), path)
                origins[("on_failure",)] = f"{path}.Destination"
        self._validated(Mapping, entry, origins)
        self.stack["mappings"].append(entry)

    def _pattern(self, item: Any, path: str) -> Any:
        pattern = _expect(item, dict, path, "{Pattern: ...}").get("Pattern")
        if isinstance(pattern, str):
            try:
                pattern = json.loads(pattern)
            except json.JSONDecodeError as error:
                raise _problem(f"{path}.Pattern", f"not a JSON filter pattern: {error}") from None
        return _expect(pattern, dict, f"{path}.Pattern", "a filter pattern (a JSON object)")

    def _destination(self, on_failure: dict, path: str) -> dict[str, str]:
        """{queue|topic|bucket: name} for a destination of the template, {arn: ...} for any other."""
        target = _expect(on_failure.get("Destination"), str, f"{path}.Destination", "an ARN or a queue, topic or bucket")
        hint = _DESTINATION_TYPES.get(on_failure.get("Type"))
        kinds = [kind for kind in ("queue", "topic", "bucket") if hint in (None, kind)]
        if target.startswith("arn:"):
            ours = {self.arn(kind, name): (kind, name) for kind in kinds for name in self.stack[kind + "s"]}
            kind, name = ours.get(target, ("arn", target))
            return {kind: name}
        named = [kind for kind in kinds if target in self.stack[kind + "s"]]
        if len(named) != 1:
            raise _problem(f"{path}.Destination", f"{target!r} is neither an ARN nor the name of one queue, topic or "
                                                  "bucket of this template")
        return {named[0]: target}


def stack_from_template(document: Any, source: str = "template", base_dir: Path = Path("."),
                        pseudo: dict[str, str] | None = None) -> Stack:
    """The stack a SAM / CloudFormation template declares, as far as Eddy supports it (see `stack.unsupported`).

    `pseudo` overrides the pseudo parameters: {"AWS::Region": ..., "AWS::AccountId": ..., "AWS::Partition": ...,
    "AWS::StackName": ...}; a given region becomes the stack's region.
    """
    if not isinstance(document, dict):
        raise StackError(f"{source}: a template is a mapping with Resources")
    pseudo = dict(pseudo or {})
    unknown = set(pseudo) - {*_PSEUDO, "AWS::StackName"}
    if unknown:
        raise ValueError(f"not pseudo parameters Eddy sets: {', '.join(sorted(unknown))}")
    template = _Template(document, source, pseudo)
    plain = template.convert()
    if "AWS::Region" in pseudo:
        plain["region"] = pseudo["AWS::Region"]
    stack = parse_stack(plain, source, base_dir)
    stack.unsupported = template.unsupported
    return stack
