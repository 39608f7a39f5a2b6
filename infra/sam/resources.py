"""Tables, functions and event source mappings of a template, as stack entries."""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Callable

from eddy.emulator.functions.runtimes import RUNTIMES

from ..stack import Function, Mapping, Table
from .vocabulary import (
    _DESTINATION_TYPES,
    _FUNCTION_ARN,
    _FUNCTION_PROPERTIES,
    _MAPPING_PROPERTIES,
    _SAM_FUNCTION,
    _STREAM_ARN,
    _UNSUPPORTED,
    _expect,
    _Origins,
    _problem,
    _StreamOf,
)


class Resources:
    """The half of the converter that turns resources into stack entries; _Template supplies the rest."""

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
