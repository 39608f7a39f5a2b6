"""`eddy tail`: one readable line per record, following the stream across rollovers and splits."""

from __future__ import annotations

import re
import subprocess
import sys
import threading

from eddy.emulator.streams.record_lines import describe
from eddy.emulator.cli.stream_reader import follow
from tests.conftest import ServerDoor, eddy_server, http_json

from tests.emulator.helpers import create_table


def test_a_record_as_one_line():
    record = {"eventName": "MODIFY", "dynamodb": {
        "ApproximateCreationDateTime": 1700000000, "Keys": {"pk": {"S": "a"}},
        "OldImage": {"pk": {"S": "a"}, "n": {"N": "1"}, "gone": {"S": "x"}},
        "NewImage": {"pk": {"S": "a"}, "n": {"N": "2"}, "tag": {"SS": ["x"]}}}}
    assert describe(record) == "22:13:20 MODIFY  pk='a'  -gone  n: 1 -> 2  +tag={'x'}"
    ttl = {"eventName": "REMOVE", "userIdentity": {"Type": "Service"}, "dynamodb": {
        "ApproximateCreationDateTime": 1700000000, "Keys": {"pk": {"S": "s"}}, "OldImage": {"pk": {"S": "s"}}}}
    assert describe(ttl) == "22:13:20 REMOVE  pk='s'  (TTL)"


def test_tail_follows_across_rollovers_and_splits(server_url):
    http_json(server_url + "/moto-api/reset", {})
    door = ServerDoor(server_url)
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb)["LatestStreamArn"]
    tail = subprocess.Popen([sys.executable, "-m", "eddy", "tail", "orders", "--endpoint-url", server_url,
                             "--from-start", "--count", "6"], stdout=subprocess.PIPE, text=True)
    assert tail.stdout.readline().startswith("Following ")
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(tail.stdout), daemon=True)
    reader.start()
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
    shard_id = door.client("dynamodbstreams").describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    door.split(arn, shard_id)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}, "n": {"N": "2"}})
    door.rollover(arn)
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
    dynamodb.delete_item(TableName="orders", Key={"pk": {"S": "b"}})
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "d"}})
    assert tail.wait(timeout=30) == 0
    reader.join(timeout=120)  # ends at the output's end, which the exit has closed
    events = [line.split()[1:3] for line in lines]
    assert ["MODIFY", "pk='a'"] in events and ["REMOVE", "pk='b'"] in events
    assert events.index(["INSERT", "pk='a'"]) < events.index(["MODIFY", "pk='a'"])
    assert len(events) == 6 and any("n: 1 -> 2" in line for line in lines)


def test_tail_resumes_after_its_iterator_expired_from_the_last_record_it_printed():
    with eddy_server("--housekeeping-interval", "0", "--in-memory") as (url, _):
        door = ServerDoor(url)
        dynamodb = door.client("dynamodb")
        create_table(dynamodb)
        tail = subprocess.Popen([sys.executable, "-m", "eddy", "tail", "orders", "--endpoint-url", url,
                                 "--from-start", "--count", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        assert tail.stdout.readline().startswith("Following ")
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        first = tail.stdout.readline()
        door.advance(1000)  # the reader's iterator (15 minutes) expires while it waits
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
        dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
        out, err = tail.communicate(timeout=60)
    assert (tail.returncode, err) == (0, "")
    assert [line.split()[1:3] for line in [first, *out.splitlines()]] == [
        ["INSERT", "pk='a'"], ["INSERT", "pk='b'"], ["INSERT", "pk='c'"]]


class HeldStreams:
    """A Streams client whose GetRecords can be held at a gate: the test changes the world while the tail waits."""

    def __init__(self, streams) -> None:
        self.streams = streams
        self.caught_up, self.held, self.gate = threading.Event(), threading.Event(), threading.Event()
        self.hold = False

    def __getattr__(self, name):
        return getattr(self.streams, name)

    def get_records(self, **params):
        if self.hold:
            self.held.set()
            self.gate.wait()
        page = self.streams.get_records(**params)
        if not page["Records"]:
            self.caught_up.set()
        return page


def test_tail_from_now_resumes_where_it_was_when_its_iterator_expired_before_it_printed_anything(door):
    dynamodb = door.client("dynamodb")
    arn = create_table(dynamodb)["LatestStreamArn"]
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "before"}})  # written before the tail began: not shown
    streams = HeldStreams(door.client("dynamodbstreams"))
    seen: list[str] = []
    done = threading.Event()

    def tail() -> None:
        for record in follow(streams, arn, from_start=False, poll_seconds=0.05, stop=done.is_set):
            seen.append(record["dynamodb"]["Keys"]["pk"]["S"])
            if len(seen) == 2:
                done.set()

    reader = threading.Thread(target=tail, daemon=True)
    reader.start()
    assert streams.caught_up.wait(60)  # the tail has begun its shard and read to its end
    streams.hold = True
    assert streams.held.wait(60)  # its next read waits, with the iterator it holds
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "b"}})
    door.advance(1000)  # that iterator (15 minutes) expires
    dynamodb.put_item(TableName="orders", Item={"pk": {"S": "c"}})
    streams.hold = False
    streams.gate.set()
    reader.join(60)
    assert seen == ["b", "c"]


