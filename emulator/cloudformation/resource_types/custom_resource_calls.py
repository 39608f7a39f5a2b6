"""How CloudFormation talks to a custom resource's provider: the request sent to the ServiceToken (a Lambda function
invoked, or an SNS topic published to), and the response the provider PUTs to the request's pre-signed ResponseURL,
an S3-style URL on Eddy's own endpoint (api/cloudformation/custom_resource_responses.py receives it and hands it
here). AWS's request and response objects: CloudFormation User Guide, "Custom resource request objects" and
"Custom resource response objects"."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import quote, unquote

from eddy.emulator.cloudformation.errors import ResourceFailed

#: the path every ResponseURL has on Eddy's endpoint (AWS's bucket is cloudformation-custom-resource-response-<region>)
RESPONSE_BUCKET = "cloudformation-custom-resource-response-"
#: "The total size of the response body can't exceed 4096 bytes" (CloudFormation User Guide, crpg-ref)
MAX_RESPONSE = 4096
#: "The default value is 3600 seconds (1 hour)" (AWS::CloudFormation::CustomResource, ServiceTimeout)
DEFAULT_SERVICE_TIMEOUT = 3600

#: invoke(function name or ARN, account, region, event): None when the function returned, else its error's words
Invoke = Callable[[str, str, str, dict[str, Any]], "str | None"]


@dataclass
class Answer:
    status: str
    physical_id: str
    data: dict[str, Any]
    reason: str
    no_echo: bool


class CustomResourceCalls:
    """The requests in flight, each waiting for its response; `endpoint()` is where functions reach Eddy."""

    def __init__(
        self,
        invoke: Invoke,
        publish: Callable[[str, str, str], None],
        endpoint: Callable[[], str],
        now: Callable[[], float],
        on_clock_advance: Callable[[Callable[[], None]], None],
    ) -> None:
        self._invoke, self._publish, self._endpoint, self._now = invoke, publish, endpoint, now
        self._condition = threading.Condition()
        self._awaited: dict[str, bytes | None] = {}
        on_clock_advance(self._clock_moved)

    def _clock_moved(self) -> None:
        with self._condition:
            self._condition.notify_all()

    def response_url(self, region: str, key: str) -> str:
        """A URL shaped like AWS's pre-signed S3 URL (path style, on Eddy's endpoint) for the request `key`."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(self._now()))
        return (
            f"{self._endpoint().rstrip('/')}/{RESPONSE_BUCKET}{region.replace('-', '')}/{quote(key, safe='')}"
            f"?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date={stamp}&X-Amz-SignedHeaders=host"
            f"&X-Amz-Expires=7200"
        )

    def call(self, region: str, account: str, service_token: str, request: dict[str, Any], timeout: float) -> Answer:
        """Send `request` (its ResponseURL added) to the provider and wait for the response: a function's
        invocation, then up to `timeout` seconds on the emulator's clock; an SNS topic's, the timeout."""
        key = f"{request['StackId']}|{request['LogicalResourceId']}|{request['RequestId']}"
        request = {**request, "ResponseURL": self.response_url(region, key)}
        with self._condition:
            self._awaited[key] = None
        try:
            if service_token.startswith("arn:aws:sns:"):
                self._publish(service_token, region, json.dumps(request))
            else:
                try:
                    error = self._invoke(service_token, account, region, request)
                except Exception as refused:  # no such function, for one
                    raise ResourceFailed(f"Invalid service token: {getattr(refused, 'message', refused)}") from None
                if error is not None and self._response(key) is None:
                    # AWS retries the asynchronous invocation and then waits out ServiceTimeout; Eddy says so now
                    raise ResourceFailed(_no_response(request) + f" The function failed: {error}")
            body = self._wait(key, timeout)
        finally:
            with self._condition:
                self._awaited.pop(key, None)
        if body is None:
            raise ResourceFailed(_no_response(request))
        return _answer(body)

    def _response(self, key: str) -> bytes | None:
        with self._condition:
            return self._awaited.get(key)

    def _wait(self, key: str, timeout: float) -> bytes | None:
        deadline = self._now() + timeout
        with self._condition:
            while self._awaited.get(key) is None and self._now() < deadline:
                self._condition.wait(deadline - self._now())
            return self._awaited.get(key)

    def deliver(self, bucket: str, key: str, body: bytes) -> bool:
        """A response PUT to `bucket`/`key`; False when no request awaits one there."""
        key = unquote(key)
        with self._condition:
            if not bucket.startswith(RESPONSE_BUCKET) or key not in self._awaited:
                return False
            self._awaited[key] = body
            self._condition.notify_all()
            return True


def _no_response(request: dict[str, Any]) -> str:
    return (
        f"CloudFormation did not receive a response from your Custom Resource. Please check your logs for "
        f"requestId [{request['RequestId']}]. If you are using the Python cfn-response module, you may need to "
        "update your Lambda function code so that CloudFormation can attach the updated version."
    )


def _answer(body: bytes) -> Answer:
    """The provider's response read as CloudFormation reads it, or the resource's failure in its words."""
    if len(body) > MAX_RESPONSE:
        raise ResourceFailed("Response object is too long.")
    try:
        response = json.loads(body)
    except ValueError:
        raise ResourceFailed("Invalid Response object: the response is not valid JSON") from None
    if not isinstance(response, dict):
        raise ResourceFailed("Invalid Response object: the response is not a JSON object")
    status = response.get("Status")
    if status not in ("SUCCESS", "FAILED"):
        # seen on AWS for Status FAILURE (github PaloAltoNetworks/aws-elb-autoscaling#23)
        raise ResourceFailed(f"Invalid Response object: '{status}' is not a valid ResponseStatus")
    data = response.get("Data") or {}
    if not isinstance(data, dict):
        raise ResourceFailed("Invalid Response object: Data must be a JSON object")
    return Answer(
        status,
        str(response.get("PhysicalResourceId") or ""),
        data,
        str(response.get("Reason") or ""),
        bool(response.get("NoEcho")),
    )
