// HTTPS requests aimed at Eddy's own endpoint, sent to it over plain HTTP (imported by node_worker.mjs).
//
// A custom resource's ResponseURL is a pre-signed S3 URL on AWS (https, port 443); Eddy's is on its own endpoint,
// plain HTTP on its own port (http://127.0.0.1:4566/cloudformation-custom-resource-response-.../...). Handlers
// that PUT their response with `https.request({hostname, path, method: "PUT"})` (aws-cdk-lib's Provider framework
// and AwsCustomResource: their outbound.ts and the AwsCustomResource handler's respond) keep the URL's host and path
// but not its scheme or port: Node sends them to port 443 over TLS, where nothing answers. Here `https.request` and
// `https.get` aimed at Eddy's host on port 443 (or on Eddy's own port) go to Eddy's HTTP endpoint instead, as the
// PUT reaches S3 on AWS. Every other request is left to Node's https as it is.

import http from "node:http";
import https from "node:https";
import { syncBuiltinESMExports } from "node:module";

// (url | options[, options][, callback]) as https.request takes them: the target and http.request's arguments
function target(args) {
  const [first, second, third] = args;
  if (typeof first === "string" || first instanceof URL) {
    const url = new URL(first);
    const [options, callback] = typeof second === "function" ? [{}, second] : [second ?? {}, third];
    if (url.protocol !== "https:") return null;
    return {
      hostname: options.hostname ?? url.hostname,
      port: options.port ?? url.port,
      options: { path: url.pathname + url.search, ...options },
      callback,
    };
  }
  const options = first ?? {};
  const host = options.hostname ?? String(options.host ?? "localhost");
  return { hostname: host.replace(/^\[(.*)\]$/, "$1"), port: options.port ?? options.defaultPort, options, callback: second };
}

export function sendToOwnEndpoint(endpoint) {
  if (!endpoint) return;
  const eddy = new URL(endpoint);
  if (eddy.protocol !== "http:") return;
  const host = eddy.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = eddy.port || "80";
  const { request, get } = https;
  const routed = (original) => (...args) => {
    const aimed = target(args);
    const aimedPort = String(aimed?.port || "443");
    if (!aimed || aimed.hostname !== host || (aimedPort !== "443" && aimedPort !== port)) return original(...args);
    const { agent, _defaultAgent, ca, cert, key, rejectUnauthorized, servername, ...plain } = aimed.options;
    const options = { ...plain, protocol: "http:", hostname: host, host: undefined, port: Number(port) };
    return original === get ? http.get(options, aimed.callback) : http.request(options, aimed.callback);
  };
  https.request = routed(request);
  https.get = routed(get);
  syncBuiltinESMExports();  // `import { request } from "node:https"` sees them too
}
