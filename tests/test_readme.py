"""The README's Python examples run as written (the server example against a real `eddy serve`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_readme_example_runs(index, server_url):
    code = EXAMPLES[index].replace("http://127.0.0.1:4566", server_url)
    exec(compile(code, f"README.md example {index + 1}", "exec"), {})
