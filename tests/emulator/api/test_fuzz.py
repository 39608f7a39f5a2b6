"""A hostile client, seeded and bounded: a few thousand malformed requests over every operation of DynamoDB,
DynamoDB Streams and Eddy's Lambda API (hostile zip packages included) against `eddy serve`.

Every answer must be a 4xx (or a success; a 501 only for the operations Eddy does not emulate) in AWS's JSON
error shape, with no internal name in it; the server must stay up; a protected table's items and stream records must be untouched.
"""

from __future__ import annotations

import base64
import functools
import io
import json
import random
import re
import stat
import threading
import zipfile

import boto3
import botocore.session
import requests

from eddy.emulator.api.dynamodb.absent_features import NOT_EMULATED
from tests.conftest import eddy_server

SEED, REQUESTS = 11, 2400
INTERNAL = re.compile(r"Traceback|\b(?:Attribute|Key|Type|Value|Index|Name|Unicode\w*|Runtime|Assertion|ZeroDivision|"
                      r"Recursion|Overflow|NotImplemented|OS|Lookup)Error\b|NoneType|object has no attribute|<html",
                      re.I)
TABLES = ["orders", "ttt", "x", "", "a" * 300, "bad name!", "arn:aws:dynamodb:us-east-1:123456789012:table/orders"]
SIGNED = {"Authorization": "AWS4-HMAC-SHA256 Credential=testing/20250101/us-east-1/dynamodb/aws4_request, "
                           "SignedHeaders=host, Signature=0"}


def hostile_scalar(rng: random.Random) -> object:
    return rng.choice([None, "", "\ud800", "x" * rng.choice([1, 70000]), -1, 0, 1.5, 10**20, True, [], {}, "NaN",
                       rng.choice(TABLES), {"S": "v"}, {"N": "not a number"}, [{"S": 1}], {"M": {"a": {"L": 5}}}])


def value_for(shape, rng: random.Random, depth: int = 0) -> object:
    """A value for a shape: usually of the right kind, often subtly or grossly wrong."""
    if rng.random() < 0.15 or depth > 4:
        return hostile_scalar(rng)
    kind = shape.type_name
    if kind == "structure":
        return {name: value_for(member, rng, depth + 1) for name, member in shape.members.items()
                if rng.random() < (0.9 if name in shape.required_members else 0.3)}
    if kind == "list":
        return [value_for(shape.member, rng, depth + 1) for _ in range(rng.randrange(3))]
    if kind == "map":
        return {rng.choice(["pk", "a", ":v", "#n", ""]): value_for(shape.value, rng, depth + 1)
                for _ in range(rng.randrange(3))}
    if kind == "string":
        if shape.enum:
            return rng.choice(list(shape.enum) + ["NOT_AN_ENUM"])
        return rng.choice(TABLES + ["pk", "attribute_exists(pk)", "SET #n = :v", "SELECT * FROM orders", "??"])
    if kind in ("integer", "long"):
        return rng.choice([-5, 0, 1, 25, 100, 10**12])
    if kind in ("double", "float"):
        return rng.choice([-1.0, 0.5, 1e300])
    if kind == "boolean":
        return rng.choice([True, False])
    if kind == "blob":
        return rng.choice([base64.b64encode(b"bytes").decode(), "not base64!"])
    return hostile_scalar(rng)


