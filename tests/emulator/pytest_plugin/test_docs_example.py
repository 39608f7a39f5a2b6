"""docs/guides/pytest-plugin.md's first test file and its stack, run as the page writes them, in a project of their
own on a machine without AWS configuration."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[3] / "docs" / "guides" / "pytest-plugin.md"


def example(name: str) -> str:
    """The page's ```text block whose first line is `# <name>`."""
    blocks = re.findall(r"```text\n(.*?)```", PAGE.read_text(), flags=re.S)
    return next(block for block in blocks if block.startswith(f"# {name}\n"))


def test_the_pages_first_test_passes_as_written(pytester: pytest.Pytester, unconfigured: None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (pytester.path / "test_orders.py").write_text(example("test_orders.py"))
    (pytester.path / "stack.yaml").write_text(example("stack.yaml"))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "eddy", "-p", "no:cacheprovider", "test_orders.py", timeout=600)
    result.assert_outcomes(passed=2)
