"""Where Node.js functions find the AWS SDK for JavaScript v3, and what Eddy says when it is nowhere."""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eddy.emulator.functions.runtimes import node_sdk
from tests.emulator.functions.test_node_functions import call, create_node


def fake_sdk(folder: Path) -> Path:
    """A node_modules folder holding a (tiny) @aws-sdk/client-dynamodb."""
    package = folder / "@aws-sdk" / "client-dynamodb"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@aws-sdk/client-dynamodb", "main": "index.js"}))
    (package / "index.js").write_text("exports.DynamoDBClient = class DynamoDBClient {}; exports.FAKE = true;\n")
    return folder


@pytest.fixture
def elsewhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Eddy installed outside a checkout: no .node/ beside it, an empty per-user cache, no EDDY_NODE_MODULES."""
    monkeypatch.setattr(node_sdk, "_CHECKOUT", tmp_path / "site-packages")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("EDDY_NODE_MODULES", raising=False)
    return tmp_path


def test_the_sdk_is_found_in_the_checkout_then_the_per_user_cache(elsewhere: Path, monkeypatch) -> None:
    assert node_sdk.sdk_modules() is None
    cache = fake_sdk(elsewhere / "cache" / "eddy" / "node" / "node_modules")
    assert node_sdk.sdk_modules() == cache
    checkout = elsewhere / "site-packages"
    (checkout / "pyproject.toml").parent.mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    assert node_sdk.sdk_modules() == cache  # a checkout without `make setup` has none: the cache still counts
    fake_sdk(checkout / ".node" / "node_modules")
    assert node_sdk.sdk_modules() == checkout / ".node" / "node_modules"
    own = fake_sdk(elsewhere / "own")
    monkeypatch.setenv("EDDY_NODE_MODULES", str(own))
    assert node_sdk.sdk_modules() == own


def test_a_function_importing_the_sdk_uses_the_cache(elsewhere: Path, emu) -> None:
    fake_sdk(elsewhere / "cache" / "eddy" / "node" / "node_modules")
    lam = emu.aws_client("lambda", "us-east-1")
    create_node(lam, "sdk", {"index.mjs": "import { FAKE } from '@aws-sdk/client-dynamodb';\n"
                                          "export const handler = async () => ({ fake: FAKE });"})
    response, answer = call(lam, "sdk")
    assert "FunctionError" not in response and answer == {"fake": True}


def test_without_the_sdk_and_without_npm_the_functions_error_says_what_to_run(elsewhere: Path, emu, caplog,
                                                                             monkeypatch) -> None:
    monkeypatch.setenv("EDDY_NODE", shutil.which("node"))
    monkeypatch.setenv("PATH", str(elsewhere))  # no npm: the SDK cannot be installed on first use
    lam = emu.aws_client("lambda", "us-east-1")
    create_node(lam, "sdk", {"index.mjs": "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n"
                                          "export const handler = async () => 'unreached';"})
    with caplog.at_level(logging.WARNING, logger="eddy.emulator.functions.runtimes.node_sdk"):
        response, answer = call(lam, "sdk")
    assert response["FunctionError"] == "Unhandled"
    # the Node.js runtime's words (naming the function's code file), then what to run
    assert re.fullmatch(r"Cannot find package '@aws-sdk/client-dynamodb' imported from /\S+/sdk/code/index\.mjs\n"
                        + re.escape(node_sdk.MISSING), answer["errorMessage"])
    assert caplog.messages == [f"{node_sdk.MISSING}: npm is not on PATH: install Node.js with npm (Debian/Ubuntu: "
                               "`sudo apt-get install -y nodejs npm`; others: https://nodejs.org), then run "
                               "`eddy setup node`"]
    assert "run `eddy setup node`" in node_sdk.MISSING


@pytest.mark.slow
def test_the_first_node_function_has_the_sdk_installed_once_for_every_project(elsewhere: Path, emu, caplog) -> None:
    """npm installs node-packages.json into the per-user cache (from npm's own cache when it has them) when the
    first worker starts; the function's real SDK calls reach Eddy; the next function finds it there."""
    emu.aws_client("dynamodb", "us-east-1").create_table(
        TableName="orders", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    lam = emu.aws_client("lambda", "us-east-1")
    lists = ("import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';\n"
             "export const handler = async () => (await new DynamoDBClient({}).send(new ListTablesCommand({}))).TableNames;")
    for name in ("first", "second"):
        create_node(lam, name, {"index.mjs": lists}, Timeout=60)
    with caplog.at_level(logging.INFO, logger="eddy.emulator.functions.runtimes.node_sdk"):
        assert [call(lam, name)[1] for name in ("first", "second")] == [["orders"], ["orders"]]
    cache = elsewhere / "cache" / "eddy" / "node"
    assert caplog.messages == [
        "Node.js functions import the AWS SDK for JavaScript v3 that Lambda's runtime provides: installing it into "
        f"{cache} with npm, once for every project (`eddy setup node` does the same)"]
    assert node_sdk.sdk_modules() == cache / "node_modules"


def test_eddy_setup_node_without_npm_says_what_to_install(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "eddy", "setup", "node", "--dir", str(tmp_path / "sdk")],
                          capture_output=True, text=True, env={**os.environ, "PATH": str(tmp_path)}, timeout=300)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("eddy setup node: npm is not on PATH: install Node.js with npm (Debian/Ubuntu: "
                           "`sudo apt-get install -y nodejs npm`; others: https://nodejs.org), then run `eddy setup node`\n")


def test_an_install_lacking_a_client_this_eddy_provides_says_to_run_setup(elsewhere: Path, emu) -> None:
    """An SDK installed by an earlier Eddy (fewer clients in its node-packages.json): `eddy setup node` adds them."""
    fake_sdk(elsewhere / "cache" / "eddy" / "node" / "node_modules")
    lam = emu.aws_client("lambda", "us-east-1")
    create_node(lam, "sfn", {"index.mjs": "import { SFNClient } from '@aws-sdk/client-sfn';\n"
                                          "export const handler = async () => 'unreached';"})
    response, answer = call(lam, "sfn")
    assert (response["FunctionError"], answer["errorType"]) == ("Unhandled", "Error")
    assert re.fullmatch(r"Cannot find package '@aws-sdk/client-sfn' imported from /\S+/sfn/code/index\.mjs\n"
                        + re.escape(node_sdk.OUTDATED), answer["errorMessage"])


def test_the_clients_eddy_provides_reach_it_and_one_it_does_not_says_to_bundle_it(emu) -> None:
    """The checkout's SDK (make setup: node-packages.json): Step Functions' client (which CDK's Provider framework
    loads) answers from Eddy; a client outside the list fails in the runtime's words, then Eddy's note."""
    assert node_sdk.sdk_modules() is not None, "run `make setup`"
    lam = emu.aws_client("lambda", "us-east-1")
    create_node(lam, "sfn", {"index.js": "const { SFNClient, ListStateMachinesCommand } = require('@aws-sdk/client-sfn');\n"
                                         "exports.handler = async () => "
                                         "(await new SFNClient({}).send(new ListStateMachinesCommand({}))).stateMachines;"},
                Timeout=60)
    assert call(lam, "sfn")[1] == []
    create_node(lam, "appsync", {"index.js": "const { AppSyncClient } = require('@aws-sdk/client-appsync');\n"
                                             "exports.handler = async () => 'unreached';"})
    response, answer = call(lam, "appsync")
    assert (response["FunctionError"], answer["errorType"]) == ("Unhandled", "Runtime.ImportModuleError")
    assert answer["errorMessage"].startswith("Error: Cannot find module '@aws-sdk/client-appsync'\nRequire stack:\n")
    assert answer["errorMessage"].endswith("\n" + node_sdk.NOT_PROVIDED)


#: what aws-cdk-lib's AwsCustomResource handler does with an AwsSdkCall's assumedRoleArn (custom-resource-handlers'
#: aws-custom-resource-handler/aws-sdk-v3-handler.ts): `await import('@aws-sdk/credential-providers')`, then the
#: call's client made with `fromTemporaryCredentials({params: {RoleArn, RoleSessionName}, clientConfig: {region}})`.
#: CDK bundles that handler with esbuild and `external: ['@aws-sdk/*']` (scripts/minify-and-bundle-sources.ts): the
#: package comes from Lambda's Node.js runtime, which provides it, so Eddy's provides it too (node-packages.json).
ASSUMING = """
const { STSClient, GetCallerIdentityCommand } = require('@aws-sdk/client-sts');
const { SSMClient, PutParameterCommand } = require('@aws-sdk/client-ssm');
exports.handler = async (event) => {
  const { fromTemporaryCredentials } = await import('@aws-sdk/credential-providers');
  const credentials = fromTemporaryCredentials({
    params: { RoleArn: event.role, RoleSessionName: `${event.stamp}-NoteParameter`.substring(0, 64) },
    clientConfig: { region: event.region },
  });
  const caller = await new STSClient({ credentials, region: event.region }).send(new GetCallerIdentityCommand({}));
  const put = await new SSMClient({ credentials, region: event.region }).send(
    new PutParameterCommand({ Name: '/assumed/note', Value: 'noted', Type: 'String' }));
  return { assumed: caller.Arn, account: caller.Account, version: put.Version };
};
"""


def test_a_function_assuming_a_role_with_the_credential_providers_calls_as_that_role(door) -> None:
    """An AwsCustomResource-like function with an assumed role: STS AssumeRole through the function's own
    credentials, then calls signed with the role's temporary credentials, which Eddy's STS answers for as the
    assumed role (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION, as AWS's GetCallerIdentity documents it)."""
    iam, lam = door.client("iam"), door.client("lambda")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName="note-writer", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    create_node(lam, "assumer", {"index.js": ASSUMING}, Timeout=60)
    response, answer = call(lam, "assumer", {"role": role["Arn"], "stamp": "1764328800000", "region": "us-east-1"})
    assert "FunctionError" not in response, answer
    assert answer == {"assumed": "arn:aws:sts::123456789012:assumed-role/note-writer/1764328800000-NoteParameter",
                      "account": "123456789012", "version": 1}
    parameter = door.client("ssm").get_parameter(Name="/assumed/note")["Parameter"]
    assert {key: parameter[key] for key in ("Name", "Type", "Value", "Version")} == {
        "Name": "/assumed/note", "Type": "String", "Value": "noted", "Version": 1}


#: what aws-cdk-lib's AwsCustomResource handler does with installLatestAwsSdk "true" (its default) before its SDK
#: call (custom-resource-handlers' aws-custom-resource-handler, loadAwsSdk and installLatestSdk; the same in
#: aws-cdk-lib 2.275.0's bundled handler): npm install the client into /tmp, require it from there, and when the
#: install throws, log that and require the runtime's own
LATEST_SDK = """
const { execSync } = require('child_process');
exports.handler = async (event) => {
  const name = event.package;
  try {
    console.log(`Installing latest AWS SDK v3: ${name}`);
    execSync(`NPM_CONFIG_UPDATE_NOTIFIER=false HOME=/tmp npm install ${JSON.stringify(name)} --omit=dev --no-package-lock --no-save --prefix /tmp`);
    return { from: 'tmp', client: Object.keys(require(`/tmp/node_modules/${name}`)).includes('SSMClient') };
  } catch (e) {
    console.log(`Failed to install latest AWS SDK v3. Falling back to pre-installed version. Error: ${e}`);
    try {
      return { from: 'runtime', client: Object.keys(require(name)).includes('SSMClient') };
    } catch {
      return { from: 'nowhere', error: `Package ${name} does not exist.` };
    }
  }
};
"""


def test_a_latest_sdk_install_of_a_client_the_runtime_provides_is_skipped_and_others_reach_npm(door, tmp_path) -> None:
    """AwsCustomResource's run-time `npm install` (installLatestAwsSdk): of a client Eddy's runtime provides, it
    throws at once without running npm, so the handler falls back to the runtime's client (one clear log line); of
    one Eddy does not provide, npm is run as asked. npm here is a stand-in on the function's PATH that writes down its
    arguments and fails, as npm does without a network."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    asked = tmp_path / "npm-arguments"
    (bin_folder / "npm").write_text(f'#!/bin/sh\necho "$@" >> {asked}\nexit 1\n')
    (bin_folder / "npm").chmod(0o755)
    lam = door.client("lambda")
    create_node(lam, "latest", {"index.js": LATEST_SDK}, Timeout=60,
                Environment={"Variables": {"PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"}})

    response, answer = call(lam, "latest", {"package": "@aws-sdk/client-ssm"})
    assert (answer, asked.exists()) == ({"from": "runtime", "client": True}, False)  # npm never ran
    logged = base64.b64decode(lam.invoke(FunctionName="latest", LogType="Tail", Payload=json.dumps(
        {"package": "@aws-sdk/client-ssm"}))["LogResult"]).decode()
    lines = [line.split("\tINFO\t", 1)[1] for line in logged.splitlines() if "\tINFO\t" in line]
    assert lines == [
        "Installing latest AWS SDK v3: @aws-sdk/client-ssm",
        "Failed to install latest AWS SDK v3. Falling back to pre-installed version. Error: Error: Eddy's Node.js "
        "runtime provides @aws-sdk/client-ssm: the run-time `npm install` into /tmp is skipped (AwsCustomResource's "
        "installLatestAwsSdk) and the runtime's version is used"]

    response, answer = call(lam, "latest", {"package": "@aws-sdk/client-appsync"})
    assert answer == {"from": "nowhere", "error": "Package @aws-sdk/client-appsync does not exist."}
    assert asked.read_text() == "install @aws-sdk/client-appsync --omit=dev --no-package-lock --no-save --prefix /tmp\n"
