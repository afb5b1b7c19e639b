package webclient_test

import "testing"

// oidcScript checks /client/oidc.js in node: takeResult reads the three
// fragments of a flow's return (and nothing else) and takes them out of
// the address bar; the helpers call the actions they name, the public
// ones without the token, and send the browser to the provider's URL.
const oidcScript = `
import * as oidc from "./oidc.mjs";
const eq = (a, b, what) => { if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(what + ": " + JSON.stringify(a) + " != " + JSON.stringify(b)); };
const replaced = [];
globalThis.history = { state: { kept: 1 }, replaceState: (state, _, url) => replaced.push([state, url]) };
const at = (hash) => ({ origin: "https://app.example", pathname: "/demo", search: "?x=1", hash });

eq(oidc.takeResult(at("#oidc=" + "ab".repeat(32))), { kind: "oidc", value: "ab".repeat(32) }, "a result code");
eq(replaced.pop(), [{ kept: 1 }, "/demo?x=1"], "the fragment is removed, the query and history state kept");
eq(oidc.takeResult(at("#linked=google")), { kind: "linked", value: "google" }, "a link");
eq(oidc.takeResult(at("#error=USER_BAD_REQUEST_OIDC_PROVIDER_ERROR")), { kind: "error", value: "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR" }, "an error");
eq(oidc.takeResult(at("#error=%E0%A4%A")), { kind: "error", value: "%E0%A4%A" }, "a malformed escape is kept as it came");
eq(replaced.length, 3, "each result is removed");
for (const other of ["", "#reset=abc", "#oidc=a&b=c", "#OIDC=abc", "#linked"]) {
  eq(oidc.takeResult(at(other)), null, "not a result: " + other);
}
eq(replaced.length, 3, "another fragment stays");
eq(oidc.thisPage(at("#x")), "https://app.example/demo?x=1", "this page, without its fragment");

const calls = [];
const client = {
  call: async (path, args) => { calls.push(["call", path, args]); return path.endsWith("/providers") ? { providers: [{ id: "g", name: "G" }] } : { url: "https://idp.example/auth?s=1" }; },
  api: async (path, args) => { calls.push(["api", path, args]); return path.endsWith("/identities") ? { identities: [{ id: "i" }] } : { url: "https://idp.example/auth?s=2" }; },
  loginWith: async (action, args) => { calls.push(["loginWith", action, args]); return { id: "u" }; },
};
const went = [];
globalThis.location = at("#ignored");
const idp = new oidc.IdentityProviders(client, (url) => went.push(url));
eq(await idp.providers(), [{ id: "g", name: "G" }], "providers");
eq(await idp.start("g"), "https://idp.example/auth?s=1", "start");
eq(await idp.link("g", { redirectTo: "https://app.example/account" }), "https://idp.example/auth?s=2", "link");
eq(await idp.exchange("c0de"), { id: "u" }, "exchange");
eq(await idp.identities(), [{ id: "i" }], "identities");
await idp.unlink("i");
eq(went, ["https://idp.example/auth?s=1", "https://idp.example/auth?s=2"], "the browser is sent to the provider");
eq(calls, [
  ["call", "/v1/users/oidc/providers", undefined],
  ["call", "/v1/users/oidc/start", { provider: "g", redirectTo: "https://app.example/demo?x=1" }],
  ["api", "/v1/users/oidc/link", { provider: "g", redirectTo: "https://app.example/account" }],
  ["loginWith", "oidc/exchange", { code: "c0de" }],
  ["api", "/v1/users/identities", undefined],
  ["api", "/v1/users/identities/unlink", { identityId: "i" }],
], "the actions called");
console.log("ok");
`

// TestOIDCModule runs the client's identity-provider module in node.
func TestOIDCModule(t *testing.T) {
	runModuleScript(t, "/client/oidc.js", "oidc.mjs", oidcScript)
}
