"""Lambda layers: published with moto's PublishLayerVersion, laid out as Lambda lays them in /opt, in layer order,
on the Python path and on Node's; Layers on CreateFunction and UpdateFunctionConfiguration; AWS's errors."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.exceptions import ClientError

from eddy import emulate
from tests.emulator.functions.test_functions import ROLE, create_function, updated, zip_of
from tests.emulator.functions.test_node_functions import call, create_node
from tests.lambda_functions import created_function

REPORT = '''
import greeting
def handler(event, context):
    return {"greeting": greeting.TEXT, "from": greeting.__file__.split("/opt/", 1)[1]}
'''


def publish(lam, name: str, files: dict[str, str]) -> str:
    return lam.publish_layer_version(LayerName=name, Content={"ZipFile": zip_of(files)})["LayerVersionArn"]


def invoke(lam, name: str) -> dict:
    response = lam.invoke(FunctionName=name, Payload=b"{}")
    assert "FunctionError" not in response, response["Payload"].read()
    return json.loads(response["Payload"].read())


@pytest.mark.parametrize("path", ["python/greeting.py", "python/lib/python3.11/site-packages/greeting.py"])
def test_a_python_function_imports_a_module_from_its_layer(door, path):
    lam = door.client("lambda")
    arn = publish(lam, "greetings", {path: "TEXT = 'hello from a layer'\n"})
    created = create_function(lam, "greeter", REPORT, Layers=[arn])
    assert created["Layers"] == [{"Arn": arn, "CodeSize": created["Layers"][0]["CodeSize"]}]
    assert created["Layers"][0]["CodeSize"] > 0
    assert invoke(lam, "greeter") == {"greeting": "hello from a layer", "from": path}
    assert lam.get_function(FunctionName="greeter")["Configuration"]["Layers"] == created["Layers"]


def test_a_later_layer_replaces_an_earlier_ones_files_and_the_functions_code_comes_first(door):
    lam = door.client("lambda")
    first = publish(lam, "first", {"python/greeting.py": "TEXT = 'first'\n", "python/only_first.py": "X = 1\n"})
    second = publish(lam, "second", {"python/greeting.py": "TEXT = 'second'\n"})
    create_function(lam, "ordered", REPORT + "import only_first\n", Layers=[first, second])
    assert invoke(lam, "ordered")["greeting"] == "second"
    create_function(lam, "reversed", REPORT, Layers=[second, first])
    assert invoke(lam, "reversed")["greeting"] == "first"
    created_function(lam, FunctionName="own", Runtime="python3.11", Role=ROLE, Handler="app.handler", Layers=[first],
                        Code={"ZipFile": zip_of({"app.py": REPORT.replace('.split("/opt/", 1)[1]', '[-11:]'),
                                                 "greeting.py": "TEXT = 'own'\n"})})
    assert invoke(lam, "own")["greeting"] == "own"


def test_update_function_configuration_sets_replaces_and_removes_layers(door):
    lam = door.client("lambda")
    old = publish(lam, "greetings", {"python/greeting.py": "TEXT = 'v1'\n"})
    new = lam.publish_layer_version(LayerName="greetings",
                                    Content={"ZipFile": zip_of({"python/greeting.py": "TEXT = 'v2'\n"})})
    assert new["Version"] == 2
    create_function(lam, "greeter", REPORT)
    assert "Layers" not in lam.get_function_configuration(FunctionName="greeter")
    failed = lam.invoke(FunctionName="greeter", Payload=b"{}")
    assert json.loads(failed["Payload"].read())["errorType"] == "Runtime.ImportModuleError"
    assert lam.update_function_configuration(FunctionName="greeter", Layers=[old])["Layers"][0]["Arn"] == old
    updated(lam, "greeter")
    assert invoke(lam, "greeter")["greeting"] == "v1"
    lam.update_function_configuration(FunctionName="greeter", Layers=[new["LayerVersionArn"]])
    updated(lam, "greeter")
    assert invoke(lam, "greeter")["greeting"] == "v2"
    lam.update_function_configuration(FunctionName="greeter", Layers=[])
    assert "Layers" not in lam.get_function_configuration(FunctionName="greeter")
    failed = lam.invoke(FunctionName="greeter", Payload=b"{}")
    assert json.loads(failed["Payload"].read())["errorType"] == "Runtime.ImportModuleError"


def test_a_node_function_requires_a_package_from_its_layer(door):
    lam = door.client("lambda")
    arn = publish(lam, "node-greetings", {
        "nodejs/node_modules/greeting/index.js": "module.exports = { text: 'hello from node_modules' };\n",
        "nodejs/node20/node_modules/versioned/index.js": "module.exports = { text: 'for node20' };\n",
    })
    create_node(lam, "greeter", {"index.js": "const g = require('greeting'); const v = require('versioned');\n"
                                             "exports.handler = async () => ({ text: g.text, versioned: v.text });\n"},
                Layers=[arn])
    response, answer = call(lam, "greeter")
    assert answer == {"text": "hello from node_modules", "versioned": "for node20"}
    # an ES module reaches a layer's packages through require (NODE_PATH), as on Lambda
    create_node(lam, "esm", {"index.mjs": "import { createRequire } from 'node:module';\n"
                                          "const require = createRequire(import.meta.url);\n"
                                          "export const handler = async () => require('greeting').text;\n"},
                Layers=[arn])
    assert call(lam, "esm")[1] == "hello from node_modules"


def test_update_function_configuration_changes_the_runtime(door):
    lam = door.client("lambda")
    created_function(lam, FunctionName="switch", Runtime="python3.11", Role=ROLE, Handler="index.handler",
                        Code={"ZipFile": zip_of({"index.py": "def handler(event, context):\n    return 'python'\n",
                                                 "index.js": "exports.handler = async () => 'node';\n"})})
    assert invoke(lam, "switch") == "python"
    updated = lam.update_function_configuration(FunctionName="switch", Runtime="nodejs20.x")
    assert updated["Runtime"] == "nodejs20.x"
    lam.get_waiter("function_updated_v2").wait(FunctionName="switch")
    assert invoke(lam, "switch") == "node"
    with pytest.raises(ClientError) as error:
        lam.update_function_configuration(FunctionName="switch", Runtime="java21")
    assert error.value.response["Error"]["Code"] == "InvalidParameterValueException"
    assert lam.get_function_configuration(FunctionName="switch")["Runtime"] == "nodejs20.x"


def test_layer_errors_are_awss(door):
    lam = door.client("lambda")
    arn = publish(lam, "greetings", {"python/greeting.py": "TEXT = 'x'\n"})
    missing = arn[:-1] + "7"
    with pytest.raises(ClientError) as error:
        create_function(lam, "greeter", REPORT, Layers=[missing])
    assert error.value.response["Error"] == {"Code": "InvalidParameterValueException",
                                             "Message": f"Layer version {missing} does not exist."}
    with pytest.raises(lam.exceptions.ResourceNotFoundException):
        lam.get_function(FunctionName="greeter")  # nothing was created
    other_account = arn.replace(":123456789012:", ":111122223333:")
    with pytest.raises(ClientError) as error:
        create_function(lam, "greeter", REPORT, Layers=[other_account])
    assert error.value.response["Error"]["Message"] == f"Layer version {other_account} does not exist."
    second = lam.publish_layer_version(LayerName="greetings", Content={"ZipFile": zip_of({"python/a.py": ""})})
    with pytest.raises(ClientError) as error:
        create_function(lam, "greeter", REPORT, Layers=[arn, second["LayerVersionArn"]])
    assert error.value.response["Error"]["Message"].startswith(
        "Two different versions of the same layer are not allowed to be referenced in the same function.")
    many = [publish(lam, f"layer{n}", {"python/x.py": ""}) for n in range(6)]
    with pytest.raises(ClientError) as error:
        create_function(lam, "greeter", REPORT, Layers=many)
    assert error.value.response["Error"]["Message"] == "Cannot reference more than 5 layers."
    unchecked = door.client("lambda", validate=False)
    with pytest.raises(ClientError) as error:
        create_function(unchecked, "greeter", REPORT, Layers=["not-an-arn"])
    assert error.value.response["Error"]["Code"] == "ValidationException"
    assert "Value '[not-an-arn]' at 'layers' failed to satisfy constraint: Member must satisfy constraint: [" in \
        error.value.response["Error"]["Message"]  # Lambda reports the whole list (test_layer_function_answers)


def test_layer_function_answers(door):
    """LocalStack's AWS-validated test_lambda_api.snapshot.json, TestLambdaLayer::test_layer_function_exceptions
    (recorded 25-11-2025, github.com/localstack/localstack@8b9a79f05846835cf4dff63ab7eefdde9df83783): two, three and
    two identical versions of one layer (the first pair named), a layer ARN without its version (the whole list, every
    constraint of its members), a layer of another region (checked before the function's name is)."""
    lam = door.client("lambda")
    first, second, third = (publish(lam, "greetings", {"python/greeting.py": f"TEXT = {n}\n"}) for n in range(3))
    create_function(lam, "greeter", REPORT)

    def message(layers) -> str:
        with pytest.raises(ClientError) as error:
            lam.update_function_configuration(FunctionName="greeter", Layers=layers)
        return error.value.response["Error"]["Message"]

    same = "Two different versions of the same layer are not allowed to be referenced in the same function. "
    assert message([first, second]) == same + f"{first} and {second} are versions of the same layer."
    assert message([first, second, third]) == same + f"{first} and {second} are versions of the same layer."
    assert message([first, first]) == same + f"{first} and {first} are versions of the same layer."
    layer = first.rsplit(":", 1)[0]
    assert message([layer]) == (
        f"1 validation error detected: Value '[{layer}]' at 'layers' failed to satisfy constraint: Member must satisfy "
        "constraint: [Member must have length less than or equal to 2048, Member must have length greater than or "
        "equal to 1, Member must satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:(eusc-)?[a-z]{2}"
        "((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}:\\d{12}:layer:[a-zA-Z0-9-_]+:[0-9]+)|(arn:[a-zA-Z0-9-]+:lambda:::"
        "awslayer:[a-zA-Z0-9-_]+), Member must not be null]")
    elsewhere = publish(door.client("lambda", region="eu-west-1"), "greetings", {"python/greeting.py": ""})
    with pytest.raises(ClientError) as error:
        create_function(lam, "greeter", REPORT, Layers=[elsewhere])
    assert error.value.response["Error"] == {"Code": "InvalidParameterValueException", "Message":
                                             "Layers are not in the same region as the function. Layers are expected "
                                             "to be in region us-east-1."}


def of_account(client, account_id: str):
    """The client, speaking for another account (moto's x-moto-account-id header, which Eddy honours too)."""
    def add_header(request, **_):
        request.headers["x-moto-account-id"] = account_id
    client.meta.events.register("before-sign.lambda.*", add_header)
    return client


def test_another_accounts_layer_needs_its_permission(door):
    owner = door.client("lambda")
    arn = publish(owner, "shared", {"python/greeting.py": "TEXT = 'shared'\n"})
    other_lam = of_account(door.client("lambda"), "111122223333")
    with pytest.raises(ClientError) as error:
        create_function(other_lam, "borrower", REPORT, Layers=[arn])
    assert error.value.response["Error"]["Code"] == "AccessDeniedException"
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    owner.add_layer_version_permission(LayerName="shared", VersionNumber=1, StatementId="everyone",
                                       Action="lambda:GetLayerVersion", Principal="111122223333")
    create_function(other_lam, "borrower", REPORT, Layers=[arn])
    assert invoke(other_lam, "borrower")["greeting"] == "shared"


def test_get_layer_version_by_arn(door):
    lam = door.client("lambda")
    arn = publish(lam, "greetings", {"python/greeting.py": "TEXT = 'x'\n"})
    found = lam.get_layer_version_by_arn(Arn=arn)
    assert (found["LayerVersionArn"], found["Version"]) == (arn, 1)
    by_name = lam.get_layer_version(LayerName="greetings", VersionNumber=1)
    assert {**found, "ResponseMetadata": None} == {**by_name, "ResponseMetadata": None}
    with pytest.raises(lam.exceptions.ResourceNotFoundException):
        lam.get_layer_version_by_arn(Arn=arn[:-1] + "4")
    assert [layer["LayerName"] for layer in lam.list_layers()["Layers"]] == ["greetings"]


def test_a_functions_layers_survive_a_restart(tmp_path):
    def client():
        return boto3.client("lambda", region_name="us-east-1")

    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        lam = client()
        arn = publish(lam, "greetings", {"python/greeting.py": "TEXT = 'kept'\n"})
        create_function(lam, "greeter", REPORT, Layers=[arn])
    with emulate(state_dir=tmp_path, housekeeping_interval=None):
        lam = client()
        assert lam.get_function_configuration(FunctionName="greeter")["Layers"][0]["Arn"] == arn
        assert invoke(lam, "greeter")["greeting"] == "kept"


def test_delete_layer_version_answers_204_whether_there_or_not(door):
    """DeleteLayerVersion answers 204 for a version deleted, deleted again, of a layer never published, and refuses a
    version below 1, as AWS was recorded answering: LocalStack's test_lambda_api.snapshot.json,
    TestLambdaLayer::test_layer_exceptions (delete_layer_response, delete_layer_again_response,
    delete_nonexistent_response, delete_nonexistent_version_response, all {"HTTPStatusCode": 204} with no body;
    delete_layer_version_exc_layerversion_invalid_version) and ::test_layer_lifecycle (delete_layer_1)."""
    lam = door.client("lambda")
    publish(lam, "greetings", {"python/greeting.py": "TEXT = 'one'\n"})
    second = publish(lam, "greetings", {"python/greeting.py": "TEXT = 'two'\n"})

    def deleted(name: str, version: int) -> tuple:
        answer = lam.delete_layer_version(LayerName=name, VersionNumber=version)
        return answer["ResponseMetadata"]["HTTPStatusCode"], {k: v for k, v in answer.items() if k != "ResponseMetadata"}

    assert deleted("greetings", 1) == (204, {})
    assert deleted("greetings", 1) == (204, {})
    assert deleted("greetings", 99) == (204, {})
    assert deleted("never-published", 1) == (204, {})
    with pytest.raises(ClientError) as caught:
        lam.delete_layer_version(LayerName="greetings", VersionNumber=0)
    error = caught.value.response
    assert (error["Error"], error["message"], error["ResponseMetadata"]["HTTPStatusCode"]) == (
        {"Code": "InvalidParameterValueException", "Message": "Layer Version Cannot be less than 1"},
        "Layer Version Cannot be less than 1", 400)
    assert [v["LayerVersionArn"] for v in lam.list_layer_versions(LayerName="greetings")["LayerVersions"]] == [second]
