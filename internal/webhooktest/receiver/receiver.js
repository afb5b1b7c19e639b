// A webhook receiver for the tests: it verifies each delivery with npm
// standardwebhooks and deduplicates by webhook-id, as docs/webhooks.md
// tells receivers to.
//
// It listens on 127.0.0.1 on a free port and prints {"port": N}; then it
// reads the webhook's secret as the first line of its standard input. For
// each request it prints one JSON line: {"id", "type", "ownerId",
// "duplicate"} for a verified delivery (answered 204), {"error", "id"} for
// one that does not verify (answered 401).
const http = require("node:http");
const readline = require("node:readline");
const { Webhook } = require("standardwebhooks");

let wh = null;
const seen = new Set();
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const id = req.headers["webhook-id"];
    let event;
    try {
      if (!wh) throw new Error("no secret yet");
      event = wh.verify(body, req.headers);
    } catch (e) {
      out({ error: String(e.message || e), id });
      res.writeHead(401).end();
      return;
    }
    const duplicate = seen.has(id);
    seen.add(id);
    out({ id, type: event.type, ownerId: event.data.ownerId, duplicate });
    res.writeHead(204).end();
  });
});

server.listen(0, "127.0.0.1", () => out({ port: server.address().port }));

const rl = readline.createInterface({ input: process.stdin });
rl.once("line", (line) => {
  wh = new Webhook(line.trim());
  out({ ready: true });
});
rl.on("close", () => server.close());
