"""access_keys.py: moto's IAM models (and the `cryptography` modules they import) load only when a request needs IAM;
until then moto's answers about access keys are the ones its IAM would give (every key its default account's, no
visit to record), and once IAM has made a key every path reads it as moto does."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.responses import BaseResponse

from eddy.emulator.moto_seam.services import access_keys
from tests.conftest import eddy_server


def test_moto_asks_its_iam_models_for_the_account_and_the_visit_of_every_request():
    # the two names the stand-in answers for are all moto's request setup takes from its IAM models
    setup = inspect.getsource(BaseResponse.setup_class) + inspect.getsource(BaseResponse.get_current_account)
    assert [line.strip() for line in setup.splitlines() if "moto.iam" in line] == [
        "from moto.iam.models import mark_account_as_visited", "from moto.iam.models import get_account_id_from"]
    # and moto keeps the keys it knows in those models (its IAM's and STS's backends): none made, none known
    from moto.iam import models

    assert "iam_backends.items()" in inspect.getsource(models.get_account_id_from)
    assert "account[partition].access_keys" in inspect.getsource(models.mark_account_as_visited)


def test_the_standin_answers_as_moto_does_before_and_after_it_loads_moto_iam():
    standin = access_keys.Standin()
    before = standin.get_account_id_from("AKIAUNKNOWN"), standin.mark_account_as_visited(
        account_id=DEFAULT_ACCOUNT_ID, access_key="AKIAUNKNOWN", service="sqs", region="us-east-1")
    assert before == (DEFAULT_ACCOUNT_ID, None)
    real = standin.load()  # moto.iam.models is already loaded in this process (the pin above): the same module
    assert (real is sys.modules["moto.iam.models"], standin.iam_backends is real.iam_backends) == (True, True)
    assert standin.get_account_id_from("AKIAUNKNOWN") == real.get_account_id_from("AKIAUNKNOWN") == DEFAULT_ACCOUNT_ID


# A fresh process serves DynamoDB (the fast path, moto's full path) and SQS (moto's own handler), then IAM makes a
# user's access key in another account: that key's calls speak for its account, and its last use is recorded
# (IAM's GetAccessKeyLastUsed: ServiceName and Region, botocore's iam model).
CALLS = """
import boto3, json, sys
def client(service, **keys):
    return boto3.client(service, region_name="us-east-1", endpoint_url=ENDPOINT, **keys)
dynamodb = client("dynamodb")
dynamodb.create_table(TableName="ledger", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
dynamodb.put_item(TableName="ledger", Item={"pk": {"S": "a"}})
client("sqs").create_queue(QueueName="jobs")
served = {"tables": dynamodb.list_tables()["TableNames"], "queues": len(client("sqs").list_queues()["QueueUrls"]),
          "iam loaded": LOADED()}
iam = client("iam")
iam.meta.events.register("before-sign.iam.*", lambda request, **_: request.headers.add_header(
    "x-moto-account-id", "111122223333"))
iam.create_user(UserName="writer")
key = iam.create_access_key(UserName="writer")["AccessKey"]
keys = {"aws_access_key_id": key["AccessKeyId"], "aws_secret_access_key": key["SecretAccessKey"]}
queue = client("sqs", **keys).create_queue(QueueName="jobs")["QueueUrl"]
used = iam.get_access_key_last_used(AccessKeyId=key["AccessKeyId"])["AccessKeyLastUsed"]
tables = client("dynamodb", **keys).list_tables()["TableNames"]
print(json.dumps({"served": served, "queue": queue.rsplit("/", 2)[-2], "last used": [used["ServiceName"], used["Region"]],
                  "writer's tables": tables, "iam loaded": LOADED()}))
"""

EXPECTED = {"served": {"tables": ["ledger"], "queues": 1, "iam loaded": False}, "queue": "111122223333",
            "last used": ["sqs", "us-east-1"], "writer's tables": [], "iam loaded": True}


def _run(program: str) -> dict:
    done = subprocess.run([sys.executable, "-c", program], check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_in_process_moto_iam_loads_with_the_first_iam_call():
    program = ("import sys\nfrom eddy import emulate\nENDPOINT = None\n"
               "LOADED = lambda: 'moto.iam' in sys.modules or 'cryptography' in sys.modules\n"
               "with emulate():\n" + "\n".join("    " + line for line in CALLS.strip().splitlines()))
    assert _run(program) == EXPECTED


def test_a_server_loads_moto_iam_with_the_first_iam_call():
    # seen from outside the server's process: `cryptography`'s native library, which moto's IAM models import
    with eddy_server("--in-memory") as (url, process):
        maps = Path(f"/proc/{process.pid}/maps")
        program = (f"ENDPOINT = {url!r}\nLOADED = lambda: 'cryptography' in open({str(maps)!r}).read()\n"
                   + CALLS)
        assert _run(program) == EXPECTED
