"""Which of moto's backends a request to `eddy serve` is for, as moto's server application decides it
(moto.moto_server.werkzeug_app's DomainDispatcherApplication, which needs Flask to be imported).

moto's server reads the service from the request, not from its Host (every request comes to one port): the path of
moto's own API and of the instance metadata service; else the service a SigV4 signature's credential scope names
(its signing name, read as moto's backend names it), or for an unsigned request its X-Amz-Target, Action, Version,
a Cognito JWKS path or moto's `/service_region/...` path; that service and region make the host of the AWS endpoint
it would have reached (a few services have several backends behind one signing name, told apart by target or path),
and moto's index of backends' URL patterns names the backend of that host. A request that names nothing goes to S3.
Pinned against moto's own application by tests/emulator/moto_seam/services/test_server_app.py.

    scope = "Credential=a/20260101/eu-west-1/sqs/aws4_request"
    backend_for({"PATH_INFO": "/", "HTTP_AUTHORIZATION": f"AWS4-HMAC-SHA256 {scope}, ..."})  # "sqs"
"""

from __future__ import annotations

import io
import os
from typing import Any

import moto
from moto.backend_index import backend_url_patterns

#: signing names whose backend moto names otherwise
SIGNING_NAMES = {
    "eventbridge": "events",
    "execute-api": "iot",
    "iotdata": "data.iot",
    "mobiletargeting": "pinpoint",
    "payment-cryptography": "controlplane.payment-cryptography",
}
#: unsigned requests moto serves: by X-Amz-Target's prefix, and by Action (service, region)
UNSIGNED_TARGETS = {
    "AWSCognitoIdentityService": ("cognito-identity", "us-east-1"),
    "AWSCognitoIdentityProviderService": ("cognito-idp", "us-east-1"),
}
UNSIGNED_ACTIONS = {"AssumeRoleWithSAML": ("sts", "us-east-1"), "AssumeRoleWithWebIdentity": ("sts", "us-east-1")}
#: services told by the API version a query request gives
SERVICES_BY_VERSION = {"2009-04-15": "sdb"}
#: what a request that names no service is for
DEFAULT = ("s3", "us-east-1")
_MODULES: frozenset[str] = frozenset(
    name
    for name in os.listdir(os.path.dirname(moto.__file__))
    if not name.startswith("__") and os.path.isdir(os.path.join(os.path.dirname(moto.__file__), name))
)


def backend_for(environ: dict[str, Any]) -> str | None:
    """The name of moto's backend that serves this WSGI request (None: no backend; moto's server fails then)."""
    path = environ.get("PATH_INFO", "")
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    if path.startswith("/moto-api") or path == "/favicon.ico":
        return "moto_api"
    if path.startswith(("/latest/meta-data/", "/latest/api/")):
        return "instance_metadata"
    host = service_host(environ, path) or "{}.{}.amazonaws.com".format(*DEFAULT)
    return backend_of_host(host)


def backend_of_host(host: str) -> str | None:
    if host in _MODULES:
        return host
    url = f"http://{host}"
    return next((backend for backend, pattern in backend_url_patterns if pattern.match(url)), None)


def service_host(environ: dict[str, Any], path: str) -> str | None:
    """The host of the endpoint the request is meant for (or a backend's name, where moto gives one), else None."""
    authorization = environ.get("HTTP_AUTHORIZATION")
    target = environ.get("HTTP_X_AMZ_TARGET")
    if authorization:
        scope = authorization.split(",")[0].split()
        parts = scope[1].split("/") if len(scope) > 1 else []
        if len(parts) != 5:  # not SigV4 (SigV2's few services): nothing to read
            return None
        _, _, region, service, _ = parts
        service = service.lower()
        if not (service == "execute-api" and path.startswith("/@connections")):  # API Gateway's management API
            service = SIGNING_NAMES.get(service, service)
    else:
        service, region = _unsigned(environ, target, path)
        if not service:
            return None
    return _host(service, region, environ, target, path)


