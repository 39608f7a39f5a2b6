// The worker process that runs a Node.js function's code, as Lambda's Node.js runtime does.
//
//     node node_worker.mjs <handler file.function>
//
// Runs in the function's code folder. Loads the handler once (CommonJS .js/.cjs, ES module .mjs or .js
// under "type": "module"), then reads one JSON request per line on stdin ({event, context, timeout}) and
// answers one JSON line on the original stdout (first, once the handler is loaded or failed to load,
// {ready: true, logs: its output while loading}: the end of Lambda's Init phase; a failed one adds initError and
// error, the answer owed, and the worker then only waits to be ended): {ok: true, payload, logs}
// or {ok: false, errorType, errorMessage, body, logs}. console output is the function's log (Lambda's
// format), also sent to stderr and, while an invocation runs, at once as a {"log": <text>} line before the answer
// (runtimes/workers.py keeps them: the log of an invocation stopped at its timeout, which never answers).
//
// Errors are those of Lambda's Node.js runtime (aws-lambda-nodejs-runtime-interface-client: Errors.js
// toRapidResponse, UserFunction.js load): {errorType: error.name, errorMessage, trace: the stack's lines}, with
// this worker's own frames left out; a thrown non-Error is {errorType: typeof, errorMessage: String(it), trace: []};
// a module not found is Runtime.ImportModuleError "Error: Cannot find module ...", a syntax error
// Runtime.UserCodeSyntaxError, a missing handler Runtime.HandlerNotFound "<handler> is undefined or not exported"
// (or "is not a function"); any other error while loading is the error itself, as on Lambda.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import util from "node:util";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { sendToOwnEndpoint } from "./node_own_endpoint.mjs";
import { skipProvidedSdkInstalls } from "./node_sdk_installs.mjs";

const answer = process.stdout.write.bind(process.stdout);
let requestId = "";
let logs = [];
// while an invocation runs: each write is sent on the protocol as it is made (a pipe's writes are synchronous on
// Linux, so what was printed is there even when the worker is killed at the invocation's timeout)
let streaming = false;

function keep(text) {
  logs.push(text);
  if (streaming && text) answer(JSON.stringify({ log: text }) + "\n");
}

function log(level, args, echo = true) {
  const line = `${new Date().toISOString()}\t${requestId || "undefined"}\t${level}\t${util.format(...args)}\n`;
  keep(line);
  if (echo) process.stderr.write(line);
}

// the runtime's own error lines: the invocation's log (and the function's log group) only, not stderr, where they
// would repeat raw at every retry; the emulator's log line for the failure names the error
function logRuntimeError(text) {
  log("ERROR", [text], false);
}
console.log = (...args) => log("INFO", args);
console.info = (...args) => log("INFO", args);
console.warn = (...args) => log("WARN", args);
console.error = (...args) => log("ERROR", args);
console.debug = (...args) => log("DEBUG", args);
console.trace = (...args) => log("TRACE", args);
process.stdout.write = (chunk, ...rest) => {
  keep(String(chunk));
  return process.stderr.write(chunk, ...rest);
};

const WORKER = new URL(import.meta.url).pathname;
// what a failed @aws-sdk/* import is told (node_sdk.import_note: install, update, or bundle it); not the function's variable
const SDK_MISSING = process.env.EDDY_NODE_SDK_MISSING;
delete process.env.EDDY_NODE_SDK_MISSING;
// a ResponseURL's PUT sent with https.request({hostname, path}) reaches Eddy (node_own_endpoint.mjs)
sendToOwnEndpoint(process.env.EDDY_ENDPOINT_URL);
delete process.env.EDDY_ENDPOINT_URL;
// AwsCustomResource's run-time `npm install` of a client the function finds anyway is not run (node_sdk_installs.mjs)
skipProvidedSdkInstalls(process.cwd());

function errorBody(error) {
  if (error instanceof Error || (error && typeof error.name === "string" && typeof error.message === "string"
                                 && typeof error.stack === "string")) {
    const trace = String(error.stack || "").split("\n").filter((line) => !line.includes(WORKER));
    return { errorType: error.name, errorMessage: error.message, trace };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

function runtimeError(name, message) {  // named as the runtime's Error classes are; its frames are all the runtime's
  const error = new Error(message);
  error.name = name;
  error.stack = `${name}: ${message}`;
  return error;
}

function isModuleFile(file) {
  if (file.endsWith(".mjs")) return true;
  if (file.endsWith(".cjs")) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest)) {
      try { return JSON.parse(fs.readFileSync(manifest, "utf8")).type === "module"; } catch { return false; }
    }
    if (dir === path.dirname(dir)) return false;
  }
}

