// Signing in with an identity provider from the demo page, through a real
// OpenID provider (internal/oidctest: npm oidc-provider, its own login and
// consent pages) that the Go test started: the provider's button, its
// pages, the way back with #oidc=<code>, logged in. Then the "Connected
// accounts" panel: the only identity cannot be disconnected (the last way
// to sign in), another provider is connected (#linked=<provider>), one is
// disconnected; a passkey is added, which makes the next sign-in with the
// provider ask for it in the second step; in a session too old for it,
// the last identity is disconnected after confirming with the passkey in
// the re-authentication dialog; and the passkey, now the last way to sign
// in, cannot be removed.

import { virtualAuthenticators, newSession, addPasskey, shot, autofillWaiting, conditionalCount, logout } from "./passkeys.mjs";

const LONG = { timeout: 20_000 };

/**
 * Runs go (a click that sends the browser to the provider), then goes
 * through the provider's pages as the account sub: its login form and its
 * consent, whichever it shows (none when it remembers both), until the
 * browser lands back on the demo page with the flow's fragment; with sub
 * null it cancels at the login form instead. Every
 * navigation of the tab is recorded as it commits, since the page takes
 * the fragment out of the address bar at once. Returns the pages answered
 * and the URL the browser landed on.
 */
async function throughProvider(h, page, sub, go) {
  const seen = [];
  const record = (f) => { if (f === page.mainFrame()) seen.push(f.url()); };
  const landed = (u) => u.startsWith(h.base + "/") && /#(oidc|linked|error)=/.test(u);
  const interaction = (u) => !u.startsWith(h.base + "/") && new URL(u).pathname.startsWith("/interaction/");
  page.on("framenavigated", record);
  try {
    await go();
    const answered = [];
    let mark = 0; // the navigations before the last answer
    while (answered.length < 6) {
      await h.until("the provider's page or the way back", () => seen.slice(mark).some((u) => landed(u) || interaction(u)), LONG.timeout)
        .catch((err) => { throw new Error(`${err.message}; the tab went to ${seen.join(" ")}; it shows ${page.url()}`); });
      const landing = seen.find(landed);
      if (landing) return { answered, landing };
      const form = page.locator("form:has(input[name=prompt])");
      const prompt = await form.locator("input[name=prompt]").getAttribute("value", LONG);
      answered.push(prompt);
      mark = seen.length;
      if (prompt === "login" && sub === null) {
        await page.click("a[href$='/abort']");
        continue;
      }
      if (prompt === "login") {
        await form.locator("input[name=login]").fill(sub);
        await form.locator("input[name=password]").fill("any password");
      }
      await form.locator("button[type=submit]").click();
    }
    throw new Error(`the provider did not send the browser back: at ${page.url()} after ${answered.join(", ")}`);
  } finally {
    page.off("framenavigated", record);
  }
}

/** What the connected accounts panel shows, once it has loaded count identities. */
async function identities(page, count) {
  await page.waitForFunction((n) => {
    const panel = document.getElementById("identities");
    return panel?.hidden === false && panel.dataset.state === "ok" && panel.dataset.count === String(n);
  }, count, LONG);
  return page.evaluate(() => ({
    providers: [...document.querySelectorAll("#identity-list li[data-identity-id]")].map((li) => li.dataset.provider),
    emails: [...document.querySelectorAll("#identity-list li[data-identity-id] .meta")].map((m) => m.textContent),
    connect: [...document.querySelectorAll("#link-buttons button")].map((b) => b.dataset.provider),
  }));
}

/** Clicks sel and waits for the refusal shown in the alert #id; returns its code and words. */
async function refused(page, sel, id) {
  await page.click(sel);
  await page.waitForFunction((i) => document.getElementById(i)?.hidden === false && document.getElementById(i)?.dataset.code, id, LONG);
  return page.evaluate((i) => ({ code: document.getElementById(i).dataset.code, text: document.getElementById(i).textContent }), id);
}

/** Cancels at the provider's login page: the page comes back with
 * #error=<CODE> and explains it on the log-in form. */
async function cancelled(h, page) {
  await page.waitForSelector("#provider-list button[data-provider=idp]", LONG);
  const { answered, landing } = await throughProvider(h, page, null, () => page.click("#provider-list button[data-provider=idp]"));
  await page.waitForFunction(() => document.getElementById("auth-error")?.hidden === false, null, LONG);
  return page.evaluate(({ answered, landing }) => ({
    pages: answered, fragment: new URL(landing).hash, hash: location.hash, state: document.body?.dataset.state,
    code: document.getElementById("auth-error").dataset.code, text: document.getElementById("auth-error").textContent,
  }), { answered, landing });
}

