// The consent screen of "Sign in with actionkit" on the demo page, driven
// as a person would. A request id without its cookie is explained. With
// prompt=none and nobody logged in, the application gets login_required. an application (a relying party the Go test runs on a
// loopback address) sends the browser to /oauth2/authorize, which lands on
// /demo?oauth_request=<id>. Logged out, the page names the application and
// offers the log-in form; Deny sends the browser back with access_denied.
// Logged in through the form (the password, then the second step's code),
// it shows the scopes in words; Allow sends it
// back with a code. A second sign-in of the admin client, whose consent
// covers everything, goes straight through; prompt=login asks for the
// password in the re-authentication dialog first. A self-registered public
// client on a loopback redirect is "unverified", shows its hosts, and is
// asked every time (RFC 8252 §8.6); with prompt=none it is answered
// consent_required without anything shown. Then "Connected apps" lists both
// applications, the session list names the application's session, and
// disconnecting the admin client (with its confirmation step) ends it.
//
// The Go test answers the checkpoints: "authorize" gives the authorization
// URL of a client, "callback" checks what the relying party received.

import fs from "node:fs";
import path from "node:path";

const LONG = { timeout: 20_000 };

/** Takes a screenshot of the element sel into the artefacts (and, when
 * ACTIONKIT_DOCS_IMAGES names a folder, there too, for docs/client.md). */
async function shot(h, page, sel, name) {
  const file = path.join(h.artifacts, name);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, await page.locator(sel).screenshot());
  fs.renameSync(tmp, file);
  const docs = process.env.ACTIONKIT_DOCS_IMAGES;
  if (docs) fs.copyFileSync(file, path.join(docs, name));
}

/** Sends the browser to the authorization URL of client and waits until
 * the consent card is in one of states (or the browser left for the
 * application, "left"). */
async function authorize(h, page, client, state, extra = {}) {
  const { url } = await h.checkpoint("authorize", { client, state, ...extra });
  await page.goto(url);
}

/** Waits until the consent card's state is want. */
async function consentState(page, want) {
  await page.waitForFunction((w) => document.getElementById("consent")?.dataset.state === w, want, LONG);
}

/** What the consent card shows. */
function shown(page) {
  return page.evaluate(() => {
    const c = document.getElementById("consent");
    const visible = (id) => {
      const n = document.getElementById(id);
      return Boolean(n) && !n.hidden && n.getClientRects().length > 0;
    };
    return {
      visible: visible("consent"),
      title: document.getElementById("consent-title").textContent,
      name: document.getElementById("consent-client-name").textContent,
      verified: visible("consent-verified"),
      unverified: visible("consent-unverified"),
      clientHost: visible("consent-client-host") ? document.getElementById("consent-client-host").textContent : "",
      redirectHost: document.getElementById("consent-redirect-host").textContent,
      warning: visible("consent-unverified-note"),
      scopes: [...c.querySelectorAll("#consent-scopes li")].map((li) => li.dataset.scope),
      words: [...c.querySelectorAll("#consent-scopes li span")].map((s) => s.textContent),
      approve: visible("consent-approve"),
      deny: visible("consent-deny"),
      login: visible("auth"),
      others: [...document.querySelectorAll("main > .card")].filter((n) => n.id !== "consent" && n.id !== "auth" && n.getClientRects().length > 0).map((n) => n.id),
      images: document.querySelectorAll("#consent img").length,
    };
  });
}

/** Clicks sel (or nothing) and waits until the browser is at the
 * application's callback; tells the Go test, which checks what it got. */
async function backAtApp(h, page, sel, state, want) {
  const at = page.waitForURL((u) => u.pathname === "/cb", LONG);
  if (sel) await page.click(sel);
  await at;
  const got = await h.checkpoint("callback", { state, want });
  h.check(got.ok === true, `callback ${state}: ${JSON.stringify(got)}`);
}

