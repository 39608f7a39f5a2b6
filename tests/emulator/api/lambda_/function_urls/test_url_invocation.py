"""Function URLs called over HTTP, as any client calls them, in both doors (in-process: the loopback server emulate()
starts for them). The expected answers are AWS's: the payload format 2.0 event and the response rules of
docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html, a real event (Powertools' tests/events/
lambdaFunctionUrlEvent.json), and LocalStack's AWS-validated snapshots, tests/aws/services/lambda_/
test_lambda.snapshot.json (TestLambdaURL: test_lambda_url_invocation[*], test_lambda_url_headers_and_status,
test_lambda_url_invocation_exception, test_lambda_url_non_existing_url, test_lambda_url_persists_after_alias_delete,
test_lambda_url_echo_invoke; TestLambdaPermissions::test_lambda_permission_url_invocation)."""

from __future__ import annotations

import base64
import json
import re

import pytest

from tests.emulator.api.lambda_.function_urls.helpers import FUNCTION_ARN, call, call_json, create_function, make_public

RESPONDER = '''
import json
def handler(event, context):
    if event["rawPath"] == "/answer":
        return json.loads(event["body"])["answer"]
    if event["rawPath"] == "/fail":
        raise ValueError("failed on purpose")
    return {"event": event, "version": context.function_version, "arn": context.invoked_function_arn}
'''
FORBIDDEN = {"Message": "Forbidden. For troubleshooting Function URL authorization issues, see: "
                        "https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html"}


def public_url(lam, name: str, **options) -> str:
    create_function(lam, name, RESPONDER)
    make_public(lam, name)
    return lam.create_function_url_config(FunctionName=name, AuthType="NONE", **options)["FunctionUrl"]


@pytest.mark.parametrize("returned, content", [
    ({"hello": "world"}, b'{"hello":"world"}'),
    ({"statusCode": 200, "body": "body123"}, b"body123"),
    ({"statusCode": 200, "body": '{"hello": "world"}'}, b'{"hello": "world"}'),
    (["hello", 3, True], b'["hello",3,true]'),
    ("hello", b"hello"),
    (3, b"3"),
    (3.1, b"3.1"),
    (True, b"true"),
], ids=["dict", "http-response", "http-response-json", "list-mixed", "string", "integer", "float", "boolean"])
def test_what_a_function_returns_is_the_response(door, returned, content):
    """test_lambda_url_invocation[*]: 200, Content-Type application/json, the body AWS answered byte for byte."""
    url = public_url(door.client("lambda"), "answers")
    status, headers, body = call(f"{url}answer", "POST", json.dumps({"answer": returned}).encode())
    assert (status, headers["Content-Type"], headers["Content-Length"], body) == (
        200, "application/json", str(len(content)), content)


