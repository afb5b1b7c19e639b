// A socket.io client driven by a Go test (package sockettest).
//
// Configuration: a JSON object as the first argument, or else as the first
// line of standard input:
//
//   {"url": "http://127.0.0.1:1234", "token": "...", "auth": {...},
//    "transports": ["websocket"], "rooms": ["FEED"], "ack": true}
//
// "auth", when present, is sent as the handshake's auth data as it is;
// otherwise a non-empty "token" is sent as {"token": token}, and no auth data
// at all without one. Reconnection is off, so each happening is reported once.
//
// Commands: one JSON object per line of standard input:
//
//   {"cmd": "join", "room": "FEED"}     {"cmd": "leave", "room": "FEED"}
//   {"cmd": "emit", "event": "join", "args": [42], "ack": true}
//   {"cmd": "close"}
//
// join and leave ask for an acknowledgement when the configuration's "ack" is
// true; emit when its own "ack" is true. The client exits on "close" or when
// standard input ends.
//
// Output: one JSON object per line of standard output:
//
//   {"type": "connect", "id": "...", "transport": "websocket"}
//   {"type": "connect_error", "message": "UNAUTHORIZED", "data": {...}}
//   {"type": "ack", "cmd": "join", "event": "join", "room": "FEED", "ack": {...}}
//   {"type": "ack_timeout", "cmd": "emit", "event": "join"}
//   {"type": "event", "event": "POST_PUBLISHED", "payload": {...}, "args": [...], "at": 1700000000000}
//   {"type": "disconnect", "reason": "io server disconnect"}
//   {"type": "error", "message": "..."}
import { createInterface } from "node:readline";
import { io } from "socket.io-client";

const ACK_TIMEOUT_MS = 5000;

function print(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
let socket = null;
let config = null;
let closing = false;

// CLOSE_GRACE_MS lets a polling transport's "close" packet, sent by an
// asynchronous HTTP request, reach the server before the process exits.
const CLOSE_GRACE_MS = 200;

function close() {
  if (closing) return;
  closing = true;
  lines.close();
  if (socket === null) {
    process.exit(0);
  }
  socket.close();
  setTimeout(() => process.stdout.write("", () => process.exit(0)), CLOSE_GRACE_MS);
}

function start(cfg) {
  config = cfg;
  const opts = {
    transports: cfg.transports ?? ["websocket"],
    reconnection: false,
    forceNew: true,
    timeout: 10000,
  };
  if (cfg.path) opts.path = cfg.path;
  if (cfg.auth !== undefined) opts.auth = cfg.auth;
  else if (cfg.token) opts.auth = { token: cfg.token };
  socket = io(cfg.url, opts);

  socket.on("connect", () => {
    print({ type: "connect", id: socket.id, transport: socket.io.engine.transport.name });
    for (const room of cfg.rooms ?? []) send({ cmd: "join", room });
  });
  socket.on("connect_error", (err) => {
    print({ type: "connect_error", message: err.message, data: err.data ?? null });
  });
  socket.on("disconnect", (reason) => print({ type: "disconnect", reason }));
  socket.onAny((event, ...args) => {
    print({ type: "event", event, payload: args[0] ?? null, args, at: Date.now() });
  });
}

// send carries out a join, leave or emit command.
function send(cmd) {
  let event, args, wantAck;
  switch (cmd.cmd) {
    case "join":
    case "leave":
      event = cmd.cmd;
      args = [cmd.room];
      wantAck = config.ack === true;
      break;
    case "emit":
      event = cmd.event;
      args = cmd.args ?? [];
      wantAck = cmd.ack === true;
      break;
    default:
      print({ type: "error", message: `unknown command ${JSON.stringify(cmd.cmd)}` });
      return;
  }
  const report = { cmd: cmd.cmd, event };
  if (cmd.room !== undefined) report.room = cmd.room;
  if (!wantAck) {
    socket.emit(event, ...args);
    return;
  }
  socket.timeout(ACK_TIMEOUT_MS).emit(event, ...args, (err, ack) => {
    if (err) print({ type: "ack_timeout", ...report });
    else print({ type: "ack", ...report, ack: ack ?? null });
  });
}

lines.on("line", (line) => {
  if (line.trim() === "") return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    print({ type: "error", message: `bad JSON line: ${err.message}` });
    return;
  }
  if (config === null) {
    start(msg);
  } else if (msg.cmd === "close") {
    close();
  } else {
    send(msg);
  }
});
lines.on("close", close);

if (process.argv[2]) {
  try {
    start(JSON.parse(process.argv[2]));
  } catch (err) {
    print({ type: "error", message: `bad configuration: ${err.message}` });
    process.exit(2);
  }
}
