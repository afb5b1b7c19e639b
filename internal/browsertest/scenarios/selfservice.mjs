// The account's own changes on the demo page (CONTRACT §23): the profile's
// name and time zone, a new e-mail address confirmed through the mailed
// link and undone through the old address's link (then a new password
// through the link the revert mails), the data downloaded,
// and the account deleted after the page's own confirmation. The links
// come from the Go test's SMTP server at the checkpoints.

import fs from "node:fs";

const out = () => document.body?.dataset.state === "out";
const LONG = { timeout: 20_000 };
// The password chosen after the revert.
const PASSWORD = "Owner-Again-2024!";

/** The link card's state, title and text. */
function linkCard(page) {
  return page.evaluate(() => ({ state: document.getElementById("link-result").dataset.state ?? "",
    title: document.getElementById("link-title").textContent, text: document.getElementById("link-result").textContent }));
}

export const scenarios = {
  async selfservice(h) {
    const page = await h.open();
    await h.settled(page);
    // The profile read that follows the registration is held until the
    // person has typed: its late answer must not wipe what they typed.
    let release;
    const typed = new Promise((resolve) => { release = resolve; });
    const hold = async (route) => { await typed; await route.continue(); };
    await h.ctx.route(h.base + "/v1/users/read*", hold);
    const { email, userId } = await h.register(page);
    const res = { email, userId };

    // The profile: a time zone the server does not know is refused under its field.
    await page.fill("#pf-last-name", "Lovelace");
    await page.fill("#pf-timezone", "Mars/Olympus_Mons");
    release();
    await page.waitForFunction(() => document.getElementById("profile").dataset.read === "ok", null, LONG);
    await h.ctx.unroute(h.base + "/v1/users/read*", hold);
    await page.click("#profile-save");
    await page.waitForFunction(() => document.getElementById("pf-timezone-field-error"), null, LONG);
    res.badZone = await page.evaluate(() => ({ error: document.getElementById("pf-timezone-field-error").textContent,
      invalid: document.getElementById("pf-timezone").getAttribute("aria-invalid") }));
    await page.fill("#pf-timezone", "Europe/Paris");
    await page.click("#profile-save");
    await page.waitForFunction(() => document.getElementById("profile-edit").dataset.state === "saved", null, LONG);
    res.profile = await page.evaluate(() => ({ name: document.getElementById("profile-name").textContent,
      zoneError: Boolean(document.getElementById("pf-timezone-field-error")) }));

    // A new address: the link mailed to it changes the address and ends the sessions.
    const newEmail = `moved-${Date.now()}@example.com`;
    await page.fill("#new-email", newEmail);
    await page.click("#email-submit");
    await page.waitForFunction(() => document.getElementById("email-result")?.hidden === false, null, LONG);
    res.requested = await page.textContent("#email-result");
    const { link } = await h.checkpoint("change", { email, newEmail, userId });
    await page.goto(link);
    await page.waitForFunction(() => document.getElementById("link-result")?.dataset.state === "email-changed", null, LONG);
    res.changed = { ...(await linkCard(page)), hash: await page.evaluate(() => location.hash) };
    await page.waitForFunction(out, null, LONG);
    await h.login(page, newEmail);
    res.changed.cardAfterLogin = await page.evaluate(() => document.getElementById("link").checkVisibility());

    // The old address's link undoes it.
    const { revert } = await h.checkpoint("revert", { email, newEmail, userId });
    await page.goto(revert);
    await page.waitForFunction(() => document.getElementById("link-result")?.dataset.state === "email-reverted", null, LONG);
    res.reverted = await linkCard(page);
    await page.waitForFunction(out, null, LONG);
    // The revert made the password unusable: a new one through the link
    // mailed with it.
    const { reset } = await h.checkpoint("reset", { email });
    await page.goto(reset);
    await page.waitForFunction(() => document.getElementById("reset-form")?.hidden === false, null, LONG);
    await page.fill("#reset-password", PASSWORD);
    await page.click("#reset-submit");
    await page.waitForFunction(() => document.getElementById("link-result")?.dataset.state === "reset", null, LONG);
    await h.login(page, email, PASSWORD);

    // The activity shows the changes.
    await page.waitForFunction(() => document.getElementById("activity")?.dataset.state === "ok", null, LONG);
    res.activity = await page.evaluate(() => [...document.querySelectorAll("#activity-list li")].map((li) => li.dataset.type));

    // The data, downloaded as JSON.
    const [download] = await Promise.all([page.waitForEvent("download", LONG), page.click("#export-download")]);
    const text = fs.readFileSync(await download.path(), "utf8");
    res.export = { name: download.suggestedFilename(), keys: Object.keys(JSON.parse(text)), email: JSON.parse(text).user?.email, text };

    // Deleting asks first, then logs out with a message; the address no longer logs in.
    await page.click("#delete-open");
    await page.click("#delete-submit");
    await page.waitForFunction(out, null, LONG);
    res.deleted = { banner: await page.textContent("#banner") };
    await page.fill("#email", email);
    await page.fill("#password", PASSWORD);
    await page.click("#submit");
    await page.waitForFunction(() => document.getElementById("auth-error")?.hidden === false, null, LONG);
    res.deleted.login = await page.evaluate(() => document.getElementById("auth-error").querySelector(".msg")?.textContent ?? "");
    h.result("selfservice", res);
  },
};
