"""server_app.py and service_hosts.py: moto's services served without Flask, pinned against moto's own server
application (moto.moto_server.werkzeug_app, which the dev install has through moto[all]'s `server` extra): for
requests of every protocol, signed and unsigned, each picks the same backend and the same route handler, and answers
the same status, headers and body."""

from __future__ import annotations

import io
import os
from typing import Any
from urllib.parse import urlsplit

import boto3
import pytest
from botocore import UNSIGNED
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from eddy.emulator.moto_seam.services.server_app import ServerApp
from eddy.emulator.moto_seam.services.service_hosts import backend_for
from moto.moto_api._internal import mock_random
from moto.moto_server import werkzeug_app  # moto's Flask server app: flask and flask-cors are in the dev install
from werkzeug.exceptions import NotFound

from tests.conftest import eddy_server

ENDPOINT = "http://localhost:4566"


class _Sent(Exception):
    pass


def environ_of(service: str, operation: str, params: dict[str, Any], signed: bool = True, **client: Any) -> dict:
    """The WSGI environment `eddy serve`'s HTTP server makes of the request boto3 sends for this call."""
    config = Config(signature_version=UNSIGNED) if not signed else Config()
    sent: dict[str, Any] = {}

    def capture(request: Any, **_: Any) -> AWSResponse:
        sent["request"] = request
        raise _Sent()

    made = boto3.client(service, region_name="eu-west-1", endpoint_url=ENDPOINT, config=config,
                        aws_access_key_id="testing", aws_secret_access_key="testing", **client)
    made.meta.events.register("before-send", capture)
    with pytest.raises(_Sent):
        getattr(made, operation)(**params)
    return wsgi_environ(sent["request"].method, sent["request"].url, dict(sent["request"].headers),
                        sent["request"].body or b"")


def wsgi_environ(method: str, url: str, headers: dict[str, Any], body: Any) -> dict[str, Any]:
    from urllib.parse import unquote_to_bytes

    body = body.read() if hasattr(body, "read") else body.encode() if isinstance(body, str) else body
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    environ: dict[str, Any] = {
        "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False, "REQUEST_METHOD": method,
        "SCRIPT_NAME": "", "PATH_INFO": unquote_to_bytes(parts.path).decode("latin-1"), "QUERY_STRING": parts.query,
        "REQUEST_URI": target, "RAW_URI": target, "SERVER_NAME": "localhost", "SERVER_PORT": "4566",
        "SERVER_PROTOCOL": "HTTP/1.1", "CONTENT_LENGTH": str(len(body)), "HTTP_HOST": "localhost:4566",
    }
    for name, value in headers.items():
        value = value.decode() if isinstance(value, bytes) else value
        key = name.upper().replace("-", "_")
        if key in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
            continue
        environ[key if key == "CONTENT_TYPE" else f"HTTP_{key}"] = value
    return environ


def fresh(environ: dict[str, Any]) -> dict[str, Any]:
    copy = dict(environ)
    copy["wsgi.input"] = io.BytesIO(environ["wsgi.input"].getvalue())
    return copy


