// Eddy's dashboard: polls GET /_eddy/dashboard (and the chosen stream's tail) every second and redraws.
// Plain JavaScript, no framework, no build step. Text from the server only ever becomes text nodes.
"use strict";

const POLL_MS = 1000;
// what the user chose: the stream to tail (?tail=TABLE picks a table's latest) and the invocation whose log shows
const chosen = { stream: null, table: new URLSearchParams(location.search).get("tail"), invocation: null };
let model = null;

// el("td", {class: "n"}, "text", child, [children]) -> an element
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const fill = (id, ...children) => document.getElementById(id).replaceChildren(...children.flat());
const grid = (headings, rows) => el("table", {}, el("thead", {}, el("tr", {}, headings.map((h) => el("th", {}, h)))),
  el("tbody", {}, rows));
const empty = (text) => el("p", { class: "empty" }, text);
const age = (ms) => (ms === null || ms === undefined ? "—" : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
const clock = (epoch) => new Date(epoch * 1000).toISOString().slice(11, 19);
const count = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const resource = (arn) => arn.split(":").slice(5).join(":"); // table/orders/stream/<label>, stream/<name>, ...

// -- tables, streams and shard lineage ---------------------------------------------------------------

function shardTree(shards) {
  return el("ul", { class: "lineage" }, shards.map((shard) => el("li", { "data-shard-id": shard.ShardId },
    el("span", { class: shard.Open ? "shard open" : "shard closed" },
      el("b", {}, shard.ShardId), " ", el("span", { class: "state" }, shard.Open ? "open" : "closed"),
      ` seq ${shard.StartingSequenceNumber} … ${shard.EndingSequenceNumber || ""} · ${count(shard.Records, "record")}`,
      shard.OldestRecordAgeSeconds === null ? "" : ` · oldest ${age(shard.OldestRecordAgeSeconds * 1000)}`,
      shard.AdjacentParentShardId ? ` · merged with ${shard.AdjacentParentShardId}` : ""),
    shard.Children.length ? shardTree(shard.Children) : null)));
}

function renderTables(tables) {
  if (!tables.length) return fill("tables", empty("No tables yet."));
  fill("tables", tables.map((table) => el("article", { class: "table", "data-table": table.TableName },
    el("h3", {}, table.TableName, el("small", {},
      ` ${table.TableStatus} · ${count(table.ItemCount, "item")} · ${table.WritesPerSecond.toFixed(1)} writes/s · ${table.Region}`)),
    table.Streams.length ? table.Streams.map((stream) => el("div", { class: "stream", "data-stream-arn": stream.StreamArn },
      el("p", {}, "stream ", el("b", {}, stream.StreamLabel), ` ${stream.StreamViewType} · `,
        el("span", { class: stream.StreamStatus === "ENABLED" ? "ok" : "off" }, stream.StreamStatus.toLowerCase()),
        ` · ${count(stream.RecordsRetained, "record")} retained`),
      shardTree(stream.Shards))) : empty("No stream."))));
}

// -- event source mappings ---------------------------------------------------------------------------

function renderMappings(mappings) {
  if (!mappings.length) return fill("mappings", empty("No event source mappings."));
  const headings = ["Function", "Source", "State", "Batch size", "Invocations", "Errors", "Retries",
    "Sent to on-failure", "Iterator age", "Position per shard, or the queue", "Last error"];
  fill("mappings", grid(headings, mappings.map((m) => el("tr", { "data-uuid": m.UUID },
    el("td", {}, m.FunctionName), el("td", {}, resource(m.EventSourceArn)), el("td", {}, m.State),
    [m.BatchSize, m.Invocations, m.Errors, m.Retries, m.RecordsSentToOnFailureDestination].map((n) => el("td", { class: "n" }, n)),
    el("td", { class: "n" }, m.Queue ? "—" : age(m.IteratorAgeMilliseconds)),
    el("td", {}, m.Queue ? queueFigures(m.Queue) : el("ul", { class: "positions" }, m.Shards.map((p) => el("li", {},
      `${p.ShardId}: ${p.State.toLowerCase()} at ${p.SequenceNumber || "trim horizon"}, ` +
      `${p.RecordsBehind} behind, lag ${age(p.IteratorAgeMilliseconds)}`)))),
    el("td", { class: "error last-error" }, m.LastError || "")))));
}

// a queue mapping's queue: its messages instead of shard positions
function queueFigures(queue) {
  return el("ul", { class: "positions queue" },
    el("li", {}, `${queue.ApproximateNumberOfMessages} available, ${queue.ApproximateNumberOfMessagesNotVisible} in flight, ` +
      `${queue.ApproximateNumberOfMessagesDelayed} delayed`),
    queue.DeadLetterQueue ? el("li", { class: queue.DeadLetterQueue.Messages ? "error" : null },
      `dead-letter queue ${resource(queue.DeadLetterQueue.QueueArn)}: ${count(queue.DeadLetterQueue.Messages, "message")}`) : null);
}

// -- queues and the other pipeline triggers ------------------------------------------------------------

function renderQueues(queues) {
  if (!queues.length) return fill("queues", empty("No queues."));
  fill("queues", grid(["Queue", "Available", "In flight", "Delayed", "Dead-letter queue"], queues.map((q) => el("tr", {
    "data-queue": q.QueueName },
    el("td", {}, q.QueueName, q.FifoQueue ? el("small", {}, " FIFO") : null),
    [q.ApproximateNumberOfMessages, q.ApproximateNumberOfMessagesNotVisible, q.ApproximateNumberOfMessagesDelayed]
      .map((n) => el("td", { class: "n" }, n)),
    el("td", { class: q.DeadLetterQueue && q.DeadLetterQueue.Messages ? "error" : null }, q.DeadLetterQueue
      ? `${resource(q.DeadLetterQueue.QueueArn)}: ${count(q.DeadLetterQueue.Messages, "message")} (after ${q.DeadLetterQueue.maxReceiveCount} receives)`
      : "")))));
}

// a push trigger's deliveries (an SNS subscription's, an S3 notification configuration's): delivered, failed,
// filtered out (subscriptions), what its destination holds, and the last error with its time
function deliveries(t, filtered) {
  return [el("td", { class: "n" }, t.NumberOfNotificationsDelivered),
    el("td", { class: t.NumberOfNotificationsFailed ? "n error" : "n" }, t.NumberOfNotificationsFailed),
    filtered ? el("td", { class: "n" }, t.NumberOfNotificationsFilteredOut) : null,
    el("td", { class: "destination" }, destinationFigures(t)),
    el("td", { class: "error last-error" }, t.LastError ? `${clock(t.LastErrorTime)} ${t.LastError}` : "")];
}

// a queue destination's messages (as a queue mapping's), a function's asynchronous events
function destinationFigures(t) {
  if (t.Queue) return queueFigures(t.Queue);
  const a = t.AsynchronousInvocation;
  if (!a) return "";
  return el("span", { class: a.EventsDropped ? "error" : null },
    `${count(a.EventsPending, "event")} pending, ${count(a.Errors, "error")}, ${a.EventsDropped} dropped`);
}

function renderTriggers(model) {
  const parts = [];
  if (model.Subscriptions.length) parts.push(el("h3", {}, "SNS subscriptions"), grid(["Topic", "Protocol", "Endpoint",
    "Filter policy", "Delivered", "Failed", "Filtered out", "At the destination", "Last error"],
    model.Subscriptions.map((s) => el("tr", { "data-subscription": s.SubscriptionArn },
      el("td", {}, resource(s.TopicArn)), el("td", {}, s.Protocol + (s.RawMessageDelivery ? " (raw)" : "")),
      el("td", {}, resource(s.Endpoint)), el("td", {}, s.FilterPolicy ? `${s.FilterPolicyScope}: ${s.FilterPolicy}` : ""),
      deliveries(s, true)))));
  if (model.BucketNotifications.length) parts.push(el("h3", {}, "S3 notifications"), grid(["Bucket", "Events", "Filter",
    "Destination", "Delivered", "Failed", "At the destination", "Last error"],
    model.BucketNotifications.map((n) => el("tr", { "data-notification": `${n.Bucket}/${n.Id}` },
      el("td", {}, n.Bucket), el("td", {}, n.Events.join(", ")),
      el("td", {}, n.Filter ? n.Filter.Key.FilterRules.map((r) => `${r.Name} ${r.Value}`).join(", ") : ""),
      el("td", {}, resource(n.Destination)), deliveries(n, false)))));
  const bridge = model.EventBridge;
  if (bridge.Rules.length) parts.push(el("h3", {}, "EventBridge rules", el("small", {},
    ` · ${count(bridge.DeliveriesInFlight, "delivery")} in flight`)), grid(["Rule", "Bus", "State", "Pattern", "Targets"],
    bridge.Rules.map((r) => el("tr", { "data-rule": r.Name },
      el("td", {}, r.Name), el("td", {}, r.EventBusName), el("td", { class: r.State === "ENABLED" ? "ok" : "off" }, r.State),
      el("td", {}, r.EventPattern || r.ScheduleExpression || ""), el("td", {}, r.Targets.map((t) => resource(t.Arn)).join(", "))))),
    bridge.LastError ? el("p", { class: "error" }, `last error: ${bridge.LastError}`) : null);
  if (model.Pipes.length) parts.push(el("h3", {}, "Pipes"), grid(["Pipe", "State", "Source", "Target", "Invocations",
    "Errors", "Records delivered", "Last error"], model.Pipes.map((p) => el("tr", { "data-pipe": p.Name },
    el("td", {}, p.Name), el("td", { class: p.CurrentState === "RUNNING" ? "ok" : "off" }, p.CurrentState),
    el("td", {}, resource(p.Source)), el("td", {}, resource(p.Target)),
    [p.Invocations, p.Errors, p.RecordsDelivered].map((n) => el("td", { class: "n" }, n === undefined ? "—" : n)),
    el("td", { class: "error" }, p.LastError || "")))));
  fill("triggers", parts.length ? parts : empty("No subscriptions, notifications, rules or pipes."));
}

// where an invocation came from: Invoke, a mapping (its UUID), a rule (its ARN), S3 or SNS
const sourceOf = (source) => (source.startsWith("arn:") ? resource(source)
  : /^[0-9a-f]{8}-/.test(source) ? `mapping ${source.slice(0, 8)}` : source);

// -- functions and the chosen invocation's log -------------------------------------------------------

function renderFunctions(functions) {
  const invocations = functions.flatMap((f) => f.RecentInvocations).sort((a, b) => b.Started - a.Started);
  // the one clicked while it is still recent; else the newest failure; else the newest
  const shown = invocations.find((i) => i.RequestId === chosen.invocation)
    || invocations.find((i) => i.Outcome !== "Succeeded") || invocations[0];
  const pending = model.AsynchronousInvocations.EventsPending;
  fill("async", pending ? `${count(pending, "asynchronous event")} waiting or being tried` : "");
  const queues = Object.fromEntries(model.AsynchronousInvocations.Functions.map((q) => [q.FunctionName, q]));
  if (!functions.length) fill("functions", empty("No functions."));
  else fill("functions", functions.map((f) => el("article", { class: "function", "data-function": f.FunctionName },
    el("h3", {}, f.FunctionName, el("small", {}, ` ${f.Runtime} · ${f.PackageType} · ${f.Handler} · timeout ${f.Timeout} s`)),
    queues[f.FunctionName] ? renderAsyncQueue(queues[f.FunctionName]) : null,
    f.RecentInvocations.length ? grid(["Started", "Duration", "Outcome", "Source"],
      f.RecentInvocations.map((i) => el("tr", {
        class: i === shown ? "chosen" : null, "data-request-id": i.RequestId,
        onclick: () => { chosen.invocation = i.RequestId; render(); },
      }, el("td", {}, clock(i.Started)), el("td", { class: "n" }, `${i.DurationMs.toFixed(1)} ms`),
        el("td", { class: i.Outcome === "Succeeded" ? "ok" : "error" }, i.Error ? `${i.Outcome}: ${i.Error}` : i.Outcome),
        el("td", {}, sourceOf(i.Source)))))
      : empty("Not invoked yet."))));
  fill("log", shown ? shown.LogTail.join("\n") : "No invocations yet.");
}

// a function's asynchronous invocation queue: its figures, last error and each event not done
function renderAsyncQueue(q) {
  return el("div", { class: "async-queue", "data-async-function": q.FunctionName },
    el("p", {}, `Asynchronous: ${count(q.Invocations, "invocation")}, ${count(q.Errors, "error")}, `
      + `${q.Retries} ${q.Retries === 1 ? "retry" : "retries"}, ${q.EventsDropped} dropped`,
      q.LastError ? el("span", { class: "error" }, ` · last error: ${q.LastError}`) : null),
    q.Events.length ? grid(["Request", "State", "Attempts", "Next attempt", "Last error"],
      q.Events.map((e) => el("tr", { "data-request-id": e.RequestId },
        el("td", {}, e.RequestId.slice(0, 8)), el("td", {}, e.State), el("td", { class: "n" }, String(e.Attempts)),
        el("td", {}, e.Attempts && e.State !== "Running" ? clock(e.NextAttemptAt) : ""),
        el("td", { class: e.LastError ? "error" : null }, e.LastError || ""))))
      : null);
}

// -- the live tail of a chosen stream ----------------------------------------------------------------

function renderTailChoice(tables) {
  const streams = tables.flatMap((t) => t.Streams.map((s) => ({ table: t.TableName, stream: s })));
  if (!streams.some((s) => s.stream.StreamArn === chosen.stream)) {
    const wanted = streams.filter((s) => s.table === chosen.table).pop()
      || streams.find((s) => s.stream.RecordsRetained) || streams[0];
    chosen.stream = wanted ? wanted.stream.StreamArn : null;
  }
  const select = document.getElementById("tail-stream");
  const options = streams.map((s) => s.stream.StreamArn).join(" ");
  if (select.dataset.options !== options) {  // redrawn only when the streams change, so a choice in progress stays
    select.dataset.options = options;
    select.replaceChildren(...streams.map((s) => el("option", { value: s.stream.StreamArn },
      `${s.table} · ${s.stream.StreamLabel}`)));
    select.onchange = () => { chosen.stream = select.value; pollTail(); };
  }
  select.value = chosen.stream || "";
}

async function pollTail() {
  if (!chosen.stream) return fill("tail", "No stream to tail.");
  const tail = await getJSON(`/_eddy/dashboard/tail?StreamArn=${encodeURIComponent(chosen.stream)}`);
  fill("tail", tail.Lines.length ? tail.Lines.map((line) => el("div", {
    class: "line", title: `${line.ShardId} · ${line.SequenceNumber}` }, line.Line)) : "No records retained.");
}

// -- global tables -------------------------------------------------------------------------------------

function renderGlobalTables(globalTables) {
  if (!globalTables.length) return fill("global-tables", empty("No global tables."));
  const headings = ["Table", "Region", "Replica status", "Writes on their way", "Replication"];
  fill("global-tables", grid(headings, globalTables.flatMap((g) => g.Replicas.map((r) => el("tr", {
    "data-replica": `${g.TableName}/${r.RegionName}` },
    el("td", {}, g.TableName), el("td", {}, r.RegionName), el("td", {}, r.ReplicaStatus),
    el("td", { class: "n" }, r.PendingWrites), el("td", { class: r.Paused ? "error" : "ok" }, r.Paused ? "paused" : "flowing"))))));
}

// -- CloudFormation stacks: each one's resources and its last events (the lines `eddy tail --stack` prints)

const settled = (status) => (status.endsWith("_FAILED") || status.includes("ROLLBACK") ? "error"
  : status.endsWith("_COMPLETE") ? "ok" : null);

function renderStacks(stacks) {
  if (!stacks.length) return fill("stacks", empty("No stacks."));
  fill("stacks", stacks.map((s) => el("article", { class: "stack", "data-stack": s.StackName },
    el("h3", {}, s.StackName, el("small", {}, " ", el("span", { class: settled(s.StackStatus) }, s.StackStatus),
      s.StackStatusReason ? ` · ${s.StackStatusReason}` : "", ` · ${s.Region}`)),
    s.Resources.length ? grid(["Resource", "Type", "Physical id", "Status", "Reason"], s.Resources.map((r) => el("tr",
      { "data-resource": `${s.StackName}/${r.LogicalResourceId}` },
      el("td", {}, r.LogicalResourceId), el("td", {}, r.ResourceType), el("td", {}, r.PhysicalResourceId),
      el("td", { class: settled(r.ResourceStatus) }, r.ResourceStatus),
      el("td", { class: "error" }, r.ResourceStatusReason || ""))))
      : empty("No resources."),
    el("div", { class: "stack-events" }, s.Events.map((e) => el("div", { class: "stack-event" }, e.Line))))));
}

// -- polling -------------------------------------------------------------------------------------------

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.message || response.statusText);
  return body;
}

function render() {
  renderTables(model.Tables);
  renderMappings(model.EventSourceMappings);
  renderFunctions(model.Functions);
  renderGlobalTables(model.GlobalTables);
  renderStacks(model.Stacks);
  renderQueues(model.Queues);
  renderTriggers(model);
  renderTailChoice(model.Tables);
}

async function poll() {
  const status = document.getElementById("status");
  try {
    model = await getJSON("/_eddy/dashboard");
    render();
    await pollTail();
    const disk = model.Disk;
    if (disk && disk.WritesRefused) {  // the disk is full: reads are served, writes refused until it has room
      status.textContent = `live · clock ${clock(model.Now)} UTC · writes refused: ${disk.Reason}`;
      status.className = "down";
    } else {
      status.textContent = `live · clock ${clock(model.Now)} UTC`;
      status.className = "live";
    }
  } catch (error) {
    status.textContent = `disconnected: ${error.message}`;
    status.className = "down";
  }
  setTimeout(poll, POLL_MS);
}

poll();
