// cfn-response: the module CloudFormation provides to a Node.js function whose code is inline (Code.ZipFile), with
// the interface AWS documents ("cfn-response module", CloudFormation User Guide): SUCCESS, FAILED and
// send(event, context, responseStatus, responseData, physicalResourceId, noEcho), which PUTs the response to the
// request's ResponseURL (http or https, as the URL says). Eddy adds it as node_modules/cfn-response/index.js.
"use strict";

exports.SUCCESS = "SUCCESS";
exports.FAILED = "FAILED";

exports.send = function (event, context, responseStatus, responseData, physicalResourceId, noEcho) {
  return new Promise((resolve) => {
    const body = JSON.stringify({
      Status: responseStatus,
      Reason: "See the details in CloudWatch Log Stream: " + context.logStreamName,
      PhysicalResourceId: physicalResourceId || context.logStreamName,
      StackId: event.StackId,
      RequestId: event.RequestId,
      LogicalResourceId: event.LogicalResourceId,
      NoEcho: noEcho || false,
      Data: responseData,
    });
    console.log("Response body:\n", body);
    const url = new URL(event.ResponseURL);
    const transport = require(url.protocol === "http:" ? "http" : "https");
    const request = transport.request(url, {
      method: "PUT",
      headers: { "content-type": "", "content-length": Buffer.byteLength(body) },
    }, (answer) => {
      console.log("Status code: " + answer.statusCode);
      answer.resume();
      answer.on("end", () => { context.done && context.done(); resolve(); });
    });
    request.on("error", (error) => {
      console.log("send(..) failed executing https.request(..): " + error);
      context.done && context.done();
      resolve();
    });
    request.write(body);
    request.end();
  });
};