#: a request of each protocol and routing rule (query, JSON, REST-JSON, REST-XML; signed for a service whose
#: backend moto names otherwise; unsigned by target, by action, by path; moto's own API; nothing named)
REQUESTS = [
    ("s3", "list_buckets", {}),
    ("s3", "put_object", {"Bucket": "reports", "Key": "2026/11/a b+c.csv", "Body": b"1,2"}),
    ("s3", "head_object", {"Bucket": "reports", "Key": "a.csv"}),
    ("s3", "list_objects_v2", {"Bucket": "reports", "Prefix": "2026/"}),
    ("s3", "put_bucket_policy", {"Bucket": "reports", "Policy": "{}"}),
    ("s3control", "list_access_points", {"AccountId": "123456789012"}),
    ("sqs", "create_queue", {"QueueName": "orders"}),
    ("sqs", "send_message", {"QueueUrl": f"{ENDPOINT}/123456789012/orders", "MessageBody": "x"}),
    ("sns", "publish", {"TopicArn": "arn:aws:sns:eu-west-1:123456789012:t", "Message": "x"}),
    ("lambda", "list_functions", {}),
    ("lambda", "get_function", {"FunctionName": "f"}),
    ("iam", "list_roles", {}),
    ("sts", "get_caller_identity", {}),
    ("kms", "list_keys", {}),
    ("ssm", "get_parameter", {"Name": "/app/x"}),
    ("events", "put_events", {"Entries": [{"Source": "s", "DetailType": "d", "Detail": "{}"}]}),
    ("logs", "describe_log_groups", {}),
    ("secretsmanager", "list_secrets", {}),
    ("cloudwatch", "list_metrics", {}),
    ("kinesis", "list_streams", {}),
    ("firehose", "list_delivery_streams", {}),
    ("stepfunctions", "list_state_machines", {}),
    ("sesv2", "list_email_identities", {}),
    ("ses", "list_identities", {}),
    ("apigateway", "get_rest_apis", {}),
    ("route53", "list_hosted_zones", {}),
    ("ec2", "describe_vpcs", {}),
    ("ecr", "describe_repositories", {}),
    ("cognito-idp", "list_user_pools", {"MaxResults": 5}),
    ("dynamodb", "list_tables", {}),
    ("dynamodbstreams", "list_streams", {}),
    ("scheduler", "list_schedules", {}),
    ("pipes", "list_pipes", {}),
    ("acm", "list_certificates", {}),
    ("sagemaker", "list_models", {}),
]
UNSIGNED_REQUESTS = [
    ("cognito-idp", "initiate_auth", {"ClientId": "c", "AuthFlow": "USER_PASSWORD_AUTH"}),
    ("sts", "assume_role_with_web_identity", {"RoleArn": "arn:aws:iam::123456789012:role/r",
                                              "RoleSessionName": "session",
                                              "WebIdentityToken": "token"}),
]
PLAIN = [  # method, path, headers: moto's own API, moto calling itself, a JWKS path, nothing named, a preflight
    ("POST", "/moto-api/reset", {}),
    ("GET", "/moto-api/data.json", {}),
    ("GET", "/sqs_eu-west-1/", {}),
    ("GET", "/eu-west-1_abc/.well-known/jwks.json", {}),
    ("GET", "/", {}),
    ("GET", "/no-such-bucket/key", {"Origin": "http://example.com"}),
    ("OPTIONS", "/reports/a.csv", {"Origin": "http://example.com", "Access-Control-Request-Method": "PUT",
                                   "Access-Control-Request-Headers": "x-amz-date, content-type"}),
]


def all_environs() -> list[tuple[str, dict[str, Any]]]:
    made = [(f"{service}.{operation}", environ_of(service, operation, params))
            for service, operation, params in REQUESTS]
    made += [(f"unsigned {service}.{operation}", environ_of(service, operation, params, signed=False))
             for service, operation, params in UNSIGNED_REQUESTS]
    made += [(f"{method} {path}", wsgi_environ(method, ENDPOINT + path, headers, b""))
             for method, path, headers in PLAIN]
    return made


def _endpoint(url_map: Any, environ: dict[str, Any]) -> Any:
    """The endpoint of the route the request's path matches, None where none does (a 404)."""
    try:
        return url_map.bind_to_environ(fresh(environ)).match()[0]
    except NotFound:
        return None


def test_each_request_reaches_the_backend_and_route_handler_motos_server_sends_it_to():
    moto_app = werkzeug_app.DomainDispatcherApplication(werkzeug_app.create_backend_app)
    ours = ServerApp()
    routed: dict[str, tuple[Any, Any]] = {}
    expected: dict[str, tuple[Any, Any]] = {}
    for name, environ in all_environs():
        flask_app = moto_app.get_application(fresh(environ))
        endpoint = _endpoint(flask_app.url_map, environ)
        expected[name] = (flask_app.service, endpoint and flask_app.view_functions[endpoint].callback)
        backend = backend_for(fresh(environ))
        routes = ours.routes(backend)
        endpoint = _endpoint(routes.map, environ)
        routed[name] = (backend, None if endpoint is None else routes.handlers[endpoint])
    assert routed == expected
    assert len({backend for backend, _ in routed.values()}) >= 30  # the corpus reaches that many backends


