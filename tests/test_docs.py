"""The docs tell the truth: every ```python block of README.md and docs/**/*.md runs as written, and the site
builds with `mkdocs build --strict` (a broken link, an unknown anchor or a page missing from the nav fails).

A block that talks to a server names it `http://127.0.0.1:4566`, as a user's would; the test runs it against a
real `eddy serve` on a free port (the `server_url` fixture) instead. What must not run is written as ```text,
```bash, ```yaml or ```sql. The outputs the docs quote are checked by tests/test_docs_outputs.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SPARK_PROCESSES, http_json

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
ENDPOINT = "http://127.0.0.1:4566"
MKDOCS_ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1")  # no banner about MkDocs 2 in the output

#: the site's pages, as issue 28 and the helpers documenting their work into them name them
PAGES = ["index.md", "getting-started.md", "performance.md", "ARCHITECTURE.md"] + [
    f"guides/{name}.md" for name in (
        "streams", "triggers", "kinesis", "functions-and-layers", "spark-jobs", "table-streams", "streaming-source",
        "stacks", "deploy", "dashboard", "durability", "pytest-plugin", "function-logs", "pipeline-triggers", "global-tables")
] + [f"reference/{name}.md" for name in ("settings", "cli", "controls", "aws-differences")]


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def fenced_blocks(path: Path, language: str) -> list[tuple[int, str]]:
    """(line number of the opening fence, code) of each top-level ```<language> block of a Markdown file."""
    blocks, lines, index = [], path.read_text().splitlines(), 0
    while index < len(lines):
        if lines[index].startswith("```"):
            opening, body = index, []
            index += 1
            while index < len(lines) and not lines[index].startswith("```"):
                body.append(lines[index])
                index += 1
            if lines[opening][3:].strip() == language:
                blocks.append((opening + 1, "\n".join(body) + "\n"))
        index += 1
    return blocks


EXAMPLES = {f"{path.relative_to(ROOT)}:{line}": code
            for path in markdown_files() for line, code in fenced_blocks(path, "python")}


def test_the_site_has_its_pages():
    assert [page for page in PAGES if not (DOCS / page).is_file()] == []


def test_the_readme_is_a_front_page_with_examples():
    readme = ROOT / "README.md"
    assert len(readme.read_text().splitlines()) <= 250
    assert len(fenced_blocks(readme, "python")) >= 2


def anchors(page: Path) -> set[str]:
    """The anchors MkDocs gives a page's headings (its toc extension's slugs)."""
    from markdown.extensions.toc import slugify

    headings = [line.lstrip("#").strip() for line in page.read_text().splitlines() if re.match(r"#{1,6} ", line)]
    return {slugify(heading, "-") for heading in headings}


def broken_links(page: Path) -> list[str]:
    """The relative links of a page outside the site (README.md) whose file or heading does not exist."""
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in anchors(file)):
            broken.append(target)
    return broken


def test_the_readme_links_to_pages_that_exist():
    """mkdocs checks the site's links; the README is outside the site, so its links are checked here."""
    assert broken_links(ROOT / "README.md") == []


def test_a_broken_readme_link_is_found(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# A page\n\n## Its section\n")
    readme = tmp_path / "README.md"
    readme.write_text("[ok](docs/page.md#its-section) [gone](docs/gone.md) [no such part](docs/page.md#nowhere) "
                      "[web](https://example.com/x)\n")
    assert broken_links(readme) == ["docs/gone.md", "docs/page.md#nowhere"]


def test_every_page_has_a_title():
    untitled = [str(path.relative_to(ROOT)) for path in markdown_files() if not path.read_text().startswith("# ")]
    assert untitled == []


@pytest.mark.parametrize("name", [
    # an example that starts Spark runs on the pytest-xdist worker of a group of Spark tests, in their SparkSession
    pytest.param(name, marks=[pytest.mark.xdist_group(SPARK_PROCESSES), pytest.mark.slow]) if "spark_session" in code
    else name
    for name, code in sorted(EXAMPLES.items())])
def test_example_runs(name, server_url):
    code = EXAMPLES[name].replace(ENDPOINT, server_url)
    if server_url in code:
        http_json(server_url + "/moto-api/reset", {})  # a fresh server, as a reader's own would be
    exec(compile(code, name, "exec"), {"__name__": "__docs_example__"})


def test_the_site_builds_strictly(tmp_path: Path):
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)], env=MKDOCS_ENV,
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "guides" / "streams" / "index.html").is_file()


def test_the_strict_build_fails_on_a_broken_link(tmp_path: Path):
    """The check above can fail: a page linking to a page that does not exist stops the build."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the missing page](missing.md).\n")
    config = re.sub(r"(?ms)^nav:.*", "", (ROOT / "mkdocs.yml").read_text())
    (tmp_path / "mkdocs.yml").write_text(config.replace("site_dir: build/site", f"site_dir: {tmp_path / 'site'}"))
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, env=MKDOCS_ENV,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    assert "missing.md" in result.stdout + result.stderr
