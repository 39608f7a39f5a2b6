"""moto_seam/speedups/action_lookup.py pinned against moto's own method_names_from_class: for the response classes of
the services Eddy serves through moto's full path, patched as an open emulator patches them, every name the class
answers to (its methods, static and class methods, properties, attributes, the metaclass's names) is found among its
methods exactly when moto's list holds it, and the names listed are moto's; moto's own function is back once the
emulator closes. Through boto3: a request of each protocol still reaches its action, and an action the class does
not have is answered as with moto's own lookup."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from moto.awslambda.responses import LambdaResponse
from moto.core import responses as moto_responses
from moto.core.utils import method_names_from_class as motos_method_names
from moto.dynamodb.responses import DynamoHandler
from moto.events.responses import EventsHandler
from moto.kinesis.responses import KinesisResponse
from moto.s3.responses import S3Response
from moto.sns.responses import SNSResponse
from moto.sqs.responses import SQSResponse

from eddy import emulate
from eddy.emulator.moto_seam.speedups import action_lookup
from tests.conftest import QUIET

CLASSES = [DynamoHandler, SQSResponse, KinesisResponse, SNSResponse, S3Response, LambdaResponse, EventsHandler]
#: names no class has, and names of the metaclass and of object that dir() of a class does or does not list
PROBES = ["no_such_action", "", "mro", "register", "__init_subclass__", "__subclasshook__", "__init__", "__class__",
          "__dict__", "_abc_impl"]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_a_name_is_among_the_methods_exactly_when_motos_list_holds_it(cls):
    with emulate(**QUIET):  # the classes as an open emulator patches them (its seam's methods added or replaced)
        motos = motos_method_names(cls)
        names = set(dir(cls)) | set(dir(type(cls))) | set(PROBES)
        ours = action_lookup.method_names_from_class(cls)
        assert [name for name in sorted(names) if name in ours] == [name for name in sorted(names) if name in motos]
        assert list(ours) == motos
        assert len(motos) > 20


def test_motos_own_lookup_is_back_once_the_emulator_closes():
    with emulate(**QUIET):
        assert moto_responses.method_names_from_class is action_lookup.method_names_from_class
    assert moto_responses.method_names_from_class is motos_method_names


def answers() -> list:
    """A request of each of moto's protocols through its action, and an action moto's SQS does not have."""
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="work")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    kinesis = boto3.client("kinesis", region_name="us-east-1")
    kinesis.create_stream(StreamName="clicks", ShardCount=1)
    sns = boto3.client("sns", region_name="us-east-1")
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="photos")
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    try:  # in botocore's model, not among moto's SQSResponse methods
        sqs.list_message_move_tasks(SourceArn=arn)
        refusal = None
    except ClientError as error:
        refusal = (error.response["ResponseMetadata"]["HTTPStatusCode"], error.response["Error"])
    except NotImplementedError as error:  # moto's call_action, in this process, for an action its class does not have
        refusal = str(error)
    return [
        [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]],
        kinesis.list_streams()["StreamNames"],
        [t["TopicArn"] for t in sns.list_topics()["Topics"]],
        [b["Name"] for b in s3.list_buckets()["Buckets"]],
        refusal,
    ]


def test_requests_reach_their_actions_and_a_missing_one_is_answered_as_with_motos_lookup(monkeypatch):
    with emulate(**QUIET):
        ours = answers()
    with emulate(**QUIET):
        monkeypatch.setattr(moto_responses, "method_names_from_class", motos_method_names)
        motos = answers()
        monkeypatch.undo()
    assert ours == motos
    assert motos[:4] == [["m"], ["clicks"], [], ["photos"]]
    assert motos[4] == "The list_message_move_tasks action has not been implemented"
