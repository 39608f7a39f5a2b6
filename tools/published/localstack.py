"""LocalStack's tests and the interpreter that runs them, made from a LocalStack git repository (nothing is fetched
at test time: the repository is one you cloned or mirrored; PyPI gives the packages its test fixtures import).

The sources are LocalStack's own and are kept in the git-ignored cache only (``.published/``), never in Eddy's tree.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

# What the tests and their fixtures need from LocalStack's repository at that commit.
SOURCES = (
    "requirements-test.txt",  # LocalStack's pinned versions, used as pip constraints
    "pyproject.toml",  # its pytest configuration: the root the snapshots' keys (test ids) are relative to
    "localstack-core",  # localstack.testing's fixtures, the snapshot transformers and their imports
    "tests/__init__.py",
    "tests/conftest.py",  # the pytest plugins LocalStack's suites load
    "tests/aws/__init__.py",
    "tests/aws/conftest.py",
    "tests/aws/files",
    "tests/aws/templates",
    "tests/aws/services/__init__.py",
    # the services counted and those whose helpers their tests import
    *(f"tests/aws/services/{name}" for name in (
        "dynamodb", "dynamodbstreams", "events", "firehose", "kinesis", "lambda_", "s3", "sns", "sqs",
    )),
    "tests/aws/scenario/__init__.py",
    "tests/aws/scenario/kinesis_firehose",
)

# The packages localstack.testing's fixtures and the counted tests import, without LocalStack's runtime (no moto
# server, no Docker client in use): each installed at the version requirements-test.txt pins (aws-cdk-lib: the
# destinations tests deploy their resources as a CDK app, through Eddy's CloudFormation).
CLIENT_PACKAGES = (
    "asn1crypto", "aws-cdk-lib", "boto3", "botocore", "cachetools", "cbor2", "click", "cryptography", "dill",
    "crontab", "dnslib", "dnspython",
    "docker", "hypercorn", "jinja2", "json5", "jsonpatch", "jsonpath-ng", "jsonpointer", "jsonschema",
    "localstack-snapshot", "localstack-twisted", "moto-ext", "openapi-core", "plux", "psutil", "pydantic",
    "pymongo", "kclpy-ext",  # test_dynamodb.py imports LocalStack's DynamoDB Streams provider: bson and amazon_kclpy
    "pyopenssl", "pytest", "pytest-httpserver", "pytest-rerunfailures", "python-dateutil", "python-dotenv", "pyyaml",
    "readerwriterlock", "requests", "requests-aws4auth", "rich", "rolo", "semver", "urllib3", "werkzeug",
    "xmltodict",
)
# LocalStack's code uses PEP 695 generics (`def f[T: ...]`), so its tests need Python 3.12 or later.
MIN_PYTHON = (3, 12)


class SetupError(Exception):
    """The LocalStack tests could not be made ready (exit status 2)."""


def resolve_commit(git_dir: Path, revision: str) -> str:
    try:
        out = subprocess.run(
            ["git", "--git-dir", str(_git_dir(git_dir)), "rev-parse", "--verify", f"{revision}^{{commit}}"],
            check=True, capture_output=True, text=True,
        )
    except subprocess.CalledProcessError as exc:
        raise SetupError(f"{git_dir}: no commit {revision!r}: {exc.stderr.strip()}") from exc
    return out.stdout.strip()


def extract(git_dir: Path, commit: str, target: Path) -> Path:
    """SOURCES at `commit` written under `target` (made afresh); the paths the commit lacks are left out."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    present = _present(git_dir, commit)
    with tempfile.TemporaryFile() as archive:
        subprocess.run(
            ["git", "--git-dir", str(_git_dir(git_dir)), "archive", "--format=tar", commit, *present],
            check=True, stdout=archive,
        )
        archive.seek(0)
        with tarfile.open(fileobj=archive) as tar:
            tar.extractall(target, filter="data")
    # localstack/version.py is written by setuptools-scm at install time; the tests import it
    version = _release(git_dir, commit)
    (target / "localstack-core" / "localstack" / "version.py").write_text(
        f"__version__ = version = {version!r}\n__commit_id__ = commit_id = {commit!r}\n", encoding="utf-8"
    )
    return target


def _release(git_dir: Path, commit: str) -> str:
    """The last release tag before `commit` (v4.9.2 -> 4.9.2), 0.0.0 where the repository has none."""
    described = subprocess.run(
        ["git", "--git-dir", str(_git_dir(git_dir)), "describe", "--tags", "--abbrev=0", commit],
        capture_output=True, text=True,
    )
    return described.stdout.strip().lstrip("v") if described.returncode == 0 else "0.0.0"


def _present(git_dir: Path, commit: str) -> list[str]:
    out = subprocess.run(
        ["git", "--git-dir", str(_git_dir(git_dir)), "ls-tree", "--name-only", commit, "--", *SOURCES],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    if "localstack-core" not in out:
        raise SetupError(f"{git_dir} at {commit} has no localstack-core/: not LocalStack's repository")
    return out


def _git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").exists() else path


def client_venv(venv: Path, python: str, sources: Path) -> Path:
    """A virtualenv at `venv` with CLIENT_PACKAGES (pinned by `sources`' requirements-test.txt) and `sources`'
    localstack-core on its path; made once, then reused (the packages installed again when the list changes).
    Returns its interpreter."""
    interpreter = venv / "bin" / "python"
    ready = venv / ".ready"
    wanted = " ".join(CLIENT_PACKAGES)
    if not ready.exists() or ready.read_text(encoding="utf-8") != wanted:  # new, or the list of packages changed
        _check_python(python)
        if not interpreter.exists():
            subprocess.run([python, "-m", "venv", str(venv)], check=True)
        constraints = venv / "constraints.txt"
        pins = (sources / "requirements-test.txt").read_text(encoding="utf-8").splitlines()
        constraints.write_text(
            "\n".join(line for line in pins if not line.startswith("-e") and "localstack-core" not in line) + "\n",
            encoding="utf-8",
        )
        result = subprocess.run(
            [str(interpreter), "-m", "pip", "install", "-q", "-c", str(constraints), *CLIENT_PACKAGES]
        )
        if result.returncode:
            raise SetupError(f"pip could not install LocalStack's test packages into {venv}")
        ready.write_text(wanted, encoding="utf-8")
    site = subprocess.run(
        [str(interpreter), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    (Path(site) / "localstack_sources.pth").write_text(str(sources / "localstack-core") + "\n", encoding="utf-8")
    return interpreter


def _check_python(python: str) -> None:
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"], check=True, capture_output=True, text=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SetupError(f"{python}: cannot run it ({exc}); give --python a Python 3.12 or later") from exc
    if tuple(int(part) for part in out) < MIN_PYTHON:
        raise SetupError(
            f"{python} is Python {'.'.join(out)}; LocalStack's tests need {'.'.join(map(str, MIN_PYTHON))} or later "
            "(give --python)"
        )


def default_python() -> str:
    for name in ("python3.13", "python3.12", "python3.14"):
        found = shutil.which(name)
        if found and subprocess.run([found, "-c", ""], capture_output=True).returncode == 0:
            return found
    return sys.executable
