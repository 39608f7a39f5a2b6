"""Node.js functions: CommonJS and ES modules, async and callback handlers, context, errors, logs, the SDK."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess

import pytest
from botocore.exceptions import ClientError

from tests.emulator.functions.test_functions import ROLE, zip_of
from tests.lambda_functions import created_function


def create_node(lam, name: str, files: dict[str, str], handler: str = "index.handler",
                runtime: str = "nodejs20.x", **options) -> dict:
    return created_function(lam, FunctionName=name, Runtime=runtime, Role=ROLE, Handler=handler,
                               Code={"ZipFile": zip_of(files)}, **options)


def call(lam, name: str, event: object = None, **options) -> tuple[dict, object]:
    response = lam.invoke(FunctionName=name, Payload=json.dumps(event or {}).encode(), **options)
    return response, json.loads(response["Payload"].read())


CONTEXT_AND_ENV = """
exports.handler = async (event, context) => ({
  event, name: context.functionName, arn: context.invokedFunctionArn, version: context.functionVersion,
  memory: context.memoryLimitInMB, request: context.awsRequestId, group: context.logGroupName,
  stream: context.logStreamName, remaining: context.getRemainingTimeInMillis(),
  colour: process.env.COLOUR, region: process.env.AWS_REGION, runtime: process.env.AWS_EXECUTION_ENV,
});
"""


def test_a_commonjs_async_handler_gets_its_context_and_environment(door):
    lam = door.client("lambda")
    created = create_node(lam, "echo", {"index.js": CONTEXT_AND_ENV}, runtime="nodejs22.x", Timeout=7,
                          MemorySize=256, Environment={"Variables": {"COLOUR": "teal"}})
    assert (created["Runtime"], created["Handler"]) == ("nodejs22.x", "index.handler")
    response, answer = call(lam, "echo", {"hello": "world"})
    assert response["StatusCode"] == 200 and "FunctionError" not in response
    assert answer["event"] == {"hello": "world"}
    assert (answer["name"], answer["arn"], answer["version"], answer["memory"]) == (
        "echo", created["FunctionArn"], "$LATEST", "256")
    assert answer["group"] == "/aws/lambda/echo" and "[$LATEST]" in answer["stream"] and answer["request"]
    assert 0 < answer["remaining"] <= 7000
    assert (answer["colour"], answer["region"], answer["runtime"]) == ("teal", "us-east-1", "AWS_Lambda_nodejs22.x")


@pytest.mark.parametrize("files, handler", [
    ({"index.mjs": "export const handler = async (event) => ({ got: event.n * 2, kind: 'mjs' });"}, "index.handler"),
    ({"package.json": '{"type": "module"}',
      "src/app.js": "export async function main(event) { return { got: event.n * 2, kind: 'module' }; }"}, "src/app.main"),
    ({"index.js": "exports.handler = (event, context, callback) => {"
                  " setTimeout(() => callback(null, { got: event.n * 2, kind: 'callback' }), 5); };"}, "index.handler"),
    ({"index.cjs": "module.exports.handler = (event, context) => { context.succeed({ got: event.n * 2, kind: 'succeed' }); };"}, "index.handler"),
])
def test_module_kinds_and_handler_styles(door, files, handler):
    lam = door.client("lambda")
    create_node(lam, "doubler", files, handler=handler, runtime="nodejs18.x")
    _, answer = call(lam, "doubler", {"n": 21})
    assert answer["got"] == 42


def test_errors_have_lambdas_node_shape_and_timeouts_and_crashes_fail(door):
    lam = door.client("lambda")
    create_node(lam, "throws", {"index.js": "class OrderError extends Error { constructor(m) { super(m); this.name = 'OrderError'; } }\n"
                                            "exports.handler = async () => { throw new OrderError('no such order'); };"})
    create_node(lam, "rejects", {"index.js": "exports.handler = (e, c, callback) => callback(new TypeError('bad input'));"})
    create_node(lam, "slow", {"index.js": "exports.handler = () => new Promise(() => {});"}, Timeout=1)
    create_node(lam, "dies", {"index.js": "exports.handler = async () => { process.exit(3); };"})
    create_node(lam, "missing", {"index.js": "exports.other = async () => 1;"})
    create_node(lam, "broken", {"index.js": "exports.handler = async () => { ;"})
    response, error = call(lam, "throws")
    assert response["FunctionError"] == "Unhandled"
    assert (error["errorType"], error["errorMessage"]) == ("OrderError", "no such order")
    assert error["trace"][0] == "OrderError: no such order" and "stackTrace" not in error
    assert call(lam, "rejects")[1]["errorType"] == "TypeError"
    assert call(lam, "slow")[1]["errorMessage"].endswith(" Error: Task timed out after 1.00 seconds")
    assert call(lam, "dies")[0]["FunctionError"] == "Unhandled"
    assert call(lam, "missing")[1]["errorType"] == "Runtime.HandlerNotFound"
    assert call(lam, "broken")[1]["errorType"] == "Runtime.UserCodeSyntaxError"
    assert call(lam, "throws")[1]["errorType"] == "OrderError"  # the worker survives a handled error


def test_log_type_tail_returns_the_functions_console_output(door):
    lam = door.client("lambda")
    create_node(lam, "talks", {"index.js": "exports.handler = async (e) => { console.log('order %s', e.id); console.error('careful'); return 1; };"})
    response, answer = call(lam, "talks", {"id": "o-1"}, LogType="Tail")
    log = base64.b64decode(response["LogResult"]).decode()
    assert answer == 1
    assert "\tINFO\torder o-1\n" in log and "\tERROR\tcareful\n" in log
    assert log.startswith("START RequestId: ") and "REPORT RequestId: " in log


SDK_ROUND_TRIP = {
    "CJS": ("index.js", """