def test_the_event_is_payload_format_2(door):
    """The request as the event: rawPath after the URL's own, the query as sent and as parameters (a name given twice:
    its values joined by a comma), cookies out of the headers, headers lower case, a text body as text; the request
    context of an AuthType NONE URL (accountId "anonymous", no authorizer)."""
    url = public_url(door.client("lambda"), "events")
    status, answer = call_json(
        f"{url}custom_path/extend?test_param=test_value&multi=foo&multi=%2Fbar", method="POST", body=b"text",
        headers={"Content-Type": "text/plain", "Cookie": "a=1; b=2", "User-Agent": "test/echo", "X-Extra": "Caps"})
    event = answer["event"]
    url_id = url.rstrip("/").rsplit("/", 1)[1]
    host = url.split("/")[2]
    context = event["requestContext"]
    assert re.fullmatch(r"\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000", context["time"])
    assert re.fullmatch(r"Root=1-[0-9a-f]{8}-[0-9a-f]{24}", event["headers"]["x-amzn-trace-id"])
    assert (status, answer["version"], answer["arn"]) == (200, "$LATEST", f"{FUNCTION_ARN}:events")
    assert event == {
        "version": "2.0", "routeKey": "$default", "rawPath": "/custom_path/extend",
        "rawQueryString": "test_param=test_value&multi=foo&multi=%2Fbar", "cookies": ["a=1", "b=2"],
        "headers": {"accept-encoding": "identity", "connection": "close", "content-length": "4",
                    "content-type": "text/plain", "host": host, "user-agent": "test/echo", "x-extra": "Caps",
                    "x-forwarded-for": "127.0.0.1", "x-forwarded-port": host.split(":")[1],
                    "x-forwarded-proto": "http", "x-amzn-trace-id": event["headers"]["x-amzn-trace-id"]},
        "queryStringParameters": {"test_param": "test_value", "multi": "foo,/bar"},
        "requestContext": {"accountId": "anonymous", "apiId": url_id, "domainName": "127.0.0.1",
                           "domainPrefix": url_id,
                           "http": {"method": "POST", "path": "/custom_path/extend", "protocol": "HTTP/1.1",
                                    "sourceIp": "127.0.0.1", "userAgent": "test/echo"},
                           "requestId": context["requestId"], "routeKey": "$default", "stage": "$default",
                           "time": context["time"], "timeEpoch": context["timeEpoch"]},
        "body": "text", "isBase64Encoded": False}
    # no body: no "body"; a binary body: base64 (the recorded echo: "Body" not in the event, isBase64Encoded false)
    empty = call_json(url)[1]["event"]
    assert ("body" in empty, empty["isBase64Encoded"], empty["rawPath"], "queryStringParameters" in empty) == (
        False, False, "/", False)
    binary = call_json(f"{url}bin", method="PUT", body=b"\x00\xff", headers={"Content-Type": "image/png"})[1]["event"]
    assert (binary["body"], binary["isBase64Encoded"]) == (base64.b64encode(b"\x00\xff").decode(), True)


def test_a_response_object_sets_status_headers_body_and_cookies(door):
    """test_lambda_url_headers_and_status (201 with its headers; "418" as a string), cookies as Set-Cookie headers,
    a base64 body decoded; a function error is 502 "Internal Server Error" (test_lambda_url_invocation_exception)."""
    url = public_url(door.client("lambda"), "responses")
    answer = {"statusCode": 201, "headers": {"Content-Type": "application/json", "My-Custom-Header": "Custom Value"},
              "body": json.dumps({"message": "hello-world"}), "isBase64Encoded": False,
              "cookies": ["session=abc; Path=/", "theme=dark"]}
    status, headers, body = call(f"{url}answer", "POST", json.dumps({"answer": answer}).encode())
    assert (status, headers["My-Custom-Header"], headers.get_all("Set-Cookie"), json.loads(body)) == (
        201, "Custom Value", ["session=abc; Path=/", "theme=dark"], {"message": "hello-world"})
    teapot = {"statusCode": "418", "body": "i'm a teapot", "isBase64Encoded": False}
    status, _, body = call(f"{url}answer", "POST", json.dumps({"answer": teapot}).encode())
    assert (status, body) == (418, b"i'm a teapot")
    encoded = {"statusCode": 200, "headers": {"content-type": "image/png"}, "isBase64Encoded": True,
               "body": base64.b64encode(b"\x89PNG").decode()}
    status, headers, body = call(f"{url}answer", "POST", json.dumps({"answer": encoded}).encode())
    assert (status, headers["Content-Type"], body) == (200, "image/png", b"\x89PNG")
    status, _, body = call(f"{url}fail", "POST", b"{}")
    assert (status, body) == (502, b"Internal Server Error")