def hostile_zip(rng: random.Random) -> bytes:
    data = zip_package(rng.randrange(4))
    return data if rng.random() < 0.8 else data[: len(data) // 2]


@functools.cache
def zip_package(choice: int) -> bytes:
    """The four packages, each made once: compressing the 2 MB of zeros took a core some 5 ms a request."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if choice == 0:
            archive.writestr("../../escape.py", "x = 1")
        elif choice == 1:
            link = zipfile.ZipInfo("link")
            link.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(link, "/etc/passwd")
        elif choice == 2:
            archive.writestr("/abs.py", "x = 1")
        else:
            archive.writestr("app.py", "def handler(event, context):\n    return 1\n")
            archive.writestr("zeros.bin", b"\0" * 2_000_000)
    return buffer.getvalue()


def lambda_request(rng: random.Random, url: str, http: requests.Session) -> requests.Response:
    base = url + "/2015-03-31"
    name = rng.choice(["fn", "", "x" * 100, "fn/../..", "%00"])
    body = {"FunctionName": name, "Runtime": rng.choice(["python3.11", "nodejs20.x", "cobol", 3]),
            "Role": rng.choice(["arn:aws:iam::123456789012:role/r", "nope", None]),
            "Handler": rng.choice(["app.handler", "", "../x.y", None]),
            "Code": rng.choice([{"ZipFile": base64.b64encode(hostile_zip(rng)).decode()}, {"ZipFile": "!!"}, {}, "zip"]),
            "Timeout": rng.choice([0, 3, 1000, "3"]), "Layers": rng.choice([None, ["nope"], [1], "x"])}
    calls = [
        ("POST", f"{base}/functions", body),
        ("PUT", f"{base}/functions/fn/configuration", {k: v for k, v in body.items() if rng.random() < 0.5}),
        ("PUT", f"{base}/functions/fn/code", body["Code"]),
        ("POST", f"{base}/functions/{name or 'fn'}/invocations", hostile_scalar(rng)),
        ("POST", f"{base}/event-source-mappings/", {"EventSourceArn": rng.choice(TABLES), "FunctionName": name,
                                                   "BatchSize": rng.choice([0, 10, 10**6, "x"]),
                                                   "StartingPosition": rng.choice(["LATEST", "SIDEWAYS", None])}),
        ("PUT", f"{base}/event-source-mappings/{rng.choice(['nope', '', 'a' * 50])}", {"BatchSize": -1}),
        ("GET", f"{base}/functions/{name or 'fn'}", None),
        ("DELETE", f"{base}/event-source-mappings/xyz", None),
    ]
    method, target, payload = rng.choice(calls)
    data = json.dumps(payload).encode() if rng.random() < 0.9 else b"{not json"
    return http.request(method, target, data=data, headers=SIGNED, timeout=60)


def json_request(rng: random.Random, url: str, models: dict, http: requests.Session) -> requests.Response:
    service = rng.choice(["dynamodb", "dynamodb", "dynamodbstreams"])
    model = models[service]
    prefix = model.metadata["targetPrefix"]
    operation = rng.choice(model.operation_names)
    shape = model.operation_model(operation).input_shape
    params = value_for(shape, rng) if shape is not None else {}
    body = json.dumps(params).encode()
    roll = rng.random()
    target = f"{prefix}.{operation}"
    if roll < 0.03:
        target = rng.choice([f"{prefix}.NoSuchOperation", "Garbage", f"{prefix}.", ""])
    elif roll < 0.06:
        body = rng.choice([b"", b"[]", b"null", b"{\"a\":", b"\xff\xfe", b"42"])
    headers = {**SIGNED, "Content-Type": "application/x-amz-json-1.0"}
    if target:
        headers["X-Amz-Target"] = target
    return http.post(url, data=body, headers=headers, timeout=60)


def test_a_hostile_client_gets_aws_errors_and_breaks_nothing():
    session = botocore.session.get_session()
    models = {name: session.get_service_model(name) for name in ("dynamodb", "dynamodbstreams")}
    with eddy_server("--in-memory", "--housekeeping-interval", "0") as (url, process):
        # the server logs each refused request's traceback: read its output, or a full pipe would stall it
        threading.Thread(target=lambda: sum(1 for _ in process.stdout), daemon=True).start()
        dynamodb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                                aws_access_key_id="testing", aws_secret_access_key="testing")
        streams = boto3.client("dynamodbstreams", endpoint_url=url, region_name="us-east-1",
                               aws_access_key_id="testing", aws_secret_access_key="testing")
        dynamodb.create_table(TableName="protected", BillingMode="PAY_PER_REQUEST",
                              KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        for n in range(5):
            dynamodb.put_item(TableName="protected", Item={"pk": {"S": f"p{n}"}, "n": {"N": str(n)}})

        def protected_state() -> tuple:
            items = sorted(json.dumps(i, sort_keys=True) for i in dynamodb.scan(TableName="protected")["Items"])
            arn = dynamodb.describe_table(TableName="protected")["Table"]["LatestStreamArn"]
            shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
            iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                                  ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            return items, [r["eventID"] for r in streams.get_records(ShardIterator=iterator)["Records"]]

        before = protected_state()
        rng = random.Random(SEED)
        statuses: dict[int, int] = {}
        # one session for every request, as a client keeps its connection open (a new session and connection a
        # request took most of the test's own CPU); the server is local, so no proxy from the environment
        http = requests.Session()
        http.trust_env = False
        for number in range(REQUESTS):
            response = lambda_request(rng, url, http) if rng.random() < 0.2 else json_request(rng, url, models, http)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code == 501:  # HTTP 501 NotImplemented: only for what Eddy says it does not emulate
                operation = response.request.headers.get("X-Amz-Target", "").rpartition(".")[2]
                assert operation in NOT_EMULATED, (number, operation, response.text[:300])
                assert response.json()["__type"].endswith("#NotImplemented"), (number, response.text[:300])
            else:
                assert response.status_code < 500, (number, response.status_code, response.text[:300])
            assert not INTERNAL.search(response.text[:2000]), (number, response.text[:300])
            if response.status_code >= 400 and response.content:
                error = response.json()
                assert error.get("message") or error.get("Message"), (number, response.text[:300])
        assert process.poll() is None  # alive
        assert protected_state() == before
        assert statuses.get(400, 0) > REQUESTS // 2  # most were refused, as they should be