const { DynamoDBClient, PutItemCommand, GetItemCommand } = require('@aws-sdk/client-dynamodb');
const client = new DynamoDBClient({});
exports.handler = async (event) => {
  await client.send(new PutItemCommand({ TableName: 'notes', Item: { id: { S: event.id }, by: { S: 'cjs' } } }));
  const got = await client.send(new GetItemCommand({ TableName: 'notes', Key: { id: { S: event.id } } }));
  return got.Item.by.S;
};"""),
    "ESM": ("index.mjs", """
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async (event) => {
  await client.send(new PutCommand({ TableName: 'notes', Item: { id: event.id, by: 'esm' } }));
  return (await client.send(new GetCommand({ TableName: 'notes', Key: { id: event.id } }))).Item.by;
};"""),
}


@pytest.mark.parametrize("kind", ["CJS", "ESM"])
def test_the_aws_sdk_v3_reaches_eddy_through_its_endpoint(door, kind):
    door.client("dynamodb").create_table(TableName="notes", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                                         AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                                         BillingMode="PAY_PER_REQUEST")
    lam = door.client("lambda")
    file, source = SDK_ROUND_TRIP[kind]
    create_node(lam, "writer", {file: source}, Timeout=20)
    response, answer = call(lam, "writer", {"id": "n-1"})
    assert "FunctionError" not in response, answer
    assert answer == kind.lower()
    item = door.client("dynamodb").get_item(TableName="notes", Key={"id": {"S": "n-1"}})["Item"]
    assert item["by"] == {"S": kind.lower()}


MAKES_A_CLIENT = """
const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
exports.handler = async () => {
  new DynamoDBClient({});
  await new Promise((resolve) => setImmediate(resolve));  // node emits a process warning on a later tick
  return 'made';
};
"""


def test_the_sdks_node_version_warning_speaks_of_the_runtimes_node_not_the_machines(door):
    """The SDK warns once per process when its node is older than it wants (22 for 2026's releases). A nodejs22.x
    function runs on Lambda's node 22: run here by an older node, it must not print that warning; a nodejs20.x
    function prints it as it would on Lambda's node 20 with that SDK."""
    local = int(subprocess.run([shutil.which("node"), "--version"], capture_output=True, text=True, check=True)
                .stdout.strip().lstrip("v").split(".")[0])
    lam = door.client("lambda")
    logs = {}
    for runtime in ("nodejs22.x", "nodejs20.x"):
        name = "client-" + runtime.replace(".", "-")
        create_node(lam, name, {"index.js": MAKES_A_CLIENT}, runtime=runtime, Timeout=20)
        response, answer = call(lam, name, LogType="Tail")
        assert answer == "made", answer
        logs[runtime] = base64.b64decode(response["LogResult"]).decode()
    assert "NodeVersionSupportWarning" not in logs["nodejs22.x"]
    assert ("NodeVersionSupportWarning" in logs["nodejs20.x"]) == (local < 22)


def test_node_runtimes_and_handlers_are_validated(door):
    lam = door.client("lambda")
    for runtime, handler in [("nodejs14.x", "index.handler"), ("nodejs20.x", "index"), ("nodejs20.x", "../up.handler")]:
        with pytest.raises(ClientError) as raised:
            create_node(lam, "nope", {"index.js": "exports.handler = async () => 1;"}, handler=handler, runtime=runtime)
        assert raised.value.response["Error"]["Code"] == "InvalidParameterValueException"
