"""A number as DynamoDB stores it, whatever way the request wrote it: `00042` is 42, `1.5E2` 150, `1.0` 1, `-0` 0,
`0.10` 0.1 (the AWS-recorded suite of issue 37: AWS reads those back as 42, 150, 1, 0; DynamoDB's developer guide,
"Number": "Leading and trailing zeroes are trimmed"). The door rewrites a request's numbers so before moto keeps
them, so items, keys, stream records and answers all show the stored form (attribute_values.py rewrites each
number it reads; validation.py's shortcut passes only numbers already written so).
"""

from __future__ import annotations

from decimal import Context, Decimal

#: the longest plain form written out; a number whose plain form is longer (1e125, 1e-130) is kept as written:
#: how AWS writes those is not recorded
MAX_PLAIN = 40
#: exact for every number DynamoDB accepts (38 significant digits); Python's default context keeps 28 and would round
EXACT = Context(prec=38)


def as_stored(text: str) -> str:
    """`text` (a number DynamoDB accepts) as DynamoDB stores it."""
    value = Decimal(text).normalize(EXACT)
    if not value:
        return "0"
    plain = format(value, "f")
    return plain if len(plain) <= MAX_PLAIN else text
