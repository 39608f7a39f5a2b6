"""tools/published_suites.py: LocalStack's tests taken from its git repository, run against `eddy serve`, counted.

A small repository made here stands in for LocalStack's (its layout: localstack-core/, requirements-test.txt,
tests/conftest.py, tests/aws/services/<service>/test_*.py with tests marked aws_validated), so nothing is fetched.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


@pytest.fixture
def published(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLS))
    import published.areas
    import published.counts
    import published.localstack
    import published_suites

    return published_suites


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


SNS_TESTS = '''
import os

import boto3
import pytest


def client():
    return boto3.client("sns", endpoint_url=os.environ["TEST_AWS_ENDPOINT_URL"], region_name="us-east-1",
                        aws_access_key_id="test", aws_secret_access_key="test")


@pytest.mark.aws_validated
def test_a_topic_is_listed_once_made():
    arn = client().create_topic(Name="published")["TopicArn"]
    assert {"TopicArn": arn} in client().list_topics()["Topics"]


@pytest.mark.aws_validated
def test_a_recorded_answer_eddy_does_not_give():
    assert client().list_topics()["Topics"] == []


def test_one_not_recorded_against_aws_is_not_run():
    raise AssertionError("not aws_validated")
'''


@pytest.fixture
def localstack(tmp_path) -> Path:
    """A git repository with LocalStack's layout, one commit."""
    repo = tmp_path / "localstack"
    files = {
        "requirements-test.txt": "boto3==1.0\n-e file:.\n",
        "pyproject.toml": '[tool.pytest.ini_options]\nmarkers = ["aws_validated"]\n',
        "localstack-core/localstack/__init__.py": "",
        "tests/__init__.py": "",
        "tests/conftest.py": "",
        "tests/aws/__init__.py": "",
        "tests/aws/conftest.py": "",
        "tests/aws/services/__init__.py": "",
        "tests/aws/services/sns/__init__.py": "",
        "tests/aws/services/sns/test_sns.py": SNS_TESTS,
        "tests/aws/services/ec2/test_ec2.py": "",  # a service no area counts: not taken
        "docs/README.md": "",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "layout")
    return repo


def _tree(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*") if path.is_file()}


def test_the_sources_taken_are_the_tests_and_localstacks_testing_library_only(published, localstack, tmp_path):
    from published.localstack import extract, resolve_commit

    commit = resolve_commit(localstack, "HEAD")
    target = extract(localstack, commit, tmp_path / "src")
    assert _tree(target) == {
        "requirements-test.txt", "pyproject.toml", "localstack-core/localstack/__init__.py",
        "localstack-core/localstack/version.py",
        "tests/__init__.py", "tests/conftest.py",
        "tests/aws/__init__.py", "tests/aws/conftest.py", "tests/aws/services/__init__.py",
        "tests/aws/services/sns/__init__.py", "tests/aws/services/sns/test_sns.py",
    }


def test_the_version_module_setuptools_scm_writes_at_install_is_written_from_the_last_tag(published, localstack,
                                                                                        tmp_path):
    from published.localstack import extract, resolve_commit

    _git(localstack, "tag", "v4.9.2")
    commit = resolve_commit(localstack, "HEAD")
    version = extract(localstack, commit, tmp_path / "src") / "localstack-core/localstack/version.py"
    assert version.read_text() == f"__version__ = version = '4.9.2'\n__commit_id__ = commit_id = '{commit}'\n"


def test_an_area_whose_tests_cannot_load_is_the_harness_failing_not_a_count(published, localstack, tmp_path):
    from peer.common import HarnessError
    from published.areas import Area
    from published.localstack import extract, resolve_commit

    sources = extract(localstack, resolve_commit(localstack, "HEAD"), tmp_path / "src")
    (sources / "tests/conftest.py").write_text("import localstack_testing_library_not_installed\n")
    area = Area("sns", "SNS", ("tests/aws/services/sns/test_sns.py",))
    args = argparse.Namespace(timeout=600, start_timeout=120, pytest_args=[])
    with pytest.raises(HarnessError) as failed:
        published.run_area(area, Path(sys.executable), sources, tmp_path, args)
    assert str(failed.value).startswith("sns: pytest exited 4 with no count:\n")
    assert "ModuleNotFoundError: No module named 'localstack_testing_library_not_installed'" in str(failed.value)


def test_a_repository_that_is_not_localstacks_is_refused(published, tmp_path):
    from published.localstack import SetupError, extract, resolve_commit

    repo = tmp_path / "other"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "conftest.py").write_text("")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "other")
    commit = resolve_commit(repo, "HEAD")
    with pytest.raises(SetupError) as refused:
        extract(repo, commit, tmp_path / "src")
    assert str(refused.value) == f"{repo} at {commit} has no localstack-core/: not LocalStack's repository"
    with pytest.raises(SetupError, match=r"no commit 'v0-missing'"):
        resolve_commit(repo, "v0-missing")


