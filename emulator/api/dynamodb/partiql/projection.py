"""A SELECT's projection applied to an item: a path ending in a name is that name's value under its own name, as
PartiQL names a path's column (`SELECT mymap.nested` -> {"nested": ...}: the AWS-run conformance suite
nubo-db/dynamodb-conformance, tests/tier2/partiql/executeStatement.test.ts "SELECT with nested map path"); a path
ending in a list index kept at its place as a ProjectionExpression keeps it (`l[1]` -> {"l": {"L": [<element 1>]}},
AWS's answer for those not recorded); paths that lead nowhere left out."""

from __future__ import annotations

from typing import Any

from eddy.emulator.api.dynamodb.partiql.tree import Path
from eddy.emulator.moto_seam.conditions import project_paths, value_at


def project(item: dict[str, Any], paths: tuple[Path, ...]) -> dict[str, Any]:
    named, placed = {}, []
    for path in paths:
        if len(path.elements) > 1 and isinstance(path.elements[-1], str):
            found = value_at(item, path.elements)
            if found is not None:
                named[path.elements[-1]] = found
        else:
            placed.append(path.elements)
    return {**project_paths(item, placed), **named}
