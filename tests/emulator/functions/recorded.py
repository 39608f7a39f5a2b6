"""Eddy's answers put in the form of AWS's recorded ones: LocalStack's AWS-validated snapshots
(github.com/localstack/localstack, tests/aws/services/lambda_/*.snapshot.json) keep AWS's answers with the values that
differ between runs replaced by placeholders, each numbered by its first appearance in the test (`<uuid:1>`,
`<code-sha256:2>`, `<resource:1>`), fixed values written as words ("date", "<code-size>"), and the account as
111111111111. `Recorded` makes the same replacements in Eddy's answers, so a test compares a whole answer with the
recorded one as it is written in the snapshot file."""

from __future__ import annotations

import re
from typing import Any

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
RUNTIME_VERSION = re.compile(r"^(arn:aws:lambda:us-east-1::runtime:)(.+)$")


class Recorded:
    """One test's replacements, numbered across all the answers it puts in the recorded form (in the order given)."""

    def __init__(self, *, function_names: tuple[str, ...] = (), resources: tuple[str, ...] = ()) -> None:
        self.numbers: dict[tuple[str, str], int] = {}
        self.function_names = function_names
        for resource in resources:  # named in the order the recording met them (a role before a runtime version)
            self._number("resource", resource)

    def _number(self, kind: str, value: str) -> str:
        key = (kind, value)
        if key not in self.numbers:
            self.numbers[key] = 1 + sum(1 for known in self.numbers if known[0] == kind)
        return f"<{kind}:{self.numbers[key]}>"

    def __call__(self, answer: Any, key: str = "") -> Any:
        if isinstance(answer, dict):
            return {k: self(v, k) for k, v in answer.items() if k != "ResponseMetadata"} | (
                {"ResponseMetadata": {"HTTPHeaders": {}, "HTTPStatusCode": answer["ResponseMetadata"]["HTTPStatusCode"]}}
                if "ResponseMetadata" in answer else {})
        if isinstance(answer, list):
            return [self(item, key) for item in answer]
        if not isinstance(answer, str):
            return "<code-size>" if key == "CodeSize" else answer
        if key == "LastModified":
            return "date"
        if key == "CodeSha256":
            return self._number("code-sha256", answer)
        if key == "Location":
            return "<location>"
        if UUID.match(answer):
            return self._number("uuid", answer)
        if match := RUNTIME_VERSION.match(answer):
            return f"arn:<partition>:lambda:<region>::runtime:{self._number('resource', match.group(2))}"
        return self._text(answer)

    def _text(self, text: str) -> str:
        text = text.replace("arn:aws:", "arn:<partition>:").replace(":us-east-1:", ":<region>:")
        text = text.replace("123456789012", "111111111111")
        for number, name in enumerate(self.function_names, 1):
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", f"<function-name:{number}>", text)
        return re.sub(r"(?<=:role/)[\w+=,.@-]+", lambda m: self._number("resource", m.group(0)), text)
