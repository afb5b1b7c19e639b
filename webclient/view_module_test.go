package webclient_test

import "testing"

// viewScript checks the demo's rendering helpers in node: user agents in
// words, loopback addresses, relative times, and errors explained once
// without the API's field names or the request id.
const viewScript = `
import * as view from "./view.mjs";
const eq = (a, b, what) => { if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(what + ": " + JSON.stringify(a) + " != " + JSON.stringify(b)); };

const agents = {
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36": "Chrome on Linux",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0": "Edge on Windows",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15": "Safari on macOS",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1": "Safari on iOS",
  "Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0": "Firefox on Android",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36": "Chrome on Android",
  "curl/8.5.0": null,
  "": null,
};
for (const [ua, want] of Object.entries(agents)) eq(view.deviceName(ua), want, "the device of " + ua);

eq(view.place("::1"), "this computer (::1)", "IPv6 loopback");
eq(view.place("127.0.0.1"), "this computer (127.0.0.1)", "IPv4 loopback");
eq(view.place("203.0.113.9"), "203.0.113.9", "another address");
eq(view.place(null), "an unknown address", "no address");

const now = Date.parse("2026-01-10T12:00:00Z");
eq(view.ago("2026-01-10T11:59:50Z", now), "just now", "seconds");
eq(view.ago("2026-01-10T11:58:00Z", now), "2 minutes ago", "minutes");
eq(view.ago("2026-01-10T09:00:00Z", now), "3 hours ago", "hours");
eq(view.ago("2026-01-09T12:00:00Z", now), "yesterday", "a day");

const invalid = { code: "BAD_REQUEST_INVALID_ARGUMENTS", requestId: "abc-1",
  message: "The request arguments are invalid: newPassword: must be 12 to 128 characters",
  fields: { newPassword: "must be 12 to 128 characters" } };
eq(view.describe(invalid), "New password must be 12 to 128 characters.", "an argument's reason, once, in words");
eq(view.describe({ code: "USER_BAD_REQUEST_ACCOUNT_INACTIVE", message: "This account is inactive.", requestId: "r" }),
  "This account is deactivated, so it cannot log in. Contact support to have it activated again.", "the page's words for a code");
eq(view.describe({ code: "SOMETHING", message: "Something failed.", requestId: "r-2" }), "Something failed.", "no request id in the words");
eq(view.describe({ name: "NotAllowedError", message: "x" }), "The passkey request was cancelled, timed out, or no passkey of this site was chosen.", "a ceremony");
console.log("ok");
`

// TestDemoViewModule runs the demo page's rendering helpers in node.
func TestDemoViewModule(t *testing.T) {
	runModuleScript(t, "/demo/view.js", "view.mjs", viewScript)
}
