"""state.py: what moto holds that pickle cannot carry as it is, still held so (pinned against moto's originals), and
carried through a dump and a load so the services work as before: SSM's lambda factory and ParameterDict, KMS's
and Cognito-IdP's `cryptography` keys, ACM's certificates."""

from __future__ import annotations

import inspect
import io
import pickle
from collections import defaultdict

import boto3
import pytest
from moto.backends import get_backend

from eddy.emulator.moto_seam.services import state

ACCOUNT, REGION = "123456789012", "us-east-1"


def test_moto_holds_what_the_reducers_are_for():
    """If one of these changes, moto changed what it keeps: look again at what state.py's reducers carry."""
    # imported here, not at the module's top: moto's SSM imports its EC2 (its model and instance types), seconds of
    # CPU that every pytest-xdist worker paid while collecting the suite
    from moto.acm.models import CertBundle
    from moto.cognitoidp.models import CognitoIdpUserPool
    from moto.kms.utils import RSAPrivateKey
    from moto.ssm.models import ParameterDict, SimpleSystemManagerBackend

    assert "defaultdict(lambda: defaultdict(dict))" in inspect.getsource(SimpleSystemManagerBackend.__init__)
    assert list(inspect.signature(ParameterDict.__init__).parameters) == ["self", "account_id", "region_name"]
    assert issubclass(ParameterDict, defaultdict)
    assert "rsa.generate_private_key(" in inspect.getsource(RSAPrivateKey.__init__)
    assert "jwk.RSAKey.import_key(" in inspect.getsource(CognitoIdpUserPool.__init__)
    assert "x509.load_pem_x509_certificate(" in inspect.getsource(CertBundle)


def test_pickle_alone_refuses_them(emu):
    """Why the reducers exist: without them, a snapshot of these services fails."""
    ssm, kms = boto3.client("ssm", region_name=REGION), boto3.client("kms", region_name=REGION)
    ssm.put_parameter(Name="/p", Value="v", Type="String")
    kms.create_key(KeySpec="RSA_2048", KeyUsage="SIGN_VERIFY")
    backends = {service: backend for service, _, _, backend in state.services_in_use()}
    with pytest.raises(AttributeError, match="Can't pickle local object"):
        pickle.dumps(backends["ssm"].__dict__)
    with pytest.raises(TypeError, match="cannot pickle"):
        pickle.dumps(backends["kms"].__dict__)


def test_a_dump_and_a_load_keep_them_working(emu):
    ssm, kms, cognito, acm = (boto3.client(name, region_name=REGION) for name in ("ssm", "kms", "cognito-idp", "acm"))
    ssm.put_parameter(Name="/app/url", Value="https://example.com", Type="String",
                      Tags=[{"Key": "team", "Value": "web"}])
    key = kms.create_key()["KeyMetadata"]["KeyId"]
    ciphertext = kms.encrypt(KeyId=key, Plaintext=b"secret")["CiphertextBlob"]
    ecc = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    signature = kms.sign(KeyId=ecc, Message=b"m", SigningAlgorithm="ECDSA_SHA_256")["Signature"]
    pool = cognito.create_user_pool(PoolName="customers")["UserPool"]["Id"]
    certificate = acm.request_certificate(DomainName="example.com")["CertificateArn"]
    bodies: dict[str, bytes] = {}

    def put_body(body: bytes) -> str:
        bodies[str(len(bodies))] = body
        return str(len(bodies) - 1)

    dumped = io.BytesIO()
    state.dump(dumped, put_body)
    for service in ("ssm", "kms", "cognito-idp", "acm"):
        get_backend(service)[ACCOUNT][REGION].reset()  # forget it all: only the dump can bring it back
    assert ssm.describe_parameters()["Parameters"] == []
    dumped.seek(0)
    state.load(dumped, bodies.__getitem__)
    assert ssm.get_parameter(Name="/app/url")["Parameter"]["Value"] == "https://example.com"
    assert ssm.list_tags_for_resource(ResourceType="Parameter", ResourceId="/app/url")["TagList"] == [
        {"Key": "team", "Value": "web"}]
    ssm.put_parameter(Name="/app/other", Value="x", Type="String", Tags=[{"Key": "a", "Value": "b"}])  # the factory
    assert kms.decrypt(CiphertextBlob=ciphertext)["Plaintext"] == b"secret"
    assert kms.verify(KeyId=ecc, Message=b"m", Signature=signature,
                      SigningAlgorithm="ECDSA_SHA_256")["SignatureValid"] is True
    assert cognito.describe_user_pool(UserPoolId=pool)["UserPool"]["Name"] == "customers"
    assert acm.describe_certificate(CertificateArn=certificate)["Certificate"]["DomainName"] == "example.com"


def test_a_lambda_with_a_closure_is_not_guessed_at():
    """A factory state.py cannot stand in for exactly is left to pickle, which refuses it (the journal is kept)."""
    shared: list[int] = []
    assert state._fresh_factory(lambda: shared) is None  # a closure: the same list each time
    assert state._fresh_factory(lambda: {"a": 1}) is None  # not empty
    assert state._fresh_factory(lambda: defaultdict(dict))() == defaultdict(dict)
    assert state._fresh_factory(lambda: {}) is dict
