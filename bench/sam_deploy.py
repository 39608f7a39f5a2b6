"""Deploy time of a SAM app with the real aws-sam-cli against `eddy serve`: tests/emulator/cloudformation/app/ (a
table's stream to a Python function with batch item failures and an SQS on-failure destination, a bucket notifying
the function, a topic to a queue: 12 resources once SAM's transform has run). Each round starts a fresh
`eddy serve --in-memory` and times, as a user runs them: `sam build`, the first `sam deploy --resolve-s3` (SAM's
managed stack with its artifacts bucket included), a redeploy after a code change and a new batch size (`sam build`
again, then `sam deploy`), and `sam delete` (the bucket emptied first, as on AWS). For each deploy it also reports
Eddy's own share: the stack's events from its CREATE_IN_PROGRESS (UPDATE_IN_PROGRESS) to its CREATE_COMPLETE
(UPDATE_COMPLETE); the rest of a deploy is the tool's own work and its waiting between polls.

Needs the pinned tools in .tools/deploy/ (`make deploy-tools`). Medians over the rounds:

    .venv/bin/python bench/sam_deploy.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import boto3
from server_put_item import free_port, start

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.emulator.cloudformation.deploy_tools import tools_environment

APP = ROOT / "tests" / "emulator" / "cloudformation" / "app"
TOOLS = ROOT / ".tools" / "deploy" / "bin"
STACK = "sam-app"


def timed(command: list[str], cwd: Path, url: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=tools_environment(url), capture_output=True, text=True, timeout=1800,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed:\n{done.stdout}\n{done.stderr}")
    return time.perf_counter() - started


def client(url: str, service: str):
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def engine_seconds(url: str, verb: str) -> float:
    """The stack's last `verb` operation on Eddy's clock: its <verb>_IN_PROGRESS event to its <verb>_COMPLETE."""
    described = client(url, "cloudformation").describe_stack_events(StackName=STACK)["StackEvents"]
    own = [event for event in reversed(described) if event["LogicalResourceId"] == STACK]
    began = [event["Timestamp"] for event in own if event["ResourceStatus"] == f"{verb}_IN_PROGRESS"][-1]
    ended = [event["Timestamp"] for event in own if event["ResourceStatus"] == f"{verb}_COMPLETE"][-1]
    return (ended - began).total_seconds()


def one_round(work: Path) -> dict[str, float]:
    app = work / "app"
    shutil.copytree(APP, app)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start([sys.executable, "-m", "eddy", "serve", "--in-memory", "--port", str(port)], url, "/_eddy/health")
    try:
        sam = str(TOOLS / "sam")
        deploy = [sam, "deploy", "--stack-name", STACK, "--resolve-s3", "--capabilities", "CAPABILITY_IAM",
                  "--no-confirm-changeset", "--no-progressbar", "--region", "us-east-1"]
        figures = {"sam build": timed([sam, "build"], app, url)}
        figures["first sam deploy"] = timed(deploy, app, url)
        figures["  Eddy's create"] = engine_seconds(url, "CREATE")
        source = app / "src" / "app.py"
        source.write_text(source.read_text().replace('MARK = "one"', 'MARK = "two"'))
        figures["sam build again"] = timed([sam, "build"], app, url)
        figures["redeploy"] = timed(deploy + ["--parameter-overrides", "BatchSize=5"], app, url)
        figures["  Eddy's update"] = engine_seconds(url, "UPDATE")
        outputs = client(url, "cloudformation").describe_stacks(StackName=STACK)["Stacks"][0]["Outputs"]
        bucket = next(output["OutputValue"] for output in outputs if output["OutputKey"] == "Uploads")
        s3 = client(url, "s3")
        for listed in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
            s3.delete_object(Bucket=bucket, Key=listed["Key"])
        figures["sam delete"] = timed([sam, "delete", "--stack-name", STACK, "--no-prompts", "--region", "us-east-1"],
                                      app, url)
        return figures
    finally:
        server.terminate()
        server.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not (TOOLS / "sam").exists():
        sys.exit("bench/sam_deploy.py: aws-sam-cli is not in .tools/deploy/: run `make deploy-tools`")
    rounds = []
    for number in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="eddy-bench-sam-") as work:
            rounds.append(one_round(Path(work)))
        print(f"round {number + 1}: " + ", ".join(f"{name.strip()} {value:.1f} s" for name, value in rounds[-1].items()))
    load = os.getloadavg()[0]
    print(f"SAM app (tests/emulator/cloudformation/app/) against eddy serve --in-memory, median of {args.rounds} "
          f"rounds (load average {load:.1f}):")
    for name in rounds[0]:
        print(f"  {name:<18} {statistics.median(figures[name] for figures in rounds):6.1f} s")


if __name__ == "__main__":
    main()