export const scenarios = {
  async consent(h) {
    const email = process.env.CONSENT_EMAIL;
    const page = await h.open("/demo");
    await h.settled(page);

    // A request id this browser has no cookie for (or an unknown one).
    await page.goto(h.base + "/demo?oauth_request=" + "ab".repeat(32));
    await consentState(page, "invalid");
    const invalid = await page.evaluate(() => ({
      code: document.getElementById("consent-error").dataset.code,
      text: document.getElementById("consent-error").textContent,
      buttons: [...document.querySelectorAll("#consent button")].filter((b) => b.getClientRects().length > 0).length,
    }));

    // Logged out with prompt=none: nothing shown, login_required.
    await authorize(h, page, "admin", "s-none-out", { prompt: "none" });
    await page.waitForURL((u) => u.pathname === "/cb", LONG);
    await h.checkpoint("callback", { state: "s-none-out", want: "login_required" });

    // Logged out: who is asking, the log-in form, Deny.
    await authorize(h, page, "admin", "s-deny");
    await consentState(page, "login");
    const loggedOut = await shown(page);
    await backAtApp(h, page, "#consent-deny", "s-deny", "access_denied");

    // Log in on the page, see the scopes, Allow.
    await authorize(h, page, "admin", "s-allow");
    await consentState(page, "login");
    await page.fill("#email", email);
    await page.fill("#password", "Correct-Horse-42-battery");
    await page.click("#submit");
    await page.waitForFunction(() => document.getElementById("mfa-form")?.hidden === false, null, LONG);
    const { code } = await h.checkpoint("totp", {});
    await page.fill("#mfa-code", code);
    await page.click("#mfa-submit");
    await consentState(page, "ask");
    const asked = await shown(page);
    await shot(h, page, "#consent", "consent.png");
    await backAtApp(h, page, "#consent-approve", "s-allow", "code");

    // The consent covers everything: straight through, no click.
    await authorize(h, page, "admin", "s-again");
    await backAtApp(h, page, null, "s-again", "code");

    // prompt=login: the re-authentication dialog, then through.
    await authorize(h, page, "admin", "s-login", { prompt: "login" });
    await page.waitForFunction(() => document.getElementById("reauth")?.open, null, LONG);
    const reauthMethods = await page.evaluate(() => document.getElementById("reauth").dataset.methods);
    await page.selectOption("#reauth-method", "password");
    await page.fill("#reauth-secret", "Correct-Horse-42-battery");
    await backAtApp(h, page, "#reauth-submit", "s-login", "code");

    // An unverified public client on a loopback redirect: asked every time.
    await authorize(h, page, "dynamic", "s-dyn");
    await consentState(page, "ask");
    const unverified = await shown(page);
    await shot(h, page, "#consent", "consent-unverified.png");
    await backAtApp(h, page, "#consent-approve", "s-dyn", "code");
    await authorize(h, page, "dynamic", "s-dyn-again");
    await consentState(page, "ask");
    const again = await shown(page);
    await backAtApp(h, page, "#consent-deny", "s-dyn-again", "access_denied");
    // prompt=none: nothing shown, consent_required.
    await authorize(h, page, "dynamic", "s-none", { prompt: "none" });
    await page.waitForURL((u) => u.pathname === "/cb", LONG);
    await h.checkpoint("callback", { state: "s-none", want: "consent_required" });

    // Connected apps and the session list.
    await page.goto(h.base + "/demo");
    await page.waitForFunction(() => {
      const apps = document.getElementById("apps");
      return document.body.dataset.state === "in" && apps.dataset.state === "ok" && apps.dataset.count === "2" && !apps.hidden;
    }, null, LONG);
    await page.waitForFunction(() => document.querySelectorAll("#device-list li[data-oauth-client]:not([data-oauth-client=''])").length > 0, null, LONG);
    const { admin } = await h.checkpoint("clients", {});
    const before = await page.evaluate((id) => ({
      apps: [...document.querySelectorAll("#app-list li[data-client-id]")].map((li) => li.dataset.clientId),
      names: [...document.querySelectorAll("#app-list li[data-client-id] strong")].map((s) => s.textContent),
      sessions: [...document.querySelectorAll(`#device-list li[data-oauth-client="${id}"] strong`)].map((s) => s.textContent),
    }), admin);
    await shot(h, page, "#apps", "connected-apps.png");
    const item = `#app-list li[data-client-id="${admin}"]`;
    await page.click(`${item} button[data-action=disconnect]`);
    const confirming = await page.locator(`${item} .confirm`).isVisible();
    await page.click(`${item} button[data-action=confirm]`);
    await page.waitForFunction((id) => document.getElementById("apps").dataset.count === "1"
      && document.querySelectorAll(`#device-list li[data-oauth-client="${id}"]`).length === 0
      && document.getElementById("device-list").dataset.state === "ok", admin, LONG);
    const result = await page.evaluate(() => document.getElementById("apps-result").textContent);
    await h.checkpoint("revoked", {});

    h.result("consent", { invalid, loggedOut, asked, unverified, again, reauthMethods, before, confirming, result });
  },
};
