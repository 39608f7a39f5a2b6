"""UpdateItem's legacy AttributeUpdates on moto's Item, as DynamoDB applies them (replacing
`Item.update_with_attribute_updates` while an emulator is active; all_or_nothing.py installs it).

moto's own PUT knows SS, NS, N, lists and maps and stores every other value as a string: a binary value became the
string of its base64 text, a BOOL the string "True", a binary set a list of raw values that no log or stream can
encode, and NULL removed the attribute. Its ADD and DELETE know no binary set, and its DELETE left an empty set
(which DynamoDB never stores). Here:
  - PUT stores the value as it was sent, whatever its type (moto's DynamoType, as PutItem stores it);
  - ADD of a number adds, ADD of a set (SS, NS, BS) is the union, created when the attribute is missing; an ADD or
    DELETE of another type than the stored attribute's is "Type mismatch for attribute to update" (dynalite's words);
  - DELETE without a value removes the attribute; DELETE of a set removes those values, and the attribute once its
    set is empty;
  - set members are compared as DynamoDB compares them: numbers by value ("1" and "1.0" are one member).
Anything else (ADD of a list, which moto appends) is moto's own.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Callable

from moto.dynamodb.exceptions import MockValidationException
from moto.dynamodb.models.dynamo_type import DynamoType, Item

SETS = ("SS", "NS", "BS")

original = Item.update_with_attribute_updates


def update_with_attribute_updates(self: Item, attribute_updates: dict[str, Any] | None) -> None:
    if not attribute_updates:
        return  # an UpdateItem of its key only
    for name, update in attribute_updates.items():
        action, value, stored = update.get("Action", "PUT"), update.get("Value"), self.attrs.get(name)
        if action in ("ADD", "DELETE") and value and stored is not None and stored.type not in value:
            raise MockValidationException("Type mismatch for attribute to update")
    for name, update in attribute_updates.items():
        action, value = update.get("Action", "PUT"), update.get("Value")
        if action == "PUT":
            self.attrs[name] = DynamoType(value)
        elif action == "DELETE" and not value:
            self.attrs.pop(name, None)
        elif (kind := next(iter(value))) in SETS and action in ("ADD", "DELETE"):
            _change_set(self, name, kind, value[kind], add=action == "ADD")
        else:
            original(self, {name: update})


def _change_set(item: Item, name: str, kind: str, members: list[str], *, add: bool) -> None:
    """A set attribute with `members` added or removed (each member once, as DynamoDB tells members apart)."""
    identity: Callable[[str], Any] = (lambda member: Decimal(member)) if kind == "NS" else (lambda member: member)
    stored = item.attrs.get(name)
    current = {identity(member): member for member in (stored.value if stored is not None else ())}
    for member in members:
        if add:
            current.setdefault(identity(member), member)
        else:
            current.pop(identity(member), None)
    if current:
        item.attrs[name] = DynamoType({kind: list(current.values())})
    else:
        item.attrs.pop(name, None)
