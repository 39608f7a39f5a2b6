"""A number as DynamoDB stores it, whatever way the request wrote it: `00042` is 42, `1.5E2` 150, `1.0` 1, `-0` 0,
`0.10` 0.1 (the AWS-recorded suite of issue 37: AWS reads those back as 42, 150, 1, 0; DynamoDB's developer guide,
"Number": "Leading and trailing zeroes are trimmed"). The door rewrites a request's numbers so before moto keeps
them, so items, keys, stream records and answers all show the stored form (attribute_values.py rewrites each
number it reads; validation.py's shortcut passes only numbers already written so). The rule itself is
moto_seam/dynamodb_rules.py's `stored_number`, which also writes the sums of ADD and SET's + and - so.
"""

from __future__ import annotations

from eddy.emulator.moto_seam.dynamodb_rules import stored_number as as_stored

__all__ = ["as_stored"]
