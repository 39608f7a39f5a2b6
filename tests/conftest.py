"""Shared fixtures: the two front doors, so that each functional test runs against both.

`door` is parametrised over "inprocess" (emulate()) and "server" (a real `eddy serve` subprocess on a
free loopback port). Both give real boto3 clients and the same controls.
"""

from __future__ import annotations

import abc
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import boto3
from botocore.config import Config
import pytest

from eddy import NotDeliveredError, emulate
from eddy.emulator.errors import AWSError

#: pytester: the pytest plugin's tests run pytest in projects of their own (tests/emulator/pytest_plugin/);
#: tests.installed_wheel: the session's `installed` fixture, the wheel in a fresh virtualenv (test_package.py,
#: test_guest_project.py)
pytest_plugins = ["pytester", "tests.installed_wheel"]

REGION = "us-east-1"

#: the options of every JVM the suite starts for Spark (drivers, the in-process session's, test_cluster.py's master,
#: worker and executors): the JIT's first tier only with the serial collector, and no bytecode verification of the
#: classes loaded from Spark's jars (the JDK's own are not verified either way). Their rows are the same; their CPU is
#: not: a driver started for one small job took 31 s of CPU with the JVM's defaults and 18 s with the first two,
#: test_jvm.py with the demo's tour 76 -> 48 s; the verification of Spark's classes was a sixth of what was left
#: (`eddy spark aggregate` of 150 rows, cpuacct, two runs each at load 10: 27.2 and 26.5 s with it, 23.4 and 21.0 s
#: without, 2026-11-29)
SPARK_JVM = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"
#: the class-data-sharing archive of Spark's classes that `make test`'s set-up makes (tests/spark_class_archive.py):
#: with it, a JVM maps the classes Spark loads instead of parsing and linking them from the jars (a driver for one
#: small job 20 -> 14 s of CPU); its cds logging off, so that a JVM the archive does not fit (another class path, as
#: the installed wheel's, or another JDK) says nothing and goes on with the JDK's own archive
SPARK_CLASS_ARCHIVE = Path(sys.prefix) / "spark-classes.jsa"
SMALL_JOB_JVM = SPARK_JVM + (f" -XX:SharedArchiveFile={SPARK_CLASS_ARCHIVE} -Xlog:cds=off -Xlog:cds+dynamic=off"
                             if SPARK_CLASS_ARCHIVE.is_file() else "")
#: Spark's launcher adds $SPARK_SUBMIT_OPTS to the driver's JVM: every driver the suite starts in another process
#: (`eddy spark`, `eddy demo`, spark-submit, the installed wheel's) runs as the in-process session's does
os.environ.setdefault("SPARK_SUBMIT_OPTS", SMALL_JOB_JVM)
#: and the small JVM that Spark's bin/spark-class runs first, before each of those (org.apache.spark.launcher.Main: it
#: only prints the real JVM's command line) gets the same first two options: 0.28 to 0.30 s of CPU against 0.36 to
#: 0.49 s with the JVM's defaults (user and system, three runs each, 2026-11-29); every driver, spark-submit, master
#: and worker of the suite starts one
os.environ.setdefault("SPARK_LAUNCHER_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1")
#: tests are deterministic: no background TTL sweeps or maintenance unless a test asks for it
QUIET = {"housekeeping_interval": None}


