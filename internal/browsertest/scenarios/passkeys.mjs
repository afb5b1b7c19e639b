// Passkeys as a person uses them on the demo page, with Chromium's virtual
// authenticator (the DevTools protocol's WebAuthn domain) standing in for
// the device's: add one from the panel and rename it; log in with the
// password and the passkey as second step; let the e-mail field's autofill
// sign in; sign in with the button while the autofill waits; and remove the
// passkey in a session too old for it, confirming with the passkey in the
// re-authentication dialog.
//
// The virtual authenticator answers every request at once while its
// automatic presence is on, and leaves a request waiting (as a person who
// does not pick a passkey) when it is off at the moment of the request. An
// init script records each navigator.credentials call of the page and how
// it ended, so that the scenario waits for the page's requests instead of
// guessing.

import fs from "node:fs";
import path from "node:path";

const LONG = { timeout: 20_000 };

/** Saves a screenshot of the element sel of page as name in the artefacts. */
export async function shot(h, page, sel, name) {
  fs.mkdirSync(h.artifacts, { recursive: true });
  await page.locator(sel).screenshot({ path: path.join(h.artifacts, name) });
}
const inside = () => document.body?.dataset.state === "in";

/** Records the page's WebAuthn ceremonies in globalThis.__ceremonies:
 * {kind: get|create, mediation, state: pending|resolved|<error name>}. */
function recordCeremonies() {
  globalThis.__ceremonies = [];
  for (const kind of ["get", "create"]) {
    const original = CredentialsContainer.prototype[kind];
    CredentialsContainer.prototype[kind] = function (options) {
      const entry = { kind, mediation: options?.mediation ?? "optional", state: "pending" };
      globalThis.__ceremonies.push(entry);
      const p = original.call(this, options);
      p.then(() => { entry.state = "resolved"; }, (err) => { entry.state = err.name; });
      return p;
    };
  }
}

/**
 * Installs the ceremony recorder in the context (before the page opens)
 * and returns a function that gives a virtual authenticator to a page: a
 * platform authenticator holding discoverable credentials, with user
 * verification.
 */
export async function virtualAuthenticators(h) {
  await h.ctx.addInitScript(recordCeremonies);
  return async (page) => {
    const cdp = await h.ctx.newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    return {
      /** Whether requests made from now on are answered at once. */
      presence: (enabled) => cdp.send("WebAuthn.setAutomaticPresenceSimulation", { authenticatorId, enabled }),
      /** The credentials it holds. */
      credentials: () => cdp.send("WebAuthn.getCredentials", { authenticatorId }).then((r) => r.credentials),
    };
  };
}

/** The page's ceremonies so far. */
export const ceremonies = (page) => page.evaluate(() => globalThis.__ceremonies.map((c) => ({ ...c })));

/** Waits until the page has more than `after` autofill requests and the
 * last one waits for the person. */
export async function autofillWaiting(page, after) {
  await page.waitForFunction((n) => {
    const cond = globalThis.__ceremonies.filter((c) => c.mediation === "conditional");
    return cond.length > n && cond[cond.length - 1].state === "pending"
      && document.getElementById("email").dataset.autofill === "waiting";
  }, after, LONG).catch(async (err) => {
    const seen = await page.evaluate(() => ({ calls: globalThis.__ceremonies, autofill: document.getElementById("email").dataset.autofill,
      error: document.getElementById("auth-error").textContent }));
    throw new Error(`no autofill request waiting after ${after}: ${JSON.stringify(seen)}: ${err.message}`);
  });
}

export const conditionalCount = (page) => page.evaluate(() => globalThis.__ceremonies.filter((c) => c.mediation === "conditional").length);

/** Waits for the page to be logged in with another session than `before`,
 * and its devices panel to show it; returns the session and how it
 * signed in. */
export async function newSession(page, before) {
  // The predicate runs during navigations too, while the new document has
  // no body or client yet: every step of it must tolerate their absence.
  await page.waitForFunction((sid) => document.body?.dataset.state === "in" && globalThis.actionkit?.sessionId
    && globalThis.actionkit.sessionId !== sid
    && document.querySelector(`#device-list li[data-session-id="${globalThis.actionkit.sessionId}"]`), before, LONG);
  return page.evaluate(() => {
    const sid = globalThis.actionkit.sessionId;
    const item = document.querySelector(`#device-list li[data-session-id="${sid}"]`);
    return { sid, methods: item.dataset.methods, provider: item.dataset.provider, how: item.querySelector(".how").textContent };
  });
}

const sessionOf = (page) => page.evaluate(() => globalThis.actionkit.sessionId);

export async function logout(page) {
  await page.click("#logout");
  await page.waitForFunction(() => document.body?.dataset.state === "out", null, LONG);
}

