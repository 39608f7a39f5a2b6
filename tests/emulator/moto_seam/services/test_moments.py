"""moments.py: what it replaces in moto is still what it was written against, and a request's moment makes
moto's ids and times repeatable (what replay after a restart relies on), on the emulator's clock."""

from __future__ import annotations

import inspect
import threading
import time
from datetime import datetime

import boto3
import moto.core.utils as moto_utils
from moto.kms import models as kms_models
from moto.kms.models import Key
from moto.kms.utils import generate_master_key
from moto.moto_api._internal import mock_random
from moto.moto_api._internal.moto_random import MotoRandom

from eddy.emulator.moto_seam.services import bucket_moments, kms_keys, long_polls, moments


def test_moto_reads_time_and_randomness_where_the_patches_replace_them():
    assert "datetime.datetime.now(UTC)" in inspect.getsource(moto_utils)
    assert "self.getrandbits(128)" in inspect.getsource(MotoRandom.uuid4)
    assert "os.urandom(UPLOAD_ID_BYTES)" in inspect.getsource(bucket_moments._original_multipart_init)
    assert "self.creation_date = datetime.datetime.now(" in inspect.getsource(bucket_moments._original_bucket_init)
    receive = inspect.getsource(long_polls._original_receive)
    assert "queue.wait_for_messages(1)" in receive and "wait_seconds_timeout == 0" in receive
    assert list(inspect.signature(long_polls._original_receive).parameters) == [
        "self", "queue_name", "count", "wait_seconds_timeout", "visibility_timeout", "message_attribute_names"]
    # KMS: a key's material and private key, made by these names of moto.kms.models, drawn where no seed reaches
    key_init = inspect.getsource(Key.__init__)
    assert "self.key_material = generate_master_key()" in key_init
    assert "self.private_key = generate_private_key(self.key_spec)" in key_init
    assert "os.urandom(" in inspect.getsource(kms_keys._original_master_key.__globals__["generate_data_key"])
    assert kms_keys._original_master_key is generate_master_key


def test_a_moment_repeats_a_kms_keys_material_and_keeps_its_private_key(emu):
    materials, private = [], []
    for seed in (5, 5):
        moments.begin(seed, 0.0)
        try:
            materials.append(kms_models.generate_master_key())
            private.append(kms_models.generate_private_key("ECC_NIST_P256"))
            kept = moments.current().kept
        finally:
            moments.end()
    assert materials[0] == materials[1] and len(materials[0]) == 32
    assert len(kept) == 1  # the one key drawn in the moment, as DER
    moments.begin(5, 0.0, replaying=True, kept=kept)
    try:
        replayed = kms_models.generate_private_key("ECC_NIST_P256")
    finally:
        moments.end()
    assert replayed.private_key.private_numbers() == private[1].private_key.private_numbers()
    assert replayed.valid_signing_algorithms == ["ECDSA_SHA_256"]


def test_a_moment_repeats_its_ids_and_its_instant(emu):
    drawn = []
    for seed in (41, 41, 42):
        moments.begin(seed, 1_000_000.25)
        try:
            drawn.append((str(mock_random.uuid4()), mock_random.get_random_hex(12), moto_utils.utcnow(),
                          moto_utils.unix_time()))
        finally:
            moments.end()
    assert drawn[0] == drawn[1] and drawn[0][0] != drawn[2][0]
    assert drawn[0][2] == datetime(1970, 1, 12, 13, 46, 40, 250000) and drawn[0][3] == 1_000_000.25


def test_outside_a_moment_moto_reads_the_emulators_clock(emu):
    emu.clock.advance(86_400)
    assert abs(moto_utils.unix_time() - emu.clock.now()) < 5
    assert abs(moto_utils.unix_time() - time.time() - 86_400) < 5