async function loadHandler(spec) {
  const root = process.cwd();
  const dot = spec.indexOf(".", spec.lastIndexOf("/") + 1);
  const modulePath = spec.slice(0, dot);
  const names = spec.slice(dot + 1).split(".");
  const file = [".js", ".mjs", ".cjs"].map((ext) => path.resolve(root, modulePath + ext)).find((f) => fs.existsSync(f));
  if (!file) {  // the runtime's words, naming its own module as the one that required it
    throw runtimeError("Runtime.ImportModuleError",
                       `Error: Cannot find module '${modulePath}'\nRequire stack:\n- /var/runtime/index.mjs`);
  }
  let exports;
  try {
    // required by the runtime's own module, as Lambda's index.mjs requires it: a module the code cannot find names
    // the code's file, then the runtime's module, in its Require stack
    exports = isModuleFile(file) ? await import(pathToFileURL(file).href) : createRequire(import.meta.url)(file);
  } catch (cause) {
    if (cause instanceof SyntaxError) throw runtimeError("Runtime.UserCodeSyntaxError", String(cause));
    if (SDK_MISSING && String(cause?.message).includes("@aws-sdk/")) {  // the runtime's words, then what to run
      cause.message = `${cause.message}\n${SDK_MISSING}`;
    }
    if (cause?.code === "MODULE_NOT_FOUND") {  // Lambda's runtime module is /var/runtime/index.mjs
      throw runtimeError("Runtime.ImportModuleError", String(cause).replaceAll(WORKER, "/var/runtime/index.mjs"));
    }
    throw cause;
  }
  let handler = names.reduce((value, name) => (value == null ? undefined : value[name]), exports);
  if (handler === undefined && exports?.default) {
    handler = names.reduce((value, name) => (value == null ? undefined : value[name]), exports.default);
  }
  if (!handler) throw runtimeError("Runtime.HandlerNotFound", `${spec} is undefined or not exported`);
  if (typeof handler !== "function") throw runtimeError("Runtime.HandlerNotFound", `${spec} is not a function`);
  return handler;
}

// the context in the order of Lambda's Node.js runtime (what JSON.stringify(context) shows: AWS-recorded in LocalStack's
// validated test_lambda_with_context), clientContext the invocation's ClientContext as sent, when one was
function contextOf(fields, timeout) {
  const deadline = Date.now() + timeout * 1000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionVersion: fields.function_version,
    functionName: fields.function_name,
    memoryLimitInMB: String(fields.memory_limit_in_mb),
    logGroupName: fields.log_group_name,
    logStreamName: fields.log_stream_name,
    clientContext: fields.client_context ?? undefined,
    invokedFunctionArn: fields.invoked_function_arn,
    awsRequestId: fields.aws_request_id,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

function run(handler, event, context) {
  return new Promise((resolve, reject) => {
    const callback = (error, value) => (error != null ? reject(error) : resolve(value));
    Object.assign(context, { done: callback, succeed: (value) => callback(null, value), fail: (error) => callback(error ?? "handled") });
    let returned;
    try {
      returned = handler(event, context, callback);
    } catch (error) {
      reject(error);
      return;
    }
    if (returned && typeof returned.then === "function") returned.then(resolve, reject);
    else if (handler.length < 3) resolve(returned);
  });
}

let handler;
let loadError;
try {
  handler = await loadHandler(process.argv[2]);
} catch (error) {
  loadError = errorBody(error);
  logRuntimeError(`Uncaught Exception \t${JSON.stringify(loadError)}`);
}
// the Init phase is over (its output is logged before the first START; invocations' timeouts run from here). A failed
// one: Lambda's Node.js runtime posts the error to /runtime/init/error and exits (aws-lambda-nodejs-runtime-interface-
// client, src/index.mjs: uncaughtException -> postInitError -> process.exit(129)), so Lambda reports Runtime.ExitError
// and starts the runtime again for the next invocation; the invoker does that here (a worker that waits to be ended)
const ready = { ready: true, logs: logs.join("") };
if (loadError) Object.assign(ready, { initError: "Runtime.ExitError", error: { ok: false, ...loadError, body: loadError } });
answer(JSON.stringify(ready) + "\n");
if (loadError) {
  process.stdin.resume();  // until the invoker ends it
} else {
  const input = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of input) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    requestId = request.context.aws_request_id;
    logs = [];
    let reply;
    streaming = true;
    try {
      const payload = await run(handler, request.event, contextOf(request.context, request.timeout));
      streaming = false;
      reply = { ok: true, payload: payload === undefined ? null : payload };
      JSON.stringify(reply);
    } catch (error) {
      streaming = false;
      const body = errorBody(error);
      logRuntimeError(`Invoke Error \t${JSON.stringify(body)}`);
      reply = { ok: false, ...body, body };
    }
    reply.logs = logs.join("");
    answer(JSON.stringify(reply) + "\n");
  }
}