/** Adds a passkey named name from the panel; returns what the list shows. */
export async function addPasskey(page, name, count) {
  await page.waitForFunction(() => document.getElementById("passkeys")?.dataset.state === "ok", null, LONG);
  await page.fill("#pk-name", name);
  await page.click("#pk-add");
  await page.waitForFunction((n) => document.getElementById("passkeys")?.dataset.count === String(n), count, LONG);
  return page.evaluate(() => ({
    names: [...document.querySelectorAll("#passkey-list li[data-passkey-id]")].map((li) => li.dataset.name),
    meta: document.querySelector("#passkey-list li[data-passkey-id] .meta")?.textContent,
    result: document.getElementById("pk-result").textContent,
  }));
}

/** Renames the first passkey of the list. */
async function rename(page, name) {
  await page.click("#passkey-list li[data-passkey-id] button[data-action=rename]");
  await page.fill("#passkey-list form.rename input", name);
  await page.click("#passkey-list form.rename button[type=submit]");
  await page.waitForFunction((n) => document.querySelector("#passkey-list li[data-passkey-id]")?.dataset.name === n, name, LONG);
}

/** The password first, then "Use a passkey" in the second step; the
 * autofill's request, waiting meanwhile, is aborted by the submit. */
async function passwordThenPasskey(h, page, key, email) {
  await key.presence(false);
  const before = await conditionalCount(page);
  await logout(page);
  await autofillWaiting(page, before);
  await key.presence(true); // for the requests to come
  await page.fill("#email", email);
  await page.fill("#password", "Correct-Horse-42-battery");
  await page.click("#submit");
  await page.waitForFunction(() => document.getElementById("mfa-form")?.hidden === false && document.getElementById("mfa-passkey")?.hidden === false, null, LONG);
  await shot(h, page, "#auth", "passkeys-second-step.png");
  const step = await page.evaluate(() => ({
    methods: document.getElementById("mfa-form").dataset.methods,
    codeField: !document.getElementById("mfa-code-part").hidden,
    token: globalThis.actionkit.token,
  }));
  await page.click("#mfa-passkey");
  const session = await newSession(page, null);
  const autofill = (await ceremonies(page)).filter((c) => c.mediation === "conditional").at(-1).state;
  return { step, ...session, autofill };
}

/** With the authenticator answering at once, the autofill's request signs
 * in as soon as the log-in form shows it: the person picked the passkey. */
async function byAutofill(page) {
  const before = await sessionOf(page);
  await page.click("#logout");
  const session = await newSession(page, before);
  const outcome = await page.evaluate(() => document.getElementById("email").dataset.autofill);
  return { ...session, outcome };
}

/** The button, while the autofill's request waits: it is aborted first. */
async function byButton(page, key) {
  await key.presence(false);
  const before = await conditionalCount(page);
  await logout(page);
  await autofillWaiting(page, before);
  await key.presence(true);
  await page.click("#passkey-login");
  const session = await newSession(page, null);
  const calls = await ceremonies(page);
  return { ...session, autofill: calls.filter((c) => c.mediation === "conditional").at(-1).state, button: calls.at(-1) };
}

/** Removes the first passkey in a session older than REAUTH_MAX_AGE: the
 * dialog offers the passkey first, and the removal goes ahead after it. */
async function removeAfterReauth(h, page, userId) {
  await h.checkpoint("age", { userId });
  await page.click("#passkey-list li[data-passkey-id] button[data-action=remove]");
  await page.waitForFunction(() => document.getElementById("reauth")?.open, null, LONG);
  const offered = await page.evaluate(() => ({
    methods: document.getElementById("reauth").dataset.methods,
    chosen: document.getElementById("reauth-method").value,
    field: !document.getElementById("reauth-field").hidden,
  }));
  await shot(h, page, "#reauth", "passkeys-reauth.png");
  await page.click("#reauth-submit");
  await page.waitForFunction(() => document.getElementById("passkeys")?.dataset.count === "0", null, LONG);
  return {
    ...offered,
    closed: await page.evaluate(() => !document.getElementById("reauth").open),
    result: await page.textContent("#pk-result"),
    error: await page.evaluate(() => document.getElementById("pk-error").hidden ? "" : document.getElementById("pk-error").textContent),
  };
}

export const scenarios = {
  /** Add, rename, log in three ways, remove after re-authenticating. */
  async passkeys(h) {
    const authenticator = await virtualAuthenticators(h);
    const page = await h.open();
    const key = await authenticator(page);
    await h.settled(page);
    const form = await page.evaluate(() => ({
      button: !document.getElementById("passkey-login").hidden,
      autocomplete: document.getElementById("email").getAttribute("autocomplete"),
    }));
    const { email, userId } = await h.register(page);
    const added = await addPasskey(page, "Test laptop", 1);
    await rename(page, "Work laptop");
    await shot(h, page, "#passkeys", "passkeys-panel.png");
    const creds = (await key.credentials()).map((c) => ({ rpId: c.rpId, resident: c.isResidentCredential }));
    const secondStep = await passwordThenPasskey(h, page, key, email);
    const autofill = await byAutofill(page);
    const button = await byButton(page, key);
    const removed = await removeAfterReauth(h, page, userId);
    h.result("passkeys", { email, userId, form, added, creds, secondStep, autofill, button, removed });
  },
};