def _answer(app: Any, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
    held: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        held["status"], held["headers"] = status, headers

    body = b"".join(app(environ, start_response))
    return held["status"], sorted(held["headers"]), body


def test_answers_are_motos_servers_status_headers_and_body():
    # requests that change nothing, answered by both applications in turn: a listing, an identity, a missing
    # object's HEAD, a missing bucket's GET with an Origin, a preflight, moto's reset, a route no backend has
    moto_app = werkzeug_app.DomainDispatcherApplication(werkzeug_app.create_backend_app)
    ours = ServerApp()
    environs = [
        environ_of("s3", "list_buckets", {}),
        environ_of("sts", "get_caller_identity", {}),
        environ_of("sqs", "list_queues", {}),
        environ_of("lambda", "list_functions", {}),
        environ_of("s3", "head_object", {"Bucket": "no-such-bucket", "Key": "a.csv"}),
        wsgi_environ("GET", ENDPOINT + "/no-such-bucket/key", {"Origin": "http://example.com"}, b""),
        wsgi_environ("OPTIONS", ENDPOINT + "/reports/a.csv", {
            "Origin": "http://example.com", "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "x-amz-date, content-type"}, b""),
        wsgi_environ("POST", ENDPOINT + "/moto-api/reset", {}, b""),
        wsgi_environ("GET", ENDPOINT + "/moto-api/no/such/route", {}, b""),
    ]
    for environ in environs:
        mock_random.seed(7)  # the same request ids for both
        theirs = _answer(moto_app, fresh(environ))
        mock_random.seed(7)
        assert _answer(ours, fresh(environ)) == theirs, environ["REQUEST_URI"]


def test_eddy_serve_answers_motos_services_where_flask_cannot_be_imported(tmp_path, monkeypatch):
    # the plain install has no Flask (tests/test_package.py checks it): a server whose Flask, flask-cors and Jinja2
    # fail to import, as they would there, serves moto's services through every protocol
    blocked = tmp_path / "blocked"
    for name in ("flask", "flask_cors", "jinja2"):
        (blocked / name).mkdir(parents=True)
        (blocked / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError({f'No module named {name!r}'!r}, name={name!r})\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(blocked), os.environ.get("PYTHONPATH")])))
    with eddy_server("--in-memory", "--housekeeping-interval", "0") as (url, _):
        def client(service: str) -> Any:
            return boto3.client(service, region_name="eu-west-1", endpoint_url=url, aws_access_key_id="testing",
                                aws_secret_access_key="testing")

        s3, sqs, sns, ssm, sts = (client(name) for name in ("s3", "sqs", "sns", "ssm", "sts"))
        s3.create_bucket(Bucket="reports", CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
        s3.put_object(Bucket="reports", Key="2026/a b.csv", Body=b"1,2")
        queue_url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        sqs.send_message(QueueUrl=queue_url, MessageBody="o-1")
        topic_arn = sns.create_topic(Name="orders")["TopicArn"]
        ssm.put_parameter(Name="/app/mode", Value="test", Type="String")
        answers = {
            "object": s3.get_object(Bucket="reports", Key="2026/a b.csv")["Body"].read(),
            "keys": [item["Key"] for item in s3.list_objects_v2(Bucket="reports")["Contents"]],
            "messages": [m["Body"] for m in sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=1)["Messages"]],
            "topics": [topic["TopicArn"] for topic in sns.list_topics()["Topics"]],
            "parameter": ssm.get_parameter(Name="/app/mode")["Parameter"]["Value"],
            "account": sts.get_caller_identity()["Account"],
        }
    assert answers == {"object": b"1,2", "keys": ["2026/a b.csv"], "messages": ["o-1"], "topics": [topic_arn],
                       "parameter": "test", "account": "123456789012"}
