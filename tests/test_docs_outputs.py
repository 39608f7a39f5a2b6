"""The outputs the docs quote are what Eddy prints.

A quoted output in README.md or docs/**/*.md is a ```text block right after a line
`<!-- output checked by tests/test_docs.py: NAME -->`. This module makes each NAME's output the way a user
would (the example stack served as `make run` serves it, a put, `eddy tail`, `eddy up`; for `the example above, on
stdout` or `on stderr`, the page's last ```python block before the quote, run as a script) and checks the block
against it, line by line and in order:

- a line `...` stands for any number of lines, and `...` inside a line for any text;
- what changes from run to run is compared by its form only: times and dates, shard ids, the first part of a
  mapping's UUID in parentheses, 21-digit sequence numbers, durations in ms;
- `http://127.0.0.1:4566` is the test server's URL.
Everything else (counts such as `22 created`, names, words) must be exactly as quoted.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from typing import Callable, Iterator

import boto3
import pytest

from tests.test_docs import ENDPOINT, ROOT, fenced_blocks, markdown_files

MARKER = re.compile(r"<!-- output checked by tests/test_docs\.py: (.+?) -->\n```text\n(.*?)```", re.S)
VOLATILE = [
    (r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?", "<date and time>"),
    (r"\b\d{2}:\d{2}:\d{2}\b", "<time>"),
    (r"shardId-\d+-[0-9a-f]+", "<shard id>"),
    (r"\([0-9a-f]{8}\)", "(<mapping id>)"),
    (r"\b\d{21}\b", "<sequence number>"),
    (r"\b\d+(?:\.\d+)? ms\b", "<duration>"),
]
WAIT = 120  # seconds: a bound for a condition that normally holds within a second, so a busy machine passes
#: one pytest-xdist worker for the module: `outputs` (a served stack, eddy up, eddy tail: about 8 s of CPU) is made
#: once, not once on each worker that gets one of its tests
pytestmark = pytest.mark.xdist_group("docs-outputs")


EXAMPLE_ABOVE = re.compile(r"the example above, on (stdout|stderr)")


def quoted_outputs() -> dict[str, tuple[str, str]]:
    """`file:NAME` -> (NAME, the quoted text) for every checked block of the docs."""
    return {f"{path.relative_to(ROOT)}:{match[1]}": (match[1], match[2])
            for path in markdown_files() for match in MARKER.finditer(path.read_text())}


def example_above(place: str) -> str:
    """The last ```python block of the page before the quote at `place` (file:NAME)."""
    path = ROOT / place.split(":")[0]
    text = path.read_text()
    line = text[:text.index(f"output checked by tests/test_docs.py: {place.split(':', 1)[1]}")].count("\n") + 1
    return [code for opening, code in fenced_blocks(path, "python") if opening < line][-1]


def normalized(line: str) -> str:
    for pattern, form in VOLATILE:
        line = re.sub(pattern, form, line)
    return line.rstrip()


def line_matches(quoted: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in normalized(quoted).split("..."))
    return re.fullmatch(pattern, normalized(actual)) is not None


def unmatched(quoted: str, actual: str) -> str | None:
    """The first quoted line the actual output does not have (in order), or None when the whole quote holds."""
    lines, position, skipping = actual.splitlines(), 0, False
    for line in quoted.splitlines():
        if line.strip() == "...":
            skipping = True
            continue
        while position < len(lines) and not line_matches(line, lines[position]) and skipping:
            position += 1
        if position == len(lines) or not line_matches(line, lines[position]):
            return line
        position, skipping = position + 1, False
    return None


class ServerOutput:
    """What a server subprocess prints, collected by a thread, so a test can wait for a line."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self.thread.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()

    def wait_for(self, found: Callable[[str], bool]) -> int:
        """The index of the first line for which `found` holds, once printed."""
        deadline = time.monotonic() + WAIT
        with self.changed:
            while True:
                for index, line in enumerate(self.lines):
                    if found(line):
                        return index
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("not printed; the server printed:\n" + "\n".join(self.lines[-50:]))
                self.changed.wait(left)


def wait_until(condition: Callable[[], object]) -> object:
    deadline = time.monotonic() + WAIT
    while not (value := condition()):
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)
    return value


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """`make run`'s server (the example stack, state in .eddy/ of its working directory), then what a user does."""
    work = tmp_path_factory.mktemp("first-run")
    (work / "infra").symlink_to(ROOT / "infra")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    process = subprocess.Popen([sys.executable, "-m", "eddy", "serve", "--port", "0", "--state-dir", ".eddy",
                                "--housekeeping-interval", "0", "--stack", "infra/examples/stack.yaml"],
                               cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        printed = ServerOutput(process)
        banner_end = printed.wait_for(lambda line: line.strip().startswith("dashboard:"))
        # the banner, after recovery's log lines (one per service restored, or "recovered nothing: ...")
        banner_start = next(index for index, line in enumerate(printed.lines) if line.startswith("Eddy is serving"))
        url = re.search(r"on (http://\S+)", printed.lines[banner_start])[1]
        texts = {"eddy serve --stack infra/examples/stack.yaml": "\n".join(printed.lines[banner_start:banner_end + 1])}
        dynamodb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                                aws_access_key_id="test", aws_secret_access_key="test")

        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
        logged = printed.wait_for(lambda line: "eddy.triggers" in line and "mapping replicate <- orders" in line)
        texts["a put on the example stack's orders table"] = printed.lines[logged]
        replica = wait_until(lambda: dynamodb.get_item(TableName="orders-replica", Key={"pk": {"S": "a"}}).get("Item"))
        texts["the replica of that put"] = repr(replica)

        dynamodb.update_item(TableName="orders", Key={"pk": {"S": "a"}}, UpdateExpression="SET n = :n ADD tag :t",
                             ExpressionAttributeValues={":n": {"N": "2"}, ":t": {"SS": ["x"]}})
        texts["eddy tail orders --from-start --count 2"] = eddy(
            "tail", "orders", "--from-start", "--count", "2", "--endpoint-url", url)
        texts["eddy up -f infra/examples/stack.yaml"] = eddy(
            "up", "-f", "infra/examples/stack.yaml", "--endpoint-url", url)
        yield {name: text.replace(url, ENDPOINT).replace(url.removeprefix("http://"), ENDPOINT.removeprefix("http://"))
               for name, text in texts.items()}
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def eddy(*args: str) -> str:
    env = dict(os.environ, AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test", AWS_DEFAULT_REGION="us-east-1")
    result = subprocess.run([sys.executable, "-m", "eddy", *args], capture_output=True, text=True,
                            timeout=WAIT, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


QUOTES = quoted_outputs()


def test_the_docs_quote_outputs():
    assert {name for name, _ in QUOTES.values()} >= {
        "eddy serve --stack infra/examples/stack.yaml", "a put on the example stack's orders table",
        "the replica of that put", "eddy tail orders --from-start --count 2", "eddy up -f infra/examples/stack.yaml"}


@pytest.mark.parametrize("place", sorted(place for place, (name, _) in QUOTES.items() if not EXAMPLE_ABOVE.match(name)))
def test_quoted_output_is_what_eddy_prints(place, outputs):
    name, quoted = QUOTES[place]
    assert name in outputs, f"{place}: no test makes the output '{name}'"
    missing = unmatched(quoted, outputs[name])
    assert missing is None, f"{place}: the quoted line\n{missing}\nis not in what Eddy printed:\n{outputs[name]}"


@pytest.mark.parametrize("place", sorted(place for place, (name, _) in QUOTES.items() if EXAMPLE_ABOVE.match(name)))
def test_quoted_output_is_what_the_example_above_prints(place):
    name, quoted = QUOTES[place]
    ran = subprocess.run([sys.executable, "-c", example_above(place)], capture_output=True, text=True, timeout=WAIT,
                         cwd=ROOT)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    printed = ran.stdout if EXAMPLE_ABOVE.match(name)[1] == "stdout" else ran.stderr
    missing = unmatched(quoted, printed)
    assert missing is None, f"{place}: the quoted line\n{missing}\nis not in what the example printed:\n{printed}"


def test_the_triggers_guide_quotes_what_its_example_prints():
    assert {place for place, (name, _) in QUOTES.items() if EXAMPLE_ABOVE.match(name)} >= {
        "docs/guides/triggers.md:the example above, on stdout", "docs/guides/triggers.md:the example above, on stderr"}


DOCTOR = re.compile(r"<!-- doctor output checked by tests/test_docs_outputs\.py -->\n```text\n(.*?)```", re.S)
DOCTOR_LINE = re.compile(r"(ok|missing|FAIL) +(.+?)  +(.*)")


def test_the_doctor_sample_has_eddy_doctors_parts_layout_and_words(tmp_path):
    """What is ok or missing, versions and paths are the machine's; the parts, their order, the columns, the status
    words and a new state directory's line are Eddy's."""
    [sample] = DOCTOR.findall((ROOT / "docs" / "getting-started.md").read_text())
    ran = subprocess.run([sys.executable, "-m", "eddy", "doctor", "--port", "0"], capture_output=True,
                         text=True, timeout=WAIT, cwd=tmp_path)
    quoted, printed = sample.splitlines(), ran.stdout.splitlines()
    assert [DOCTOR_LINE.fullmatch(line)[2] for line in quoted] == [DOCTOR_LINE.fullmatch(line)[2] for line in printed]
    for line, actual in zip(quoted, printed):
        assert (line.index(DOCTOR_LINE.fullmatch(line)[2]), line.index(DOCTOR_LINE.fullmatch(line)[3])) == (
            actual.index(DOCTOR_LINE.fullmatch(actual)[2]), actual.index(DOCTOR_LINE.fullmatch(actual)[3])), line
    assert quoted[-2] == printed[-2] == "ok       state dir     .eddy (will be created)"
    assert re.fullmatch(r"ok       disk          [0-9,]+ bytes free under \.eddy", printed[-1]), printed[-1]


@pytest.mark.parametrize("quoted, actual, holds", [
    ("22 created", "  22 created", False),                      # indentation is part of the quote
    ("  22 created", "  19 created", False),                    # counts are exact
    ("a\n...\nc", "a\nb\nb\nc", True),
    ("a\nc", "a\nb\nc", False),                                 # without `...` the lines follow one another
    ("batch 1 OK in 4.2 ms", "batch 1 OK in 311.0 ms", True),   # durations by their form
    ("shard shardId-00000001795241225497-1303cb5f", "shard shardId-00000001795601944312-8e8b00cd", True),
    ("mapping replicate <- orders (a465d55d)", "mapping usage-metrics <- orders (6d01b8d6)", False),
])
def test_the_comparison_holds_only_for_what_is_quoted(quoted, actual, holds):
    assert (unmatched(quoted, actual) is None) is holds
