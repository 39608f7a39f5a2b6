"""cfnresponse: the module CloudFormation provides to a Python function whose code is inline (Code.ZipFile), with
the interface AWS documents ("cfn-response module", CloudFormation User Guide): SUCCESS, FAILED and
send(event, context, responseStatus, responseData, physicalResourceId=None, noEcho=False, reason=None), which PUTs
the response to the request's ResponseURL. Eddy adds this file beside index.py in an inline function's package;
it runs in the function's worker, so it imports nothing but the standard library."""

import json
import urllib.request

SUCCESS = "SUCCESS"
FAILED = "FAILED"


def send(event, context, responseStatus, responseData, physicalResourceId=None, noEcho=False, reason=None):
    log_stream = getattr(context, "log_stream_name", "")
    body = json.dumps(
        {
            "Status": responseStatus,
            "Reason": reason or "See the details in CloudWatch Log Stream: " + log_stream,
            "PhysicalResourceId": physicalResourceId or log_stream,
            "StackId": event["StackId"],
            "RequestId": event["RequestId"],
            "LogicalResourceId": event["LogicalResourceId"],
            "NoEcho": noEcho,
            "Data": responseData,
        }
    ).encode("utf-8")
    print(event["ResponseURL"])
    print("Response body:")
    print(body.decode("utf-8"))
    request = urllib.request.Request(
        event["ResponseURL"], data=body, method="PUT", headers={"Content-Type": "", "Content-Length": str(len(body))}
    )
    try:
        with urllib.request.urlopen(request) as answer:
            print("Status code: " + str(answer.status))
    except Exception as error:
        print("send(..) failed executing http.request(..): " + str(error))
