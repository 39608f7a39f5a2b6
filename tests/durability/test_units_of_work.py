"""Each request is one unit of work (storage/units_of_work.py): what it changed is written down in one append, or
taken back when the disk refuses it, and nothing it queued runs.

The fault is real and at the file layer, as in test_disk_errors.py: the kernel's RLIMIT_FSIZE set to the log's size,
so the next write that grows a file fails with EFBIG, which is not a full disk (no reserve applies). Each refused
request answers its service's 500 (Lambda's ServiceException: botocore's lambda model, HTTP 500, "The Lambda service
encountered an internal error"), which the SDKs retry; what every Describe/Get/List answers is then as before the
request, and the same after kill -9 (server) or the block's end (in-process) and a restart. Before the units of work
these changes stayed applied after their 500 and were lost at the restart (probed on 2026-11-28,
/work/scratch/issue38-probes/probe.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config

from tests.durability.test_disk_errors import failing_writes, lift
from tests.durability.test_disk_full import Eddy, refused, running
from tests.emulator.functions.test_functions import create_function

pytestmark = pytest.mark.slow

ACCOUNT_QUEUE = "arn:aws:sqs:us-east-1:123456789012:"


@pytest.fixture(params=["inprocess", "server"])
def door(request: pytest.FixtureRequest) -> str:
    return request.param


def functions_held(eddy: Eddy) -> dict[str, Any]:
    """The functions as Lambda's API answers them: configuration, versions, aliases, mappings, and what it runs."""
    lam = eddy.client("lambda")

    def answer(response: dict[str, Any]) -> dict[str, Any]:
        return {name: value for name, value in response.items() if name != "ResponseMetadata"}

    return {
        "functions": sorted(f["FunctionName"] for f in lam.list_functions()["Functions"]),
        "configuration": answer(lam.get_function_configuration(FunctionName="f")),
        "versions": [answer(v) for v in lam.list_versions_by_function(FunctionName="f")["Versions"]],
        "aliases": [answer(a) for a in lam.list_aliases(FunctionName="f")["Aliases"]],
        "mappings": sorted(
            (m["UUID"], m["EventSourceArn"], m["FunctionArn"], m["BatchSize"])
            for m in lam.list_event_source_mappings()["EventSourceMappings"]
        ),
        "runs": lam.invoke(FunctionName="f")["Payload"].read(),
    }


def test_lambda_changes_the_disk_refuses_are_taken_back(door: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    with running(door, state) as eddy:
        lam, sqs = eddy.client("lambda"), eddy.client("sqs")
        create_function(lam, "f", "def handler(event, context):\n    return 1\n", Description="kept")
        lam.publish_version(FunctionName="f")
        lam.get_waiter("published_version_active").wait(FunctionName="f", Qualifier="1")
        lam.update_function_configuration(FunctionName="f", Description="kept, changed since version 1")
        lam.get_waiter("function_updated_v2").wait(FunctionName="f")  # a PublishVersion now makes version 2
        create_function(lam, "other", "def handler(event, context):\n    return 2\n")
        for name in ("work", "jobs"):
            sqs.create_queue(QueueName=name)
        mapping = lam.create_event_source_mapping(FunctionName="f", EventSourceArn=ACCOUNT_QUEUE + "jobs",
                                                  BatchSize=5, Enabled=False)["UUID"]
        url = sqs.get_queue_url(QueueName="work")["QueueUrl"]
        for n in range(60):  # the log grows past every other file this process writes while the limit holds
            sqs.send_message(QueueUrl=url, MessageBody=f"{n:03}" * 300)
        before = functions_held(eddy)
        assert (before["functions"], [v["Version"] for v in before["versions"]], before["runs"]) == \
            (["f", "other"], ["$LATEST", "1"], b"1")
        with failing_writes(eddy.pid, state):
            for name, call in [
                ("UpdateFunctionConfiguration",
                 lambda: lam.update_function_configuration(FunctionName="f", Description="refused", Timeout=9)),
                ("UpdateFunctionCode", lambda: lam.update_function_code(
                    FunctionName="f", ZipFile=_zip("def handler(event, context):\n    return 3\n"))),
                ("PublishVersion", lambda: lam.publish_version(FunctionName="f")),
                ("CreateAlias", lambda: lam.create_alias(FunctionName="f", Name="live", FunctionVersion="1")),
                ("TagResource", lambda: lam.tag_resource(Resource=before["configuration"]["FunctionArn"],
                                                         Tags={"team": "refused"})),
                ("CreateEventSourceMapping", lambda: lam.create_event_source_mapping(
                    FunctionName="f", EventSourceArn=ACCOUNT_QUEUE + "work", BatchSize=3)),
                ("UpdateEventSourceMapping", lambda: lam.update_event_source_mapping(UUID=mapping, BatchSize=7)),
                ("DeleteEventSourceMapping", lambda: lam.delete_event_source_mapping(UUID=mapping)),
                ("DeleteFunction", lambda: lam.delete_function(FunctionName="other")),
                ("DeleteFunction version", lambda: lam.delete_function(FunctionName="f", Qualifier="1")),
            ]:
                assert refused(call, "lambda"), name
                assert functions_held(eddy) == before, name
        retrying = eddy.client("lambda", Config(retries={"mode": "standard", "total_max_attempts": 3}))
        with failing_writes(eddy.pid, state):  # the first attempt refused, then the disk works again
            retrying.meta.events.register_first("needs-retry", lambda attempts, **_: lift(eddy.pid))
            answer = retrying.update_function_configuration(FunctionName="f", Description="retried")
        assert (answer["ResponseMetadata"]["HTTPStatusCode"], answer["ResponseMetadata"]["RetryAttempts"],
                answer["Description"]) == (200, 1, "retried")
        lam.get_waiter("function_updated_v2").wait(FunctionName="f")
        expected = functions_held(eddy)
        unchanged = ("functions", "aliases", "mappings", "runs")  # only $LATEST's configuration was changed
        assert ([expected[key] for key in unchanged], expected["versions"][1:]) == \
            ([before[key] for key in unchanged], before["versions"][1:])
        assert expected["configuration"]["Description"] == "retried"
    with running(door, state, kill=False) as eddy:  # after kill -9 (server) or the block's end (in-process)
        assert functions_held(eddy) == expected


def _zip(source: str) -> bytes:
    from tests.emulator.functions.test_functions import zip_of

    return zip_of({"app.py": source})
