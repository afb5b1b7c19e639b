// The second factor as a person handles it in the demo page: set up an
// authenticator app from the panel (the QR code is read back with a QR
// decoder, the key read from the page), save the recovery codes, log in
// with the password and a code, then with a recovery code, and confirm a
// sensitive change in the re-authentication prompt; at last an admin resets
// it from the console. TOTP codes come from
// the Go test at checkpoints, computed from the key at the server's time.

import fs from "node:fs";
import path from "node:path";
import jsQR from "jsqr";

const inside = () => document.body?.dataset.state === "in";
const out = () => document.body?.dataset.state === "out";
/** Waits until the two-factor panel shows state. */
const panel = (page, state) => page.waitForFunction((s) => document.getElementById("two-factor")?.dataset.state === s, state, LONG);
const LONG = { timeout: 20_000 };

/** Reads the page's QR image through a canvas and decodes it in Node. */
async function readQR(page) {
  await page.waitForFunction(() => {
    const img = document.getElementById("tf-qr");
    return img.complete && img.naturalWidth > 0;
  }, null, LONG);
  const { width, height, pixels } = await page.evaluate(() => {
    const img = document.getElementById("tf-qr");
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    return { width: canvas.width, height: canvas.height, pixels: Array.from(data) };
  });
  const found = jsQR(Uint8ClampedArray.from(pixels), width, height);
  return found?.data ?? "";
}

/** Saves a screenshot of the element sel of page as name in the artefacts. */
async function shot(h, page, sel, name) {
  fs.mkdirSync(h.artifacts, { recursive: true });
  await page.locator(sel).screenshot({ path: path.join(h.artifacts, name) });
}

/** Logs in through the form with the password, and waits for the second
 * step. */
async function firstStep(page, email) {
  await page.click("#mode-login");
  await page.fill("#email", email);
  await page.fill("#password", "Correct-Horse-42-battery");
  await page.click("#submit");
  await page.waitForFunction(() => document.getElementById("mfa-form")?.hidden === false, null, LONG);
  return page.evaluate(() => ({
    methods: document.getElementById("mfa-form").dataset.methods,
    state: document.body?.dataset.state,
    token: globalThis.actionkit.token,
    banner: document.getElementById("banner").checkVisibility(),
  }));
}

/** Enters code in the second step and waits for the logged-in page. */
async function secondStep(page, code, email) {
  await page.fill("#mfa-code", code);
  await page.click("#mfa-submit");
  await page.waitForFunction((e) => document.body?.dataset.state === "in"
    && document.getElementById("profile-email").textContent === e, email, LONG);
  await page.waitForFunction(() => document.getElementById("tf-status")?.dataset.enabled !== undefined
    && document.getElementById("two-factor").dataset.state === "on", null, LONG);
  return page.evaluate(() => ({
    remaining: Number(document.getElementById("tf-status").dataset.remaining),
    sid: globalThis.actionkit.sessionId,
  }));
}

async function logout(page) {
  await page.click("#logout");
  await page.waitForFunction(out, null, LONG);
}

/** Sets two-factor up from the panel and returns what the page showed. */
async function enroll(h, page, email, userId) {
  await panel(page, "off");
  await page.click("#tf-enroll");
  await panel(page, "setup");
  const secret = (await page.textContent("#tf-secret")).replace(/\s+/g, "");
  const qr = await readQR(page);
  const link = await page.getAttribute("#tf-link", "href");
  await shot(h, page, "#two-factor", "twofactor-setup.png");
  const { code } = await h.checkpoint("code", { email, userId, secret, purpose: "confirm" });
  await page.fill("#tf-confirm-code", code);
  await page.click("#tf-confirm");
  await panel(page, "codes");
  const codes = await page.evaluate(() => [...document.querySelectorAll("#tf-code-list code")].map((c) => c.textContent));
  await shot(h, page, "#two-factor", "twofactor-codes.png");
  const [download] = await Promise.all([page.waitForEvent("download", LONG), page.click("#tf-download")]);
  const file = fs.readFileSync(await download.path(), "utf8");
  await page.click("#tf-saved");
  await panel(page, "on");
  const after = await page.evaluate(() => ({
    shown: document.querySelectorAll("#tf-code-list code").length,
    enabled: document.getElementById("tf-status").dataset.enabled,
    source: globalThis.actionkit.source,
    state: document.body?.dataset.state,
  }));
  return { secret, qr, link, codes, download: { name: download.suggestedFilename(), text: file }, after, confirmCode: code };
}

/** A sensitive change once the session is old: the prompt asks, a wrong
 * code is explained, a right one lets the change go ahead. */