/** Signs in with the provider's button on the log-in form. */
async function signIn(h, page, sub) {
  await page.waitForSelector("#provider-list button[data-provider=idp]", LONG);
  const buttons = await page.evaluate(() => [...document.querySelectorAll("#provider-list button")].map((b) => b.textContent));
  await shot(h, page, "#auth", "oidc-login.png");
  const { answered, landing } = await throughProvider(h, page, sub, () => page.click("#provider-list button[data-provider=idp]"));
  const session = await newSession(page, null);
  const after = await page.evaluate(() => ({ hash: location.hash, oidc: document.getElementById("auth").dataset.oidc,
    noPassword: !document.getElementById("password-none").hidden && document.getElementById("password-form").hidden }));
  return { buttons, pages: answered, fragment: new URL(landing).hash, ...session, landing: after };
}

/** Connects the "trusted" provider from the panel; the browser comes back
 * with #linked=trusted. */
async function connect(h, page, sub) {
  const { answered, landing } = await throughProvider(h, page, sub, () => page.click("#link-buttons button[data-provider=trusted]"));
  await page.waitForFunction(() => document.getElementById("id-result")?.dataset.provider === "trusted", null, LONG);
  const shown = await identities(page, 2);
  return {
    pages: answered, fragment: new URL(landing).hash, ...shown,
    hash: await page.evaluate(() => location.hash),
    result: await page.textContent("#id-result"),
  };
}

/** Disconnects the identity of provider, confirming with the passkey when
 * the dialog asks; returns what the dialog offered (null if it did not). */
async function disconnect(page, provider, left) {
  await page.click(`#identity-list li[data-provider=${provider}] button`);
  await page.waitForFunction((n) => document.getElementById("reauth")?.open
    || document.getElementById("identities")?.dataset.count === String(n), left, LONG);
  let dialog = null;
  if (await page.evaluate(() => document.getElementById("reauth").open)) {
    dialog = await page.evaluate(() => ({ methods: document.getElementById("reauth").dataset.methods, chosen: document.getElementById("reauth-method").value }));
    await page.click("#reauth-submit");
  }
  await identities(page, left);
  return { dialog, result: await page.textContent("#id-result") };
}

/** With a passkey the account has a second factor: signing in with the
 * provider ends in the second step, finished with "Use a passkey". The
 * autofill's request waits meanwhile (the authenticator answers nothing
 * until the provider's button is clicked). */
async function signInWithSecondStep(h, page, key, sub) {
  await key.presence(false);
  const before = await conditionalCount(page);
  await logout(page);
  await autofillWaiting(page, before);
  await key.presence(true);
  const { answered, landing } = await throughProvider(h, page, sub, () => page.click("#provider-list button[data-provider=trusted]"));
  await page.waitForFunction(() => document.getElementById("mfa-form")?.hidden === false && document.getElementById("mfa-passkey")?.hidden === false, null, LONG);
  const step = await page.evaluate(() => ({ methods: document.getElementById("mfa-form").dataset.methods, token: globalThis.actionkit.token,
    hash: location.hash, oidc: document.getElementById("auth").dataset.oidc }));
  await page.click("#mfa-passkey");
  return { pages: answered, fragment: new URL(landing).hash, step, ...(await newSession(page, null)) };
}

export const scenarios = {
  /** Sign in through the provider, then connect, disconnect and refuse. */
  async oidc(h) {
    const authenticator = await virtualAuthenticators(h);
    const page = await h.open();
    const key = await authenticator(page);
    await h.settled(page);
    const { sub } = await h.checkpoint("account", {});
    const cancel = await cancelled(h, page);
    const login = await signIn(h, page, sub);
    const first = await identities(page, 1);
    await shot(h, page, "#identities", "oidc-connected.png");
    const lastIdentity = await refused(page, "#identity-list li[data-provider=idp] button", "id-error");
    const linked = await connect(h, page, sub);
    const unlinked = await disconnect(page, "idp", 1);
    await addPasskey(page, "Phone", 1);
    const secondStep = await signInWithSecondStep(h, page, key, sub);
    await h.checkpoint("age", {});
    const withKey = await disconnect(page, "trusted", 0);
    const lastPasskey = await refused(page, "#passkey-list li[data-passkey-id] button[data-action=remove]", "pk-error");
    const userId = await page.evaluate(() => globalThis.actionkit.user.id);
    h.result("oidc", { userId, cancel, login, first, lastIdentity, linked, unlinked, secondStep, withKey, lastPasskey });
  },
};
