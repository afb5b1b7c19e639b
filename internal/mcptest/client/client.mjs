// Drives the official MCP TypeScript client for the Go tests: connects to
// the Streamable HTTP endpoint of the plan (argv[2], JSON: {url, token,
// calls: [{name, arguments}]}) with a bearer token, lists the tools, calls
// each one of the plan, and prints what it got as one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(process.argv[2]);
const failure = (e) => ({ message: String(e && e.message), code: e && e.code !== undefined ? e.code : null });
const out = { connected: false, tools: null, calls: [] };
const headers = plan.token ? { Authorization: `Bearer ${plan.token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
const client = new Client({ name: "actionkit-test", version: "1" });
try {
  await client.connect(transport);
  out.connected = true;
  out.server = client.getServerVersion();
  out.tools = (await client.listTools()).tools;
  for (const call of plan.calls || []) {
    try {
      out.calls.push({ result: await client.callTool({ name: call.name, arguments: call.arguments }) });
    } catch (e) {
      out.calls.push({ error: failure(e) });
    }
  }
} catch (e) {
  out.error = failure(e);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out));
