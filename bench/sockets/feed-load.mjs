// Many socket.io clients in one node process, driven by the load tool
// (bench/load, scenario "sockets") through standard input and output.
//
// Configuration: a JSON object on the first line of standard input (tokens
// never show in ps):
//
//   {"url": "http://127.0.0.1:1234", "tokens": ["..."], "clients": 1000,
//    "room": "FEED", "event": "POST_PUBLISHED", "connectConcurrency": 64,
//    "timeoutMs": 20000}
//
// Client i authenticates with tokens[i % tokens.length], connects over
// websocket without reconnection, and joins room. Once every client has
// connected and joined (or failed), one line reports it:
//
//   {"type": "ready", "clients": 1000, "connected": 1000, "joined": 1000,
//    "failed": 0, "errors": {}, "ms": 1234}
//
// Every event is timestamped on receipt, first thing, in milliseconds since
// the epoch with sub-millisecond precision (performance.timeOrigin +
// performance.now(), the same wall clock the Go tool reads). When every
// joined client has received an event's post, one line says so:
//
//   {"type": "complete", "postId": "..."}
//
// Commands, one JSON object per line:
//
//   {"cmd": "report", "posts": ["id", ...]}  prints one line per post,
//       {"type": "post", "postId": "...", "at": [ms, ...]}, then
//       {"type": "summary", "clientsWithAll": n, "duplicates": n,
//        "disconnects": n, "unexpected": n, "missing": [...]}
//     where missing describes the first few clients lacking a post
//   {"cmd": "close"}  closes every client and exits (so does the end of input)
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { io } from "socket.io-client";

const ACK_TIMEOUT_MS = 10000;

const print = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const now = () => Math.round((performance.timeOrigin + performance.now()) * 1000) / 1000;

const sockets = [];
const receipts = new Map(); // postId -> [receipt time, ...]
let joined = 0;
let duplicates = 0;
let disconnects = 0;
let ready = false;
let config = null;

function start(cfg) {
  config = cfg;
  const total = cfg.clients;
  const started = Date.now();
  let next = 0;
  let settled = 0;
  let connected = 0;
  const errors = {};
  const fail = (why) => {
    errors[why] = (errors[why] ?? 0) + 1;
  };
  const done = () => {
    settled++;
    if (next < total) open(next++);
    if (settled === total) {
      ready = true;
      print({ type: "ready", clients: total, connected, joined, failed: total - joined, errors, ms: Date.now() - started });
    }
  };
  const open = (i) => {
    const socket = io(cfg.url, {
      auth: { token: cfg.tokens[i % cfg.tokens.length] },
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      timeout: cfg.timeoutMs ?? 20000,
    });
    socket.received = new Set();
    sockets.push(socket);
    let finished = false;
    const finish = (why) => {
      if (finished) return;
      finished = true;
      if (why) fail(why);
      done();
    };
    socket.on(cfg.event, (payload) => {
      const at = now();
      const id = payload?.postId;
      if (socket.received.has(id)) {
        duplicates++;
        return;
      }
      socket.received.add(id);
      let list = receipts.get(id);
      if (!list) receipts.set(id, (list = []));
      list.push(at);
      if (list.length === joined) print({ type: "complete", postId: id });
    });
    socket.on("connect_error", (err) => finish("connect_error: " + err.message));
    socket.on("disconnect", (reason) => {
      if (ready) disconnects++;
      finish("disconnect: " + reason);
    });
    socket.on("connect", () => {
      connected++;
      socket.timeout(ACK_TIMEOUT_MS).emit("join", cfg.room, (err, ack) => {
        if (err) return finish("join: ack timeout");
        if (!ack?.ok) return finish("join: " + (ack?.error ?? "refused"));
        joined++;
        finish(null);
      });
    });
  };
  const first = Math.min(cfg.connectConcurrency ?? 64, total);
  for (; next < first; ) open(next++);
  if (total === 0) print({ type: "ready", clients: 0, connected: 0, joined: 0, failed: 0, errors, ms: 0 });
}

function report(posts) {
  for (const id of posts) print({ type: "post", postId: id, at: receipts.get(id) ?? [] });
  const expected = new Set(posts);
  let clientsWithAll = 0;
  let unexpected = 0;
  const missing = []; // the first few clients lacking a post, for diagnosis
  sockets.forEach((s, i) => {
    const lacking = posts.filter((id) => !s.received.has(id));
    if (lacking.length === 0) clientsWithAll++;
    else if (missing.length < 5) {
      missing.push({ client: i, id: s.id ?? null, connected: s.connected, received: s.received.size, lacking: lacking.slice(0, 3) });
    }
    for (const id of s.received) if (!expected.has(id)) unexpected++;
  });
  print({ type: "summary", clientsWithAll, duplicates, disconnects, unexpected, missing });
}

function close() {
  for (const s of sockets) s.close();
  // Let the close frames leave before exiting.
  setTimeout(() => process.stdout.write("", () => process.exit(0)), 200);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    print({ type: "error", message: `bad JSON line: ${err.message}` });
    return;
  }
  if (config === null) start(msg);
  else if (msg.cmd === "report") report(msg.posts ?? []);
  else if (msg.cmd === "close") close();
  else print({ type: "error", message: `unknown command ${JSON.stringify(msg.cmd)}` });
});
lines.on("close", close);