class ControlError(Exception):
    """An error answered by one of Eddy's controls, the same whichever door it came through."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(f"{code} ({status}): {message}")
        self.code, self.message, self.status = code, message, status


#: the boto3 clients the doors have made, kept for later tests of this process: making one is 7 to 18 ms of CPU (botocore
#: copies its ~130 event handlers into each) and a door test asked for two or three. A kept client talks to any
#: emulator: in-process, botocore's built-in handlers send a client made before an emulate() block to the block
#: (emulator/aws_environment.py); a server's clients are kept by its URL. Keyed by everything a client takes in when
#: it is made: the door, service, region, validation, and the AWS_ variables (credentials, config files, endpoints)
_KEPT_CLIENTS: dict[tuple, Any] = {}
#: a client a test changed (an event handler registered or unregistered) or that retried a request (botocore's standard
#: retry mode spends a quota the client keeps) is not lent again: the next test gets a new one
_CHANGED = "_eddy_tests_changed"


def _watched(client: Any) -> Any:
    """`client`, marked changed once its event handlers change or one of its requests is retried."""
    events = client.meta.events

    def mark(attempts: int, **_: Any) -> None:
        if attempts > 1:
            setattr(client, _CHANGED, True)

    events.register_first("needs-retry", mark)
    for name in ("register", "register_first", "register_last", "unregister"):
        def changing(*args: Any, _method: Any = getattr(events, name), **kwargs: Any) -> Any:
            setattr(client, _CHANGED, True)
            return _method(*args, **kwargs)

        setattr(events, name, changing)
    return client


class Door(abc.ABC):
    name: str
    #: the keys of the clients this door lent: a test asking twice for the same kind of client gets two clients
    _lent: set[tuple]

    def _lend(self, key: tuple, make: Any) -> Any:
        """A kept client for `key` (see _KEPT_CLIENTS), or a new one if this test has it already."""
        key += tuple(sorted((name, value) for name, value in os.environ.items() if name.startswith("AWS_")))
        lent = self.__dict__.setdefault("_lent", set())
        if key in lent:
            return make()
        lent.add(key)
        client = _KEPT_CLIENTS.get(key)
        if client is None or getattr(client, _CHANGED, False):
            client = _KEPT_CLIENTS[key] = _watched(make())
        return client

    @abc.abstractmethod
    def client(self, service: str, region: str = REGION, validate: bool = True) -> Any:
        """A real boto3 client for `service` that talks to this door (validate=False: botocore sends bad input)."""

    @abc.abstractmethod
    def control(self, path: str, payload: dict | None = None) -> dict:
        """Call one of Eddy's controls, named by its /_eddy/ path."""

    def now(self) -> float:
        return self.control("/_eddy/clock")["Now"]

    def advance(self, seconds: float) -> None:
        self.control("/_eddy/clock", {"advance": seconds})

    def split(self, stream_arn: str, shard_id: str) -> list[str]:
        return self.control("/_eddy/shards/split", {"StreamArn": stream_arn, "ShardId": shard_id})["ChildShardIds"]

    def merge(self, stream_arn: str, shard_id: str, adjacent_shard_id: str) -> str:
        return self.control("/_eddy/shards/merge", {"StreamArn": stream_arn, "ShardId": shard_id,
                                                    "AdjacentShardId": adjacent_shard_id})["ChildShardId"]

    def rollover(self, stream_arn: str) -> list[str]:
        return self.control("/_eddy/shards/rollover", {"StreamArn": stream_arn})["ChildShardIds"]

    def sweep_ttl(self) -> int:
        return self.control("/_eddy/ttl/sweep", {})["Deleted"]

    @abc.abstractmethod
    def wait_idle(self, timeout: float = 30) -> dict:
        """The emulator's wait_idle: {"Idle", "Delivered", "Pending", "Failures"}."""

    @abc.abstractmethod
    def assert_delivered(self, timeout: float = 30) -> dict:
        """The emulator's assert_delivered: raises NotDeliveredError unless every record reached its function."""


