// Scenarios of the account as a person handles it in the demo page: a
// forgotten password reset through the mailed link, a password change that
// logs the other device out, the address confirmed through its link, and
// "Where you're logged in" ending another device's session.

const NEW_PASSWORD = "Brand-New-Password-77";
const out = () => document.body?.dataset.state === "out";
const inside = () => document.body?.dataset.state === "in";

/** The texts and states of the page's link card. */
function linkCard(page) {
  return page.evaluate(() => {
    const r = document.getElementById("link-result");
    return { shown: !document.getElementById("link").hidden, text: r.hidden ? "" : r.textContent, state: r.dataset.state ?? "", code: r.dataset.code ?? "" };
  });
}

/** Requests a reset for email through "Forgot your password?" and returns
 * the confirmation the page shows. */
async function requestReset(page, email) {
  await page.click("#mode-login");
  await page.click("#forgot-open");
  await page.fill("#forgot-email", email);
  await page.click("#forgot-submit");
  await page.waitForFunction(() => document.getElementById("forgot-result")?.hidden === false || document.getElementById("forgot-error")?.hidden === false);
  const shown = await page.evaluate(() => ({
    result: document.getElementById("forgot-result").textContent,
    error: document.getElementById("forgot-error").hidden ? "" : document.getElementById("forgot-error").textContent,
  }));
  await page.click("#forgot-back");
  return shown;
}

/** Measures how long after start the page shows the logged-out form. */
async function loggedOutWithin(page, start) {
  await page.waitForFunction(out, null, { timeout: 20_000 });
  return Date.now() - start;
}

