// Drives the official MCP TypeScript client through its own OAuth flow for
// the Go tests, starting from nothing but the MCP URL (argv[2], JSON:
// {url, userToken, redirectUrl, calls: [{name, arguments}], client?,
// tokens?}). The SDK meets the 401, reads the protected-resource metadata
// and the authorization server's, registers a client dynamically (unless
// the plan gives one) and builds the authorization URL with PKCE and the
// resource; the provider below plays the user's browser: it follows the
// authorization URL, approves the request through the interaction API with
// the oauth-request cookie and the user's own token, and hands the code
// back to the SDK (finishAuth), which exchanges it. Then the client lists
// the tools and makes the calls; a call refused with the insufficient_scope
// challenge makes the SDK ask for the wider scope (step-up), the provider
// approves again, and the call is made once more. Everything it saw is
// printed as one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const plan = JSON.parse(process.argv[2]);
const failure = (e) => ({ message: String(e && e.message), code: e && e.code !== undefined ? e.code : null });
const out = { requests: [], authorizations: [], connected: false, tools: null, calls: [] };

// fetchLogged is the SDK's fetch: every request it makes is recorded.
async function fetchLogged(input, init) {
  const res = await fetch(input, init);
  out.requests.push({
    method: (init && init.method) || "GET",
    url: String(input instanceof Request ? input.url : input),
    status: res.status,
    wwwAuthenticate: res.headers.get("www-authenticate"),
  });
  return res;
}

// The user's browser: follows the authorization URL to the interaction
// page and approves there; the code it brings back waits in pendingCode.
let pendingCode = null;
async function approveInBrowser(authorizationUrl) {
  const entry = { url: String(authorizationUrl) };
  out.authorizations.push(entry);
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  entry.status = res.status;
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  const interaction = new URL(location);
  const requestId = interaction.searchParams.get("oauth_request");
  const cookie = (res.headers.getSetCookie() || []).map((c) => c.split(";")[0]).find((c) => c.startsWith("oauth-request="));
  const approve = await fetch(new URL("/v1/users/oauth/approve", interaction), {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `jwt-user ${plan.userToken}`, Cookie: cookie || "" },
    body: JSON.stringify({ requestId }),
  });
  const answer = await approve.json();
  if (approve.status !== 200) throw new Error(`approve answered ${approve.status}: ${JSON.stringify(answer)}`);
  const back = new URL(answer.redirectTo);
  entry.redirectTo = answer.redirectTo;
  pendingCode = back.searchParams.get("code");
}

// The client's OAuth state, kept in memory.
const state = { client: plan.client || undefined, tokens: plan.tokens || undefined, verifier: undefined };
const provider = {
  get redirectUrl() { return plan.redirectUrl; },
  get clientMetadata() {
    return {
      client_name: "actionkit MCP test agent",
      redirect_uris: [plan.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  },
  clientInformation: () => state.client,
  saveClientInformation: (info) => { state.client = info; out.client = info; },
  tokens: () => state.tokens,
  saveTokens: (tokens) => { state.tokens = tokens; out.tokens = tokens; },
  redirectToAuthorization: (url) => approveInBrowser(url),
  saveCodeVerifier: (v) => { state.verifier = v; },
  codeVerifier: () => state.verifier,
};

// authorized runs op; when the SDK had to send the user to authorize
// (UnauthorizedError after a redirect), it finishes with the code the
// browser brought back and runs op once more.
async function authorized(transport, op, onRetry) {
  try {
    return await op();
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || !pendingCode) throw e;
    const code = pendingCode;
    pendingCode = null;
    await transport.finishAuth(code);
    if (onRetry) await onRetry();
    return await op();
  }
}

const options = { authProvider: provider, fetch: fetchLogged };
let transport = new StreamableHTTPClientTransport(new URL(plan.url), options);
let client = new Client({ name: "actionkit-oauth-test", version: "1" });
try {
  await authorized(transport, () => client.connect(transport), async () => {
    // The first connection failed on its 401: connect anew, with a token.
    await client.close().catch(() => {});
    transport = new StreamableHTTPClientTransport(new URL(plan.url), options);
    client = new Client({ name: "actionkit-oauth-test", version: "1" });
  });
  out.connected = true;
  out.server = client.getServerVersion();
  out.tools = (await client.listTools()).tools;
  for (const call of plan.calls || []) {
    const before = out.authorizations.length;
    try {
      const result = await authorized(transport, () => client.callTool({ name: call.name, arguments: call.arguments }));
      out.calls.push({ result, stepUp: out.authorizations.length > before });
    } catch (e) {
      out.calls.push({ error: failure(e), stepUp: out.authorizations.length > before });
    }
  }
} catch (e) {
  out.error = failure(e);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out));