def test_who_may_call_a_public_url(door):
    """AuthType NONE needs both statements (urls-auth.html, since October 2025): none or one of them is Lambda's 403
    (test_lambda_permission_url_invocation); an unknown URL is 403 {"Message":null} (test_lambda_url_non_existing_url)."""
    lam = door.client("lambda")
    create_function(lam, "guarded", RESPONDER)
    url = lam.create_function_url_config(FunctionName="guarded", AuthType="NONE")["FunctionUrl"]
    status, headers, body = call(url)
    assert (status, headers["x-amzn-ErrorType"], json.loads(body)) == (403, "AccessDeniedException", FORBIDDEN)
    lam.add_permission(FunctionName="guarded", StatementId="url", Action="lambda:InvokeFunctionUrl", Principal="*",
                       FunctionUrlAuthType="NONE")
    assert call_json(url) == (403, FORBIDDEN)
    added = lam.add_permission(FunctionName="guarded", StatementId="invoke", Action="lambda:InvokeFunction",
                               Principal="*", InvokedViaFunctionUrl=True)
    assert json.loads(added["Statement"]) == {  # the condition as urls-auth.html's policies write it
        "Sid": "invoke", "Effect": "Allow", "Principal": "*", "Action": "lambda:InvokeFunction",
        "Resource": f"{FUNCTION_ARN}:guarded", "Condition": {"Bool": {"lambda:InvokedViaFunctionUrl": "true"}}}
    assert call_json(url)[0] == 200
    unknown = re.sub(r"/lambda-url/[0-9a-f]+/", "/lambda-url/0123456789abcdefghijklmnopqrstuv/", url)
    status, headers, body = call(unknown)
    assert (status, headers["Content-Type"], headers["x-amzn-ErrorType"], body) == (
        403, "application/json", "AccessDeniedException", b'{"Message":null}')


def test_an_aws_iam_url_takes_signed_requests(door):
    """AuthType AWS_IAM: an unsigned request is refused; one signed with Signature Version 4 for lambda (botocore's
    signer, the fake credentials) reaches the function, whose event names the caller (authorizer.iam)."""
    import botocore.auth
    import botocore.awsrequest
    import botocore.credentials

    lam = door.client("lambda")
    create_function(lam, "private", RESPONDER)
    url = lam.create_function_url_config(FunctionName="private", AuthType="AWS_IAM")["FunctionUrl"]
    assert call_json(url) == (403, FORBIDDEN)
    signed = botocore.awsrequest.AWSRequest(method="GET", url=f"{url}me")
    credentials = botocore.credentials.Credentials("AKIAIOSFODNN7EXAMPLE", "secret")
    botocore.auth.SigV4Auth(credentials, "lambda", "us-east-1").add_auth(signed)
    status, answer = call_json(f"{url}me", headers=dict(signed.headers.items()))
    context = answer["event"]["requestContext"]
    assert (status, context["accountId"], context["authorizer"]) == (200, "123456789012", {"iam": {
        "accessKey": "AKIAIOSFODNN7EXAMPLE", "accountId": "123456789012", "callerId": "AKIAIOSFODNN7EXAMPLE",
        "cognitoIdentity": None, "principalOrgId": None, "userArn": "arn:aws:iam::123456789012:root",
        "userId": "123456789012"}})