class InProcessDoor(Door):
    name = "inprocess"

    def __init__(self, emu: Any) -> None:
        self.emu = emu

    def client(self, service: str, region: str = REGION, validate: bool = True) -> Any:
        return self._lend(("inprocess", service, region, validate),
                          lambda: boto3.client(service, region_name=region, config=Config(parameter_validation=validate)))

    def control(self, path: str, payload: dict | None = None) -> dict:
        try:
            return self._control(path, payload)
        except AWSError as error:
            raise ControlError(error.code, error.message, error.status) from None

    def wait_idle(self, timeout: float = 30) -> dict:
        return self.emu.wait_idle(timeout)

    def assert_delivered(self, timeout: float = 30) -> dict:
        return self.emu.assert_delivered(timeout)

    def _control(self, path: str, payload: dict | None) -> dict:
        if path == "/_eddy/clock":
            if payload:
                self.emu.clock.advance(payload["advance"])
            return {"Now": self.emu.clock.now()}
        if path == "/_eddy/shards/split":
            return {"ChildShardIds": self.emu.split_shard(payload["StreamArn"], payload["ShardId"])}
        if path == "/_eddy/shards/merge":
            return {"ChildShardId": self.emu.merge_shards(payload["StreamArn"], payload["ShardId"],
                                                          payload["AdjacentShardId"])}
        if path == "/_eddy/shards/rollover":
            return {"ChildShardIds": self.emu.rollover(payload["StreamArn"])}
        if path == "/_eddy/ttl/sweep":
            return {"Deleted": self.emu.sweep_ttl()}
        if path == "/_eddy/s3/lifecycle/sweep":
            return {"Deleted": self.emu.sweep_lifecycle()}
        raise KeyError(path)


class ServerDoor(Door):
    name = "server"

    def __init__(self, url: str) -> None:
        self.url = url

    def client(self, service: str, region: str = REGION, validate: bool = True) -> Any:
        return self._lend((self.url, service, region, validate), lambda: boto3.client(
            service, region_name=region, endpoint_url=self.url, config=Config(parameter_validation=validate),
            aws_access_key_id="testing", aws_secret_access_key="testing"))

    def control(self, path: str, payload: dict | None = None) -> dict:
        try:
            return http_json(self.url + path, payload)
        except urllib.error.HTTPError as error:
            body = json.loads(error.read())
            raise ControlError(body["__type"].rsplit("#", 1)[-1], body["message"], error.code) from None

    def wait_idle(self, timeout: float = 30) -> dict:
        return self.control("/_eddy/idle", {"timeout": timeout})

    def assert_delivered(self, timeout: float = 30) -> dict:
        try:
            return http_json(self.url + "/_eddy/delivered", {"timeout": timeout})
        except urllib.error.HTTPError as error:
            body = json.loads(error.read())
            if body.get("__type") != "NotDelivered":
                raise ControlError(body["__type"].rsplit("#", 1)[-1], body["message"], error.code) from None
            raise NotDeliveredError(body["message"], body["Report"]) from None


def http_json(url: str, payload: dict | None = None, method: str | None = None) -> dict:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method=method or ("POST" if data is not None else "GET"))
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