JOB = '''
def handler(event, context):
    raise RuntimeError("cannot do " + event["Records"][0]["body"])
'''


def test_tail_a_queue_shows_what_happens_to_its_messages_without_taking_them(server_url):
    from tests.emulator.functions.test_functions import create_function

    http_json(server_url + "/moto-api/reset", {})
    door = ServerDoor(server_url)
    sqs, lam = door.client("sqs"), door.client("lambda")
    arn_of = lambda url: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    dlq_arn = arn_of(sqs.create_queue(QueueName="jobs-dlq")["QueueUrl"])
    url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "30", "RedrivePolicy": (
        f'{{"deadLetterTargetArn": "{dlq_arn}", "maxReceiveCount": "1"}}')})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="before the tail")  # from now: not shown
    tail = subprocess.Popen([sys.executable, "-m", "eddy", "tail", "--queue", "jobs", "--endpoint-url",
                             server_url, "--count", "7"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert tail.stdout.readline() == f"Following {arn_of(url)} (Ctrl-C to stop)\n"
    message_id = sqs.send_message(QueueUrl=url, MessageBody="first")["MessageId"]
    create_function(lam, "jobs", JOB)
    lam.create_event_source_mapping(EventSourceArn=arn_of(url), FunctionName="jobs", BatchSize=10)
    assert door.wait_idle(60)["Idle"]
    door.advance(31)  # visible again: the next receive moves both messages to the dead-letter queue
    assert door.wait_idle(60)["Idle"]
    out, err = tail.communicate(timeout=60)
    assert (tail.returncode, err) == (0, "")
    mine = [line.split("  ", 1)[1] for line in out.splitlines() if message_id in line]
    assert mine == [f"SENT           {message_id}  'first'",
                    f"RECEIVED       {message_id}  receive count 1  by a poller (a mapping or a pipe)",
                    f"RETURNED       {message_id}  receive count 1",
                    f"DEAD-LETTERED  {message_id}  receive count 1  to jobs-dlq"]
    assert len(out.splitlines()) == 7  # and the earlier message's RECEIVED, RETURNED, DEAD-LETTERED (not its SENT)
    assert sqs.get_queue_attributes(QueueUrl=sqs.get_queue_url(QueueName="jobs-dlq")["QueueUrl"], AttributeNames=[
        "ApproximateNumberOfMessages"])["Attributes"]["ApproximateNumberOfMessages"] == "2"


def test_tail_a_queue_that_does_not_exist_or_neither_says_so_in_one_line(server_url):
    missing = subprocess.run([sys.executable, "-m", "eddy", "tail", "--queue", "nothing", "--endpoint-url",
                              server_url], capture_output=True, text=True, timeout=60, check=False)
    assert (missing.returncode, missing.stdout, missing.stderr) == (
        1, "", "eddy tail: The specified queue does not exist: nothing\n")
    neither = subprocess.run([sys.executable, "-m", "eddy", "tail", "--endpoint-url", server_url],
                             capture_output=True, text=True, timeout=60, check=False)
    assert (neither.returncode, neither.stderr.count("\n")) == (2, 1)


WORKER = '''
def handler(event, context):
    record = event["Records"][0]
    if "Sns" in record:
        raise ValueError("cannot take " + record["Sns"]["Message"])
    return record["s3"]["object"]["key"]
'''


def test_tail_a_function_shows_its_triggers_outcomes(server_url):
    from tests.emulator.functions.test_functions import create_function

    http_json(server_url + "/moto-api/reset", {})
    door = ServerDoor(server_url)
    lam, s3, sns = door.client("lambda"), door.client("s3"), door.client("sns")
    function_arn = create_function(lam, "worker", WORKER)["FunctionArn"]
    lam.invoke(FunctionName="worker", Payload=b'{"Records": [{"s3": {"object": {"key": "before"}}}]}')  # not shown
    tail = subprocess.Popen([sys.executable, "-m", "eddy", "tail", "--function", "worker", "--endpoint-url",
                             server_url, "--count", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert tail.stdout.readline() == f"Following {function_arn} (Ctrl-C to stop)\n"
    s3.create_bucket(Bucket="uploads")
    s3.put_bucket_notification_configuration(Bucket="uploads", NotificationConfiguration={
        "LambdaFunctionConfigurations": [{"LambdaFunctionArn": function_arn, "Events": ["s3:ObjectCreated:*"]}]})
    s3.put_object(Bucket="uploads", Key="a.png", Body=b"png")
    assert door.wait_idle(60)["Idle"]
    topic = sns.create_topic(Name="orders")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function_arn)
    sns.publish(TopicArn=topic, Message="order 7")
    out, err = tail.communicate(timeout=120)
    assert (tail.returncode, err) == (0, "")
    line = re.compile(r"^\d\d:\d\d:\d\d  (\w+) +[\d.]+ ms  from (\S+)  [0-9a-f-]{36}(?:  (.*))?$")
    assert [line.match(text).groups() for text in out.splitlines()] == [
        ("Succeeded", "s3", None), ("Failed", "sns", "ValueError: cannot take order 7")]


SHOP = """
Resources:
%s
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement: [{Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: sts:AssumeRole}]
  Worker:
    Type: AWS::Lambda::Function
    Properties:
      FunctionName: shop-worker
      Runtime: python3.12
      Handler: index.handler
      Role: !GetAtt Role.Arn
      Code:
        ZipFile: |
          def handler(event, context):
              if event.get("fail"):
                  raise ValueError("cannot take order " + str(event["fail"]))
              return "ok"
"""


def test_tail_a_stack_follows_its_events_and_its_functions_until_it_is_deleted(server_url):
    http_json(server_url + "/moto-api/reset", {})
    door = ServerDoor(server_url)
    cloudformation, lam = door.client("cloudformation"), door.client("lambda")
    stack_id = cloudformation.create_stack(StackName="shop", TemplateBody=SHOP % "", Capabilities=["CAPABILITY_IAM"])["StackId"]
    lam.invoke(FunctionName="shop-worker", Payload=b"{}")  # before the tail: not shown
    tail = subprocess.Popen([sys.executable, "-m", "eddy", "tail", "--stack", "shop", "--endpoint-url", server_url],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert tail.stdout.readline() == f"Following {stack_id} (Ctrl-C to stop)\n"
    cloudformation.update_stack(StackName="shop", TemplateBody=SHOP % "  Inbox: {Type: AWS::SQS::Queue}",
                                Capabilities=["CAPABILITY_IAM"])
    lam.invoke(FunctionName="shop-worker", Payload=b'{"fail": 7}')
    lines = []
    while not lines or not lines[-1].startswith("shop-worker  "):  # the tail looks every quarter second
        lines.append(tail.stdout.readline().rstrip("\n"))
    cloudformation.delete_stack(StackName="shop")
    out, err = tail.communicate(timeout=120)  # it ends by itself once the stack is deleted
    assert (tail.returncode, err) == (0, "")
    event = re.compile(r"^\d\d:\d\d:\d\d  (\S+) *  (\S+)  (\S+)(?:  (.*))?$")
    lines += out.splitlines()
    invocation = next(line for line in lines if line.startswith("shop-worker  "))
    assert re.fullmatch(r"shop-worker  \d\d:\d\d:\d\d  Failed +[\d.]+ ms  from Invoke  [0-9a-f-]{36}  "
                        r"ValueError: cannot take order 7", invocation), invocation
    stack = "AWS::CloudFormation::Stack"
    assert [event.match(line).groups() for line in lines if line != invocation] == [
        ("UPDATE_IN_PROGRESS", "shop", stack, "User Initiated"),
        ("CREATE_IN_PROGRESS", "Inbox", "AWS::SQS::Queue", None),
        ("CREATE_IN_PROGRESS", "Inbox", "AWS::SQS::Queue", "Resource creation Initiated"),
        ("CREATE_COMPLETE", "Inbox", "AWS::SQS::Queue", None),
        ("UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", "shop", stack, None),
        ("UPDATE_COMPLETE", "shop", stack, None),
        ("DELETE_IN_PROGRESS", "shop", stack, "User Initiated"),
        ("DELETE_IN_PROGRESS", "Worker", "AWS::Lambda::Function", None),
        ("DELETE_COMPLETE", "Worker", "AWS::Lambda::Function", None),
        ("DELETE_IN_PROGRESS", "Role", "AWS::IAM::Role", None), ("DELETE_COMPLETE", "Role", "AWS::IAM::Role", None),
        ("DELETE_IN_PROGRESS", "Inbox", "AWS::SQS::Queue", None), ("DELETE_COMPLETE", "Inbox", "AWS::SQS::Queue", None),
        ("DELETE_COMPLETE", "shop", stack, None)]
    assert lines.index(invocation) < lines.index(next(line for line in lines if "DELETE_IN_PROGRESS" in line))


def test_tail_a_stack_that_does_not_exist_says_so_in_one_line(server_url):
    http_json(server_url + "/moto-api/reset", {})
    result = subprocess.run([sys.executable, "-m", "eddy", "tail", "--stack", "nowhere", "--endpoint-url", server_url],
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "eddy tail: Stack with id nowhere does not exist\n")