export const scenarios = {
  /** Forgot password, end to end: request, the mail's link (from the Go
   * test's SMTP server, at the checkpoint), a new password, a login. */
  async forgot(h) {
    const page = await h.open();
    await h.settled(page);
    const { email, userId } = await h.register(page);
    await page.click("#logout");
    await page.waitForFunction(out);
    const known = await requestReset(page, email);
    const unknown = await requestReset(page, `nobody-${Date.now()}@example.com`);
    h.check(!known.error && known.result !== "" && known.result === unknown.result,
      `the answers for a known and an unknown address differ: ${JSON.stringify({ known, unknown })}`);
    const { link } = await h.checkpoint("requested", { email, userId });
    await page.goto(link);
    await page.waitForFunction(() => document.getElementById("reset-form")?.hidden === false);
    const hashLeft = await page.evaluate(() => location.hash);
    await page.fill("#reset-password", "weak");
    await page.click("#reset-submit");
    // The reason shows under the field, once, in words (no field name, no request id).
    await page.waitForFunction(() => document.getElementById("reset-password-field-error"));
    const weak = await page.evaluate(() => document.getElementById("reset-password-field-error").textContent);
    const weakField = await page.evaluate(() => ({
      invalid: document.getElementById("reset-password").getAttribute("aria-invalid"),
      describedBy: document.getElementById("reset-password").getAttribute("aria-describedby"),
      cardError: document.getElementById("reset-error").hidden ? "" : document.getElementById("reset-error").innerText,
    }));
    await page.fill("#reset-password", NEW_PASSWORD);
    await page.click("#reset-submit");
    await page.waitForFunction(() => document.getElementById("link-result")?.dataset.state === "reset");
    const reset = await linkCard(page);
    await h.login(page, email, NEW_PASSWORD);
    // The link is single use.
    await page.goto(link);
    await page.waitForFunction(() => document.getElementById("reset-form")?.hidden === false);
    await page.fill("#reset-password", "Another-Password-88");
    await page.click("#reset-submit");
    await page.waitForFunction(() => document.getElementById("link-result")?.dataset.state === "failed");
    const reused = await linkCard(page);
    h.result("forgot", { email, userId, confirmation: known.result, hashLeft, weak, weakField, reset, reused, state: await page.evaluate(() => document.body?.dataset.state) });
  },

  /** A password change in one browser ends the session of the other one,
   * whose page logs out by itself, while this one goes on. */
  async changepassword(h) {
    const page = await h.open();
    await h.settled(page);
    const { email, userId } = await h.register(page);
    const other = await h.device();
    const phone = await other.open();
    await other.settled(phone);
    await other.login(phone, email);
    await phone.waitForFunction(() => document.getElementById("feed-status")?.dataset.live === "yes");
    const sid = await page.evaluate(() => globalThis.actionkit.sessionId);
    await page.fill("#current-password", "Wrong-Password-000");
    await page.fill("#new-password", NEW_PASSWORD);
    await page.click("#password-submit");
    await page.waitForFunction(() => document.getElementById("current-password-field-error"));
    const wrong = await page.evaluate(() => document.getElementById("current-password-field-error").textContent);
    await page.fill("#current-password", "Correct-Horse-42-battery");
    await page.fill("#new-password", NEW_PASSWORD);
    const start = Date.now();
    await page.click("#password-submit");
    await page.waitForFunction(() => document.getElementById("password-form")?.dataset.changed === "1");
    const otherOutMs = await loggedOutWithin(phone, start);
    const after = await page.evaluate(async () => ({
      state: document.body?.dataset.state,
      source: globalThis.actionkit.source,
      sid: globalThis.actionkit.sessionId,
      read: (await globalThis.actionkit.api("/v1/users/read")).user.id,
    }));
    await page.waitForFunction(() => document.getElementById("device-list")?.dataset.count === "1");
    await page.reload();
    await page.waitForFunction(inside);
    h.result("changepassword", { email, userId, wrong, otherOutMs, sidBefore: sid, ...after,
      otherBanner: await phone.evaluate(() => document.getElementById("banner").textContent) });
  },

  /** The verification link confirms the address, which the page shows; a
   * bad link is explained. */
  async verify(h) {
    const page = await h.open();
    await h.settled(page);
    const { email, userId } = await h.register(page);
    const before = await page.evaluate(() => document.getElementById("profile-verified").dataset.verified);
    const { link } = await h.checkpoint("registered", { email, userId });
    await page.goto(link);
    await page.waitForFunction(() => document.getElementById("link-result")?.dataset.state === "verified");
    await page.waitForFunction(() => document.getElementById("profile-verified")?.dataset.verified === "true");
    const verified = { ...(await linkCard(page)), hashLeft: await page.evaluate(() => location.hash) };
    await page.goto(`${h.base}/demo#verify=${"0".repeat(64)}`);
    await page.waitForFunction(() => document.getElementById("link-result")?.dataset.state === "failed");
    const bad = await linkCard(page);
    h.result("verify", { email, userId, before, verified, bad });
  },

  /** "Where you're logged in" lists both browsers; logging the other one
   * out from here ends its page's session within seconds. */
  async devices(h) {
    const page = await h.open();
    await h.settled(page);
    const { email, userId } = await h.register(page);
    const other = await h.device();
    const phone = await other.open();
    await other.settled(phone);
    await other.login(phone, email);
    await phone.waitForFunction(() => document.getElementById("feed-status")?.dataset.live === "yes");
    await page.reload();
    await page.waitForFunction(() => document.getElementById("device-list")?.dataset.count === "2");
    const listed = await page.evaluate(() => [...document.querySelectorAll("#device-list li")].map((li) => ({
      id: li.dataset.sessionId, current: li.dataset.current === "true", text: li.textContent,
    })));
    const phoneSid = await phone.evaluate(() => globalThis.actionkit.sessionId);
    const start = Date.now();
    await page.click(`#device-list li[data-session-id="${phoneSid}"] button`);
    const otherOutMs = await loggedOutWithin(phone, start);
    await page.waitForFunction(() => document.getElementById("device-list")?.dataset.count === "1");
    const stays = await page.evaluate(() => ({ state: document.body?.dataset.state, sid: globalThis.actionkit.sessionId }));
    h.result("devices", { email, userId, listed, phoneSid, otherOutMs, ...stays });
  },
};