def test_cors_preflight_and_headers(door):
    """A Cors configuration: Lambda answers the preflight itself (the function is not invoked) and sets its CORS
    headers on the answer to an allowed Origin, replacing the function's (urls-configuration.html#urls-cors)."""
    lam = door.client("lambda")
    cors = {"AllowOrigins": ["https://example.com"], "AllowMethods": ["GET", "POST"], "AllowHeaders": ["x-custom"],
            "ExposeHeaders": ["x-total"], "MaxAge": 300, "AllowCredentials": True}
    url = public_url(lam, "shared", Cors=cors)
    status, headers, body = call(url, "OPTIONS", headers={"Origin": "https://example.com",
                                                          "Access-Control-Request-Method": "POST"})
    assert (status, body, {name: headers[name] for name in (
        "Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
        "Access-Control-Max-Age", "Access-Control-Allow-Credentials")}) == (200, b"", {
        "Access-Control-Allow-Origin": "https://example.com", "Access-Control-Allow-Methods": "GET,POST",
        "Access-Control-Allow-Headers": "x-custom", "Access-Control-Max-Age": "300",
        "Access-Control-Allow-Credentials": "true"})
    answer = {"statusCode": 200, "headers": {"Access-Control-Allow-Origin": "*"}, "body": "ok"}
    status, headers, _ = call(f"{url}answer", "POST", json.dumps({"answer": answer}).encode(),
                              headers={"Origin": "https://example.com"})
    assert (headers["Access-Control-Allow-Origin"], headers["Access-Control-Expose-Headers"]) == (
        "https://example.com", "x-total")
    status, headers, _ = call(f"{url}answer", "POST", json.dumps({"answer": answer}).encode(),
                              headers={"Origin": "https://elsewhere.example"})
    assert (status, headers["Access-Control-Allow-Origin"]) == (200, None)


def test_an_alias_url_runs_the_alias_until_the_alias_is_deleted(door):
    """An alias's URL invokes the alias's version (its own policy grants access); once the alias is deleted, the URL
    answers Lambda's 403 (test_lambda_url_persists_after_alias_delete)."""
    lam = door.client("lambda")
    create_function(lam, "aliased", RESPONDER)
    lam.publish_version(FunctionName="aliased")
    lam.create_alias(FunctionName="aliased", Name="live", FunctionVersion="1")
    make_public(lam, "aliased", "live")
    url = lam.create_function_url_config(FunctionName="aliased", Qualifier="live", AuthType="NONE")["FunctionUrl"]
    status, answer = call_json(url)
    assert (status, answer["version"], answer["arn"]) == (200, "1", f"{FUNCTION_ARN}:aliased:live")
    lam.delete_alias(FunctionName="aliased", Name="live")
    assert call_json(url)[0] == 403


def test_response_stream_mode_sends_what_the_function_returned(door):
    """InvokeMode RESPONSE_STREAM: the handler's answer as it returned it, statusCode and all
    (test_lambda_url_echo_invoke[RESPONSE_STREAM] reads the JSON the handler returned)."""
    url = public_url(door.client("lambda"), "streamed", InvokeMode="RESPONSE_STREAM")
    answer = {"statusCode": 201, "body": "streamed"}
    status, headers, body = call(f"{url}answer", "POST", json.dumps({"answer": answer}).encode())
    assert (status, headers["Content-Type"], json.loads(body)) == (200, "application/octet-stream", answer)


def test_aws_host_form_reaches_the_same_url(door):
    """AWS's form, <url id>.lambda-url.<region>.<domain>, as a client that resolves it sends it (its Host header):
    the whole path is the function's, and the event's domainName is that host."""
    url = public_url(door.client("lambda"), "hosted")
    url_id, endpoint = url.rstrip("/").rsplit("/", 1)[1], url.split("/lambda-url/")[0]
    host = f"{url_id}.lambda-url.us-east-1.localhost"
    status, answer = call_json(f"{endpoint}/orders/7", headers={"Host": f"{host}:{endpoint.rsplit(':', 1)[1]}"})
    context = answer["event"]["requestContext"]
    assert (status, answer["event"]["rawPath"], context["domainName"], context["domainPrefix"]) == (
        200, "/orders/7", host, url_id)


def test_a_bucket_named_lambda_url_is_still_s3s(door):
    """Path-style S3 requests (the server door's: an IP address as endpoint) to a bucket named lambda-url are signed
    for s3: they are S3's, not a function URL's."""
    s3 = door.client("s3")
    s3.create_bucket(Bucket="lambda-url")
    s3.put_object(Bucket="lambda-url", Key="0123456789abcdef0123456789abcdef/page", Body=b"kept")
    assert s3.get_object(Bucket="lambda-url", Key="0123456789abcdef0123456789abcdef/page")["Body"].read() == b"kept"