def test_s3_and_sqs_times_are_the_emulators(door):
    door.advance(10 * 86_400)
    s3, sqs = door.client("s3"), door.client("sqs")
    s3.create_bucket(Bucket="clocked")
    s3.put_object(Bucket="clocked", Key="k", Body=b"1")
    modified = s3.head_object(Bucket="clocked", Key="k")["LastModified"]
    assert abs(modified.timestamp() - door.now()) < 60
    created = next(b for b in s3.list_buckets()["Buckets"] if b["Name"] == "clocked")["CreationDate"]
    assert abs(created.timestamp() - door.now()) < 60
    queue = sqs.create_queue(QueueName="clocked")["QueueUrl"]
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    sent = sqs.receive_message(QueueUrl=queue, AttributeNames=["SentTimestamp"])["Messages"][0]
    assert abs(int(sent["Attributes"]["SentTimestamp"]) / 1000 - door.now()) < 60


def test_a_long_poll_answers_with_a_message_sent_while_it_waits(door):
    sqs = door.client("sqs")
    queue = sqs.create_queue(QueueName="polled")["QueueUrl"]
    answers = []
    poller = threading.Thread(target=lambda: answers.append(
        sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=20).get("Messages", [])))
    poller.start()
    door.client("sqs").send_message(QueueUrl=queue, MessageBody="while waiting")
    poller.join(timeout=60)
    assert [message["Body"] for message in answers[0]] == ["while waiting"]


def test_empty_long_polls_last_their_wait_and_wait_side_by_side(door):
    """An empty poll lasts its wait; polls wait with the journal's lock released: three 20-second polls are waiting
    while messages are sent to their queues, and each answers with its message (held, the lock would keep the sends
    out until the first poll ended empty). No wall-clock bound: on a busy machine only the order of events counts."""
    sqs = door.client("sqs")
    empty = sqs.create_queue(QueueName="empty")["QueueUrl"]
    started = time.monotonic()
    assert "Messages" not in sqs.receive_message(QueueUrl=empty, WaitTimeSeconds=1)
    assert time.monotonic() - started >= 1

    queues = [sqs.create_queue(QueueName=f"waited-{n}")["QueueUrl"] for n in range(3)]
    clients = [door.client("sqs") for _ in queues]
    answers: dict[str, list] = {}
    pollers = [threading.Thread(target=lambda url=url, client=client: answers.setdefault(url, [])
                                .extend(client.receive_message(QueueUrl=url, WaitTimeSeconds=20).get("Messages", [])))
               for url, client in zip(queues, clients)]
    for poller in pollers:
        poller.start()
    for url in reversed(queues):
        sqs.send_message(QueueUrl=url, MessageBody=url)
    for poller in pollers:
        poller.join(timeout=120)
    assert {url: [message["Body"] for message in answer] for url, answer in answers.items()} == {
        url: [url] for url in queues}


def test_uninstall_gives_moto_back(emu):
    moments.uninstall()
    kms_keys.uninstall()
    try:
        assert moto_utils.utcnow.__code__ is moments._original_utcnow_code
        assert "random" not in vars(mock_random)
        assert kms_models.generate_master_key is kms_keys._original_master_key
        assert abs(moto_utils.unix_time() - time.time()) < 5
    finally:
        moments.install()
        kms_keys.install()
    assert moto_utils.utcnow.__code__ is moments._eddy_utcnow.__code__


def test_utc_now_is_naive_utc(emu):
    moments.begin(1, 0.0)
    try:
        assert moto_utils.utcnow() == datetime(1970, 1, 1) and moto_utils.utcnow().tzinfo is None
    finally:
        moments.end()


def test_seeding_moto_makes_its_ids_repeat_as_in_moto(emu):
    """moto's generator seeded (mock_random.seed, what moto's /moto-api/seed does): each request's moment draws
    its seed from it, so the ids repeat as they do in moto."""
    sqs = boto3.client("sqs", region_name="us-east-1")
    queue = sqs.create_queue(QueueName="seeded")["QueueUrl"]
    ids = []
    for _ in range(2):
        mock_random.seed(7)
        ids.append(sqs.send_message(QueueUrl=queue, MessageBody="same")["MessageId"])
    assert ids[0] == ids[1]