def _unsigned(environ: dict[str, Any], target: str | None, path: str) -> tuple[str | None, str | None]:
    form = _form(environ)
    if target:
        found = UNSIGNED_TARGETS.get(target.split(".", 1)[0])
        if found:
            return found
    elif form.get("Action") in UNSIGNED_ACTIONS:
        return UNSIGNED_ACTIONS[form["Action"]]
    if form.get("Version") in SERVICES_BY_VERSION:  # the region is the user agent's last word
        return SERVICES_BY_VERSION[form["Version"]], environ.get("HTTP_USER_AGENT", "").split("/")[-1]
    if path.rstrip("/").endswith(("/.well-known/jwks.json", "/.well-known/openid-configuration")):
        pool = path.strip("/").split("/")[0]  # a user pool's id starts with its region: us-east-1_abc
        return "cognito-idp", pool.rsplit("_", 1)[0] if "_" in pool else "us-east-1"
    first = path[1 : path.index("/", 1)] if "/" in path[1:] else ""
    if first.count("_") == 1:  # moto calling itself: http://localhost/<service>_<region>/...
        service, region = first.split("_")
        return service, region
    return None, None


def _form(environ: dict[str, Any]) -> dict[str, str]:
    """A form-encoded body's fields (the body put back for whoever reads it next)."""
    try:
        if not environ["CONTENT_TYPE"].startswith("application/x-www-form-urlencoded"):
            return {}
        size = int(environ["CONTENT_LENGTH"])
    except (KeyError, ValueError):
        return {}
    if not size:
        return {}
    body = environ["wsgi.input"].read(size)
    environ["wsgi.input"] = io.BytesIO(body)
    fields = [field.split("=") for field in body.decode("utf-8").split("&")]
    if any(len(field) != 2 for field in fields):  # not read as a form (as moto's server does not)
        return {}
    return dict(fields)


def _host(service: str, region: str | None, environ: dict[str, Any], target: str | None, path: str) -> str:
    if service in ("budgets", "cloudfront"):  # global services
        return f"{service}.amazonaws.com"
    if service in ("aidevops", "dsql", "s3vectors"):
        return f"{service}.{region}.api.aws"
    if service == "mediastore" and not target:  # MediaStore's API calls all have a target; its data plane none
        return f"data.{service}.{region}.amazonaws.com"
    if service == "dynamodb":
        target = environ["HTTP_X_AMZ_TARGET"]
        if target.startswith("DynamoDBStreams"):
            return "dynamodbstreams"
        return "dynamodb_v20111205" if target.split("_")[1].split(".")[0] <= "20111205" else "dynamodb"
    if service == "sagemaker":
        kind = "runtime" if path.endswith("invocations") else "metrics" if path.endswith("BatchPutMetrics") else "api"
        return f"{kind}.{service}.{region}.amazonaws.com"
    if service == "timestream":
        return f"ingest.{service}.{region}.amazonaws.com"
    if service == "s3" and (path.startswith("/v20180820/") or "s3-control" in environ["HTTP_HOST"]):
        return "s3control"
    if service == "ses" and path.startswith("/v2/"):
        return "sesv2"
    if service == "memorydb":
        return f"memory-db.{region}.amazonaws.com"
    if service in ("bedrock", "bedrock-agentcore"):
        service = _bedrock_service(service, region, environ)
    return f"{service}.{region}.amazonaws.com"


def _bedrock_service(service: str, region: str | None, environ: dict[str, Any]) -> str:
    """Bedrock's services share a signing name: the first whose API has an operation on this method and path."""
    from moto.core.request import Request

    if service == "bedrock":
        from moto.bedrock.responses import BedrockResponse
        from moto.bedrockagent.responses import AgentsforBedrockResponse
        from moto.bedrockruntime.responses import BedrockRuntimeResponse

        candidates: dict[str, Any] = {
            "bedrock": BedrockResponse,
            "bedrock-agent": AgentsforBedrockResponse,
            "bedrock-runtime": BedrockRuntimeResponse,
        }
    else:
        from moto.bedrockagentcore.responses import BedrockAgentCoreResponse
        from moto.bedrockagentcorecontrol.responses import BedrockAgentCoreControlResponse

        candidates = {
            "bedrock-agentcore": BedrockAgentCoreResponse,
            "bedrock-agentcore-control": BedrockAgentCoreControlResponse,
        }
    for name, response_class in candidates.items():
        response = response_class()
        response.region = region
        if response._get_action_from_method_and_request_uri(Request(environ.copy())):
            return name
    return service
