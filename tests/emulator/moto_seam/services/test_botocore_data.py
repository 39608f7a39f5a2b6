"""botocore_data.py: the regions of moto's backends and moto's service models, read once in the process, are what
moto reads itself; DynamoDB's model is one object for moto and for Eddy's validation."""

from __future__ import annotations

import subprocess
import sys

import boto3
from botocore.loaders import create_loader
from moto.core import loaders as moto_loaders
from moto.core import utils as moto_utils
from moto.core.base_backend import AccountSpecificBackend
from moto.dynamodb.models import dynamodb_backends

from eddy import emulate
from eddy.emulator.api import validation
from eddy.emulator.moto_seam.services import botocore_data
from tests.conftest import QUIET

# regional, global, partition-wide and unknown services; some whose endpoint prefix is not their name
SERVICES = [
    "dynamodb",
    "dynamodbstreams",
    "kinesis",
    "s3",
    "sqs",
    "sns",
    "lambda",
    "iam",
    "sts",
    "cloudfront",
    "route53",
    "events",
    "logs",
    "ec2",
    "cognito-idp",
    "apigateway",
    "not-a-service",
]


def test_every_services_regions_are_the_ones_moto_lists():
    moto_regions = AccountSpecificBackend.__dict__["_generate_regions"]  # moto's own: no emulator is open here
    assert moto_regions is not botocore_data._generate_regions
    backend = AccountSpecificBackend("dynamodb", "123456789012", object, use_boto3_regions=False, additional_regions=[])
    for service in SERVICES:
        assert botocore_data.regions_of(service) == moto_regions(backend, service), service
    assert "us-east-1" in botocore_data.regions_of("dynamodb") and botocore_data.regions_of("not-a-service") == []


def test_an_accounts_backends_in_an_emulator_know_the_regions_plain_moto_knows():
    def regions(service: str) -> list[str]:
        return AccountSpecificBackend(service, "111122223333", object, True, ["global"]).regions

    plain = {service: regions(service) for service in SERVICES}
    with emulate(**QUIET):
        assert AccountSpecificBackend._generate_regions is botocore_data._generate_regions
        assert {service: regions(service) for service in SERVICES} == plain
        boto3.client("dynamodb", region_name="eu-west-1").list_tables()
        assert "eu-west-1" in dynamodb_backends["123456789012"].regions


def test_motos_models_are_its_own_and_dynamodbs_is_read_once():
    """moto's models in an emulator are the ones moto reads alone: botocore's with moto's extras merged in (S3's and
    SQS's error shapes: without them moto's S3 errors lost ArgumentName/ArgumentValue, seen in
    test_notifications_seam.py::test_filter_rule_names_in_either_case after an emulator had loaded S3's model)."""
    with emulate(**QUIET):
        for service in ("dynamodb", "sqs", "s3"):
            assert moto_utils._load_service_model(
                service, "service-2"
            ) == moto_loaders.create_loader().load_service_model(service, "service-2")
        assert moto_utils._load_service_model("s3", "service-2") != create_loader().load_service_model(
            "s3", "service-2"
        )  # moto's extras are there
        model = moto_utils._load_service_model("dynamodb", "service-2")
        assert model is moto_utils._load_service_model("dynamodb", "service-2")
        assert validation._service("dynamodb")._service_description is model


def test_reading_the_regions_keeps_the_region_lists_and_not_botocores_endpoint_data():
    # a process of its own: what reading the regions leaves allocated, measured from before it: the regions of every
    # endpoint prefix (a few hundred KB) and DynamoDB's model, read for its endpoint prefix (1.7 MB, which the server
    # keeps for its validation too), 2.5 MB; 9.1 MB while botocore's endpoint data (7 MB once read) stayed with the
    # cycles of the session that read it
    probe = (
        "import tracemalloc\n"
        "from eddy.emulator.moto_seam.services import botocore_data\n"
        "tracemalloc.start()\n"
        "regions = botocore_data.regions_of('dynamodb')\n"
        "print(len(regions), 'us-east-1' in regions, tracemalloc.get_traced_memory()[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    count, has_us_east_1, held = done.stdout.split()
    assert int(count) > 10 and has_us_east_1 == "True"
    assert int(held) < 4_000_000, f"{int(held):,} bytes held after reading the regions"