async function reauthenticate(h, page, email, userId, secret) {
  const { code, wrong } = await h.checkpoint("age", { email, userId, secret, purpose: "reauthenticate" });
  await page.click("#tf-regenerate");
  await page.waitForFunction(() => document.getElementById("reauth")?.open, null, LONG);
  const offered = await page.evaluate(() => ({
    methods: document.getElementById("reauth").dataset.methods,
    chosen: document.getElementById("reauth-method").value,
  }));
  // A wrong recovery code: the dialog keeps the method the person chose.
  await page.selectOption("#reauth-method", "recovery_code");
  await page.fill("#reauth-secret", wrong);
  await page.click("#reauth-submit");
  await page.waitForFunction(() => document.getElementById("reauth")?.open && document.getElementById("reauth-error")?.hidden === false, null, LONG);
  const refused = await page.textContent("#reauth-error");
  const kept = await page.evaluate(() => ({ method: document.getElementById("reauth-method").value,
    field: !document.getElementById("reauth-field").hidden, label: document.getElementById("reauth-label").textContent }));
  await page.selectOption("#reauth-method", "totp");
  await shot(h, page, "#reauth", "twofactor-reauth.png");
  await page.fill("#reauth-secret", code);
  await page.click("#reauth-submit");
  await panel(page, "codes");
  const closed = await page.evaluate(() => !document.getElementById("reauth").open);
  const codes = await page.evaluate(() => [...document.querySelectorAll("#tf-code-list code")].map((c) => c.textContent));
  await page.click("#tf-saved");
  await panel(page, "on");
  return { ...offered, refused, kept, closed, codes };
}

/** The support desk: an admin resets the user's two-factor in the console
 * of another browser; the user's page logs out, and the password alone
 * logs in again. */
async function adminReset(h, page, email, userId, codes) {
  const { adminEmail, adminPassword } = await h.checkpoint("admin", { email, userId, ...codes });
  await page.waitForFunction(() => document.getElementById("feed-status")?.dataset.live === "yes", null, LONG);
  const desk = await h.device();
  const admin = await desk.open("/admin");
  await desk.settled(admin);
  await admin.fill("#email", adminEmail);
  await admin.fill("#password", adminPassword);
  await admin.click("#submit");
  await admin.waitForFunction(inside, null, LONG);
  await admin.fill("#query", email);
  await admin.click("#search");
  await admin.waitForFunction((id) => document.querySelector(`#user-list li[data-user-id="${id}"]`), userId, LONG);
  await admin.click(`#user-list li[data-user-id="${userId}"] button`);
  await admin.waitForFunction(() => document.getElementById("detail")?.dataset.state === "ok", null, LONG);
  const before = await admin.evaluate(() => ({ mfa: document.getElementById("d-mfa").dataset.enabled, button: !document.getElementById("reset-mfa").hidden }));
  const start = Date.now();
  await admin.click("#reset-mfa");
  await admin.click("#confirm-yes");
  await admin.waitForFunction(() => document.getElementById("detail-result")?.hidden === false
    && document.getElementById("d-mfa").dataset.enabled === "false", null, LONG);
  const after = await admin.evaluate(() => ({ mfa: document.getElementById("d-mfa").dataset.enabled,
    button: !document.getElementById("reset-mfa").hidden, result: document.getElementById("detail-result").textContent }));
  await page.waitForFunction(out, null, LONG);
  const userOutMs = Date.now() - start;
  await h.login(page, email);
  await panel(page, "off");
  return { before, after, userOutMs };
}

export const scenarios = {
  /** Enrol from the page, log out, log in with password + code, log out,
   * log in with a recovery code, then re-authenticate for a change. */
  async twofactor(h) {
    const page = await h.open();
    await h.settled(page);
    const { email, userId } = await h.register(page);
    const enrolled = await enroll(h, page, email, userId);
    await logout(page);

    // Neither step refreshes: the first one's 403 is no failed token.
    let sent = h.refreshes.length;
    const first = await firstStep(page, email);
    // The code that turned two-factor on, again: the page says to wait for the next one.
    await page.fill("#mfa-code", enrolled.confirmCode);
    await page.click("#mfa-submit");
    await page.waitForFunction(() => document.getElementById("mfa-error")?.hidden === false, null, LONG);
    const reused = await page.evaluate(() => document.getElementById("mfa-error").querySelector(".msg")?.textContent ?? "");
    await shot(h, page, "#auth", "twofactor-login.png");
    const { code } = await h.checkpoint("code", { email, userId, secret: enrolled.secret, purpose: "login" });
    const withCode = { first, ...(await secondStep(page, code, email)), refreshes: h.refreshes.length - sent };
    await logout(page);

    sent = h.refreshes.length;
    const again = await firstStep(page, email);
    await page.click("#mfa-switch");
    await page.waitForFunction(() => document.getElementById("mfa-form")?.dataset.method === "recovery_code");
    const withRecovery = { first: again, ...(await secondStep(page, enrolled.codes[0].toLowerCase(), email)),
      refreshes: h.refreshes.length - sent };

    const reauth = await reauthenticate(h, page, email, userId, enrolled.secret);
    const reset = await adminReset(h, page, email, userId, { void: enrolled.codes[1], fresh: reauth.codes[0] });
    h.result("twofactor", { email, userId, enrolled, withCode, withRecovery, reauth, reset, reused });
  },
};