@contextmanager
def eddy_server(*extra_args: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """`eddy serve` in a subprocess on a free port; yields its URL."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "eddy", "serve", "--port", "0", *extra_args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    try:
        url = None
        deadline = time.monotonic() + 180  # a bound on start-up (recovery included) on a busy machine, not a pause
        while url is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            if " on http://" in line:
                url = line.rsplit(" on ", 1)[1].strip()
        if url is None:
            raise RuntimeError("eddy serve did not start")
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def processes_with(marker: str) -> dict[int, str]:
    """Every live process (Linux: /proc) whose environment holds `marker` ("NAME=value"): pid -> command line. A
    test gives a process it starts a marker of its own; every process started from it inherits it."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() not in (entry / "environ").read_bytes():
                continue
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue  # a zombie: it ended, its parent has not collected it yet
            found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except OSError:  # it ended while being read, or is not ours
            continue
    return found


#: folders whose every test takes seconds: each starts Spark, or kills an `eddy serve` with kill -9 and restarts it
SLOW_FOLDERS = (Path(__file__).parent / "spark_batch", Path(__file__).parent / "durability")
#: what the path of a test in SLOW_FOLDERS starts with (a string test: Path.parents made a Path a parent, 1 s of each
#: xdist worker's collection)
_SLOW_PREFIXES = tuple(f"{folder}{os.sep}" for folder in SLOW_FOLDERS)
#: modules and tests that take seconds each elsewhere (each over 30 s in `pytest --durations` on a loaded 2-core
#: machine): a second process on one state directory, restarts, 2,400 hostile requests, chains of functions
SLOW_TESTS = {
    "tests/emulator/storage/test_ownership.py",
    "tests/emulator/storage/test_clock_file.py::test_a_fixed_clock_source_is_what_readers_in_another_process_see",
    "tests/emulator/kinesis/test_kinesis_durability.py",
    "tests/emulator/pipes/test_pipe_restart.py",
    "tests/emulator/api/test_fuzz.py::test_a_hostile_client_gets_aws_errors_and_breaks_nothing",
    # the tour's step 6 is a Spark job: it needs Java, which `make test-fast` does not (36 s with -n 2, its slowest)
    "tests/infra/test_first_run.py::test_the_demo_tours_everything",
    "tests/emulator/api/test_inprocess.py::test_moto_services_work_inside",
    "tests/emulator/api/lambda_/test_lambda_resources.py::test_reserved_concurrency_is_kept_and_zero_throttles_invoke",
    "tests/emulator/notifications/test_s3_topic_configurations.py::test_s3_to_a_topic_to_a_function",
}


def _names(item: pytest.Item) -> set[str]:
    """What SLOW_TESTS may name an item by: its module, its test (any parameters), or its test with these
    parameters."""
    return {item.nodeid.split("::")[0], item.nodeid.split("[")[0], item.nodeid}


#: the second of the two groups of in-process Spark tests (the `spark` fixture): these modules and the docs examples
#: that start Spark (tests/test_docs.py); the first, "spark", has the rest. Each group is about half of the Spark tests'
#: time, on a worker of its own with one SparkSession: run serially at load 7 on 2 cores (2026-11-28, 17:41 and
#: 17:49 UTC), "spark" took 401 s and this one 646 s, then test_table_streams.py (73 s) and test_emulator_state.py
#: (31 s) moved to "spark"
SPARK_PROCESSES = "spark-processes"
SPARK_PROCESSES_MODULES = {
    "tests/spark_batch/test_cluster.py", "tests/spark_batch/test_cli.py", "tests/spark_batch/test_cli_failures.py",
    "tests/spark_batch/streaming/test_source.py",
}

#: the tests in no group that take longest (over 30 s each in a `make test` on a fresh clone, 2026-11-28: --durations),
#: longest first: they start before the other slow tests, so that none starts while the other workers are finishing
LONGEST_FIRST = (
    "tests/emulator/cloudformation/test_cdk.py::test_cdk_bootstrap_deploy_redeploy_and_destroy",  # 127 s
    "tests/infra/test_first_run.py::test_the_demo_tours_everything",  # 86 s
    "tests/emulator/cloudformation/test_real_tools.py::test_sam_build_and_deploy_with_resolve_s3_then_sam_delete",  # 69 s
    "tests/spark_batch/test_jvm.py::test_the_jvm_dies_with_its_driver_killed_with_sigkill",  # 47 s
    "tests/emulator/cloudformation/test_real_tools.py::test_aws_cloudformation_package_and_deploy",  # 41 s
    "tests/spark_batch/test_cli_failures.py::test_ctrl_c_during_a_spark_job_is_one_line_and_status_130",  # 41 s
    "tests/durability/test_full_disk_queue_mappings.py",  # 39 s and 25 s
    "tests/emulator/pipes/test_pipe_restart.py",  # 31 s
    "tests/emulator/api/test_fuzz.py::test_a_hostile_client_gets_aws_errors_and_breaks_nothing",  # 29 s
)


def spark_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that uses the in-process SparkSession (the `spark` fixture), else None: "spark", or
    SPARK_PROCESSES for the modules in SPARK_PROCESSES_MODULES."""
    if "spark" not in getattr(item, "fixturenames", ()):
        return None
    return SPARK_PROCESSES if item.nodeid.split("::")[0] in SPARK_PROCESSES_MODULES else "spark"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`make test` runs the suite on pytest-xdist workers (--dist loadgroup). The tests that use the in-process
    SparkSession (the `spark` fixture) go to two groups (spark_group), each on one worker with one SparkSession for
    all its tests, as a run without workers has; without groups every worker started a session of its own, four
    JVMs at once. They are the longest groups, so they come first, then the other slow tests: the other workers take
    the rest meanwhile. Spark tests that start no session in pytest's process (Spark in a subprocess only:
    tests/spark_batch/test_jvm.py, the Ctrl-C tests) are in no group and go to any worker.

    tryfirst: xdist's worker reads the xdist_group marks in its own pytest_collection_modifyitems, which pluggy
    calls before this conftest's unless this one asks to go first; marks added after it are ignored (the groups
    were never in force before 2026-11-28). pytest 9.2 ignores them too (pytest-xdist issue #1386: xdist 3.8 writes
    the group into `_nodeid`, which pytest 9.2 no longer reads), hence pytest<9.2 in pyproject.toml.

    Tests that take seconds each are marked `slow` (pyproject.toml): Spark's (the `spark` fixture, every test of
    tests/spark_batch/), the kill -9 and restart tests of tests/durability/, SLOW_TESTS, and the modules that say so
    themselves (pytestmark). `make test-fast` (pytest -m "not slow") leaves them out."""
    for item in items:
        group = spark_group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
            item.add_marker(pytest.mark.slow)
        elif str(item.path).startswith(_SLOW_PREFIXES) or _names(item) & SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
    # longest first (stable: each part in its order): the Spark groups, then LONGEST_FIRST, then the other slow tests,
    # then the rest; xdist hands the groups out first by their size (--loadscope-reorder, its default) and single tests
    # in this order, so a test of seconds never starts when the other workers are finishing
    items.sort(key=lambda item: (spark_group(item) is None, _longest_first(item),
                                 item.get_closest_marker("slow") is None))


def _longest_first(item: pytest.Item) -> int:
    """The item's place in LONGEST_FIRST, or after all of them."""
    names = _names(item)
    return next((place for place, name in enumerate(LONGEST_FIRST) if name in names), len(LONGEST_FIRST))


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    with eddy_server("--housekeeping-interval", "0", "--in-memory") as (url, _):
        yield url


@pytest.fixture(autouse=True)
def _aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": REGION}.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A machine without AWS configuration: no AWS_ variables, no ~/.aws files, no instance metadata."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    home = tmp_path_factory.mktemp("no-aws")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(home / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture(params=["inprocess", "server"])
def door(request: pytest.FixtureRequest) -> Iterator[Door]:
    if request.param == "inprocess":
        with emulate(**QUIET) as emu:
            yield InProcessDoor(emu)
    else:
        url = request.getfixturevalue("server_url")
        http_json(url + "/moto-api/reset", {})
        yield ServerDoor(url)


@pytest.fixture
def emu() -> Iterator[Any]:
    """An in-process emulator, for tests of what only the in-process door shows (files, internals)."""
    with emulate(**QUIET) as emulator:
        yield emulator


#: how a setting is spelled on `eddy serve`'s command line, and how its value is written there
SERVE_FLAGS = {
    "split_records_per_second": ("--split-records-per-second", str),
    "retention_seconds": ("--retention-hours", lambda seconds: str(seconds / 3600)),
    "shard_rollover_seconds": ("--rollover-hours", lambda seconds: str(seconds / 3600)),
    "sns_retry_jitter": ("--sns-retry-jitter", str),
    "function_update_seconds": ("--function-update-seconds", str),
}


@pytest.fixture(params=["inprocess", "server"])
def door_with(request: pytest.FixtureRequest):
    """A factory: `with door_with(split_records_per_second=5) as door:` — a door with non-default settings."""

    @contextmanager
    def make(**settings: Any) -> Iterator[Door]:
        if request.param == "inprocess":
            with emulate(**QUIET, **settings) as emu:
                yield InProcessDoor(emu)
            return
        args = ["--housekeeping-interval", "0", "--in-memory"]
        for name, value in settings.items():
            flag, spell = SERVE_FLAGS[name]
            args += [flag, spell(value)]
        with eddy_server(*args) as (url, _):
            yield ServerDoor(url)

    return make