def test_areas_are_chosen_by_name_in_the_tables_order(published):
    from published.areas import AREAS, chosen

    assert chosen(None) == list(AREAS)
    assert [area.name for area in chosen(["sns", "patterns"])] == ["patterns", "sns"]
    with pytest.raises(ValueError) as refused:
        chosen(["sns", "s3"])
    assert str(refused.value).startswith("unknown area s3; known: patterns, sns, sns-filter-policies,")
    global_tables = chosen(["dynamodb-global-tables"])[0]
    assert global_tables.pytest_args() == [
        "tests/aws/services/dynamodb/test_dynamodb.py", "-m", "aws_validated", "-k", "global or stream or replica",
    ]


def test_an_area_runs_its_recorded_tests_against_a_fresh_eddy_serve_and_counts_them(published, localstack, tmp_path):
    """The whole path but the client virtualenv: this interpreter has pytest and boto3, as the venv would."""
    from published.areas import Area
    from published.localstack import extract, resolve_commit

    # under a project with a pytest configuration of its own (as .published/ is under Eddy's): the tests' ids, which
    # key their recorded snapshots, are still relative to LocalStack's root
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-p no:published"\n')
    sources = extract(localstack, resolve_commit(localstack, "HEAD"), tmp_path / "cache" / "src")
    area = Area("sns", "SNS", ("tests/aws/services/sns/test_sns.py",))
    args = argparse.Namespace(timeout=600, start_timeout=120, pytest_args=[])
    counted = published.run_area(area, Path(sys.executable), sources, tmp_path, args)

    prefix = "tests/aws/services/sns/test_sns.py::"
    assert counted["figures"] == {"passed": 1, "of": 2, "failed": 1}
    assert {nodeid: record["outcome"] for nodeid, record in counted["results"].items()} == {
        prefix + "test_a_topic_is_listed_once_made": "passed",
        prefix + "test_a_recorded_answer_eddy_does_not_give": "failed",
    }
    from published.counts import not_passing, table

    assert table([(counted["title"], counted["figures"])]) == textwrap.dedent("""\
        | area | passed | failed | errors | skipped |
        |---|---|---|---|---|
        | SNS | 1 of 2 | 1 | 0 | 0 |""")
    failed = prefix + "test_a_recorded_answer_eddy_does_not_give"
    message = counted["results"][failed]["message"]
    assert message.startswith("[call] AssertionError: assert [{'TopicArn':")
    assert not_passing(counted["results"]) == [f"failed   {failed}  {message[:160]}"]


def test_the_tally_counts_errors_and_leaves_skips_out_of_the_tests_that_ran(published):
    from published.counts import table, tally

    outcomes = ["passed", "xpassed", "failed", "error", "skipped", "xfailed", "collection_error"]
    figures = tally({f"t{i}": {"outcome": outcome} for i, outcome in enumerate(outcomes)})
    assert figures == {"passed": 2, "of": 5, "collection_error": 1, "error": 1, "failed": 1, "skipped": 1,
                       "xfailed": 1}
    assert table([("x", figures)]).splitlines()[2] == "| x | 2 of 5 | 1 | 2 | 2 |"


def test_an_area_that_cannot_be_counted_leaves_the_others_counted_and_the_exit_status_2(published, localstack,
                                                                                      tmp_path, monkeypatch, capsys):
    import json

    from published.areas import Area

    areas = [Area("missing", "a file the commit lacks", ("tests/aws/services/sns/test_gone.py",)),
             Area("sns", "SNS", ("tests/aws/services/sns/test_sns.py",))]
    monkeypatch.setattr(published, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(published, "chosen", lambda names: areas)
    monkeypatch.setattr(published, "client_venv", lambda venv, python, sources: Path(sys.executable))

    assert published.main(["--localstack", str(localstack)]) == 2
    out = capsys.readouterr().out
    assert "| SNS | 1 of 2 | 1 | 0 | 0 |" in out
    assert "\nmissing: not counted: missing: this LocalStack commit has no tests/aws/services/sns/test_gone.py\n" in out
    (report,) = (tmp_path / "cache").glob("*/results.json")
    figures = json.loads(report.read_text())
    assert (sorted(figures["areas"]), sorted(figures["not_run"])) == (["sns"], ["missing"])
    assert figures["areas"]["sns"]["figures"] == {"passed": 1, "of": 2, "failed": 1}
