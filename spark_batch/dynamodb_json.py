"""DynamoDB JSON ({"pk": {"S": "a"}, "n": {"N": "1.5"}, ...}: streams, the change log, exports) as Spark types.

| DynamoDB | Spark |
| --- | --- |
| S | string |
| N | decimal(38, s), s = the most fractional digits seen (a string if the numbers do not fit 38 digits) |
| B | binary (base64 decoded) |
| BOOL | boolean |
| NULL | null, in a column of the attribute's other type (a string if it is only ever NULL) |
| SS, NS, BS | array<string>, array<decimal(38, s)>, array<binary> |
| L | array<T> when every element has the one type T; else array<string> of each element's DynamoDB JSON |
| M | struct<...> of its attributes, each decoded by these rules (an always-empty map: its DynamoDB JSON) |

An attribute whose values have different types in different items is a string column holding each value's
DynamoDB JSON. Decoding never loses anything: the raw DynamoDB JSON stays in the column it came from, and
a value that does not fit its column (a later item with another type) decodes to null there.

    item_type = infer_item_type(df, "new_image")       # one pass over the images
    df.select("new_image", item_type.decode("new_image").alias("item"))
    with_item_columns(df, "new_image")                 # every attribute as a top-level column
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Iterator

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    DecimalType,
    MapType,
    StringType,
    StructField,
    StructType,
)

MAX_PRECISION = 38

#: one AttributeValue, every member raw enough to decode further (L and M keep their JSON text)
ATTRIBUTE_VALUE = StructType(
    [
        StructField("S", StringType()),
        StructField("N", StringType()),
        StructField("B", StringType()),
        StructField("BOOL", BooleanType()),
        StructField("NULL", BooleanType()),
        StructField("SS", ArrayType(StringType())),
        StructField("NS", ArrayType(StringType())),
        StructField("BS", ArrayType(StringType())),
        StructField("L", StringType()),
        StructField("M", StringType()),
    ]
)
#: an item (or an M): attribute name -> that attribute's AttributeValue as JSON text
RAW_ITEM = MapType(StringType(), StringType())
_RAW_LIST = ArrayType(StringType())


class ValueType:
    """What one attribute's values look like across many items: their type tags, number sizes, members."""

    __slots__ = ("tags", "scale", "digits", "element", "fields")

    def __init__(
        self,
        tags: Iterable[str] = (),
        scale: int = 0,
        digits: int = 0,
        element: "ValueType | None" = None,
        fields: "dict[str, ValueType] | None" = None,
    ) -> None:
        self.tags = set(tags)
        self.scale, self.digits = scale, digits
        self.element = element
        self.fields = fields or {}

    @classmethod
    def of(cls, value: dict) -> "ValueType":
        """The type of one AttributeValue, e.g. {"N": "1.25"} or {"M": {...}}."""
        ((tag, member),) = value.items()
        described = cls({tag})
        if tag in ("N", "NS"):
            for number in [member] if tag == "N" else member:
                described.scale, described.digits = _widen(described.scale, described.digits, number)
        elif tag == "L":
            for element in member:
                described.element = merge(described.element, cls.of(element))
        elif tag == "M":
            described.fields = {name: cls.of(attribute) for name, attribute in member.items()}
        return described

    # -- Spark -------------------------------------------------------------------------------------

    @property
    def tag(self) -> str | None:
        """The one type tag of these values (NULLs aside); None when there are several, or only NULLs."""
        tags = self.tags - {"NULL"}
        return next(iter(tags)) if len(tags) == 1 else None

    def spark_type(self) -> DataType:
        tag = self.tag
        if tag == "S":
            return StringType()
        if tag in ("N", "NS"):
            number = self._number_type()
            return number if tag == "N" else ArrayType(number)
        if tag == "B":
            return BinaryType()
        if tag == "BOOL":
            return BooleanType()
        if tag == "SS":
            return ArrayType(StringType())
        if tag == "BS":
            return ArrayType(BinaryType())
        if tag == "L":
            return ArrayType(self.element.spark_type() if self.element else StringType())
        if tag == "M" and self.fields:
            return StructType([StructField(name, value.spark_type()) for name, value in sorted(self.fields.items())])
        return StringType()  # several types, only NULLs, or an always-empty M: the DynamoDB JSON itself

    def decode(self, raw: Column | str) -> Column:
        """A column of this type from a column of AttributeValue JSON text (for an item: the item's JSON)."""
        raw = F.col(raw) if isinstance(raw, str) else raw
        tag = self.tag
        if tag is None or (tag == "M" and not self.fields):
            return raw if self.tags - {"NULL"} else F.lit(None).cast(StringType())
        value = F.from_json(raw, ATTRIBUTE_VALUE)
        if tag in ("S", "BOOL", "SS"):
            return value[tag]
        if tag == "N":
            return value["N"].try_cast(self._number_type())
        if tag == "NS":
            return F.transform(value["NS"], lambda number: number.try_cast(self._number_type()))
        if tag == "B":
            return F.unbase64(value["B"])
        if tag == "BS":
            return F.transform(value["BS"], F.unbase64)
        if tag == "L":
            elements = F.from_json(value["L"], _RAW_LIST)
            return elements if self.element is None else F.transform(elements, self.element.decode)
        return self._struct(F.from_json(value["M"], RAW_ITEM))

    def _struct(self, attributes: Column) -> Column:
        members = F.struct(*[value.decode(attributes[name]).alias(name) for name, value in sorted(self.fields.items())])
        return F.when(attributes.isNotNull(), members)

    def _number_type(self) -> DataType:
        if self.digits > MAX_PRECISION:
            return StringType()
        return DecimalType(MAX_PRECISION, min(self.scale, MAX_PRECISION - self.digits))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form (from_dict reads it back), to keep a type between runs."""
        return {
            "tags": sorted(self.tags),
            "scale": self.scale,
            "digits": self.digits,
            "element": self.element.to_dict() if self.element else None,
            "fields": {name: value.to_dict() for name, value in sorted(self.fields.items())},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ValueType":
        element = data.get("element")
        return cls(
            data["tags"],
            data["scale"],
            data["digits"],
            ValueType.from_dict(element) if element else None,
            {name: ValueType.from_dict(value) for name, value in data["fields"].items()},
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ValueType) and all(getattr(self, a) == getattr(other, a) for a in self.__slots__)

    def __repr__(self) -> str:
        return f"ValueType({sorted(self.tags)}, scale={self.scale}, digits={self.digits}, fields={self.fields})"


class ItemType(ValueType):
    """The type of whole items: an M whose JSON is the item itself (no {"M": ...} around it)."""

    def __init__(self, fields: "dict[str, ValueType] | None" = None) -> None:
        super().__init__({"M"}, fields=fields or {})

    @classmethod
    def of_item(cls, item: dict | None) -> "ItemType":
        """The type of one item."""
        return cls({name: ValueType.of(value) for name, value in (item or {}).items()})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ItemType":
        return cls({name: ValueType.from_dict(value) for name, value in data["fields"].items()})

    @property
    def columns(self) -> list[str]:
        return sorted(self.fields)

    def spark_type(self) -> StructType:
        return StructType([StructField(name, value.spark_type()) for name, value in sorted(self.fields.items())])

    def decode(self, raw: Column | str) -> Column:
        return self._struct(F.from_json(F.col(raw) if isinstance(raw, str) else raw, RAW_ITEM))


def merge(left: ValueType | None, right: ValueType | None) -> ValueType | None:
    """One type that covers both (None: nothing seen yet)."""
    if left is None or right is None:
        return left or right
    merged = ItemType() if isinstance(left, ItemType) else ValueType()
    merged.tags = left.tags | right.tags
    merged.scale, merged.digits = max(left.scale, right.scale), max(left.digits, right.digits)
    merged.element = merge(left.element, right.element)
    merged.fields = {
        name: merge(left.fields.get(name), right.fields.get(name)) for name in left.fields.keys() | right.fields.keys()
    }
    return merged


def infer_item_type(df: DataFrame, column: str) -> ItemType:
    """The ItemType covering every item in `column` (DynamoDB JSON text; nulls are skipped): one pass."""
    summaries = df.select(column).where(F.col(column).isNotNull()).rdd.mapPartitions(_summarize).collect()
    found = ItemType()
    for summary in summaries:
        found = merge(found, summary)
    return found


def attribute_values(df: DataFrame, column: str, names: Iterable[str]) -> Column:
    """`df[column]` as a struct of the named attributes' ATTRIBUTE_VALUEs, whether the column holds DynamoDB
    JSON text or was parsed so in the scan already (io.read_change_log(attributes=...))."""
    if isinstance(df.schema[column].dataType, StringType):
        return F.from_json(column, StructType([StructField(name, ATTRIBUTE_VALUE) for name in dict.fromkeys(names)]))
    return F.col(column)


def with_item_columns(df: DataFrame, column: str, item_type: ItemType | None = None) -> DataFrame:
    """`df` with each attribute of the items in `column` as a top-level column (the raw JSON column stays)."""
    item_type = item_type or infer_item_type(df, column)
    clashes = sorted(set(item_type.columns) & set(df.columns))
    if clashes:
        raise ValueError(f"attribute names clash with the columns already there: {', '.join(clashes)}")
    return df.withColumn("__item", item_type.decode(column)).select(*df.columns, "__item.*")


def _summarize(rows: Iterator[Any]) -> Iterator[ItemType]:
    import json

    found = ItemType()
    for (text,) in rows:
        found = merge(found, ItemType.of_item(json.loads(text)))
    yield found


def _widen(scale: int, digits: int, text: str) -> tuple[int, int]:
    try:
        number = Decimal(text)
    except InvalidOperation:
        return scale, digits
    if not number.is_finite():
        return scale, digits
    exponent = number.as_tuple().exponent
    return max(scale, -exponent if exponent < 0 else 0), max(digits, number.adjusted() + 1 if number else 1)
