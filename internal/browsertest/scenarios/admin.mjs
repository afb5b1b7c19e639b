// The admin console in one browser and a user's demo page in another: the
// admin finds the user, sees its sessions and security events, and each of
// its changes that ends the user's sessions logs the user's page out. Once
// the admin's log-in is older than REAUTH_MAX_AGE, a sensitive change asks
// for the admin's password (a wrong one is refused in the dialog) and then
// goes ahead.

import fs from "node:fs";
import path from "node:path";

const out = () => document.body?.dataset.state === "out";
// The user's page learns of an admin's change through its socket: each
// change waits for the feed to be live first, as the other scenarios do.
const live = () => document.getElementById("feed-status").dataset.live === "yes";

/** Clicks button #id of the console and waits for the detail card to show
 * the user again with the status want. */
async function act(admin, id, want) {
  await admin.click(`#${id}`);
  if (await admin.isVisible("#confirm")) await admin.click("#confirm-yes");
  await admin.waitForFunction((w) => document.getElementById("detail")?.dataset.status === w
    && !document.getElementById("detail-result").hidden, want);
}

/** The types of the events the console lists, newest first. */
function eventTypes(admin) {
  return admin.evaluate(() => [...document.querySelectorAll("#d-events li")].map((li) => li.dataset.type));
}

export const scenarios = {
  async admin(h) {
    const userPage = await h.open("/demo");
    await h.settled(userPage);
    const { email, userId } = await h.register(userPage);
    const { adminEmail, adminPassword } = await h.checkpoint("registered", { email, userId });

    const adminBrowser = await h.device();
    const admin = await adminBrowser.open("/admin");
    await adminBrowser.settled(admin);
    await admin.fill("#email", adminEmail);
    await admin.fill("#password", adminPassword);
    await admin.click("#submit");
    await admin.waitForFunction(() => document.body?.dataset.state === "in");
    await admin.fill("#query", email.toUpperCase());
    await admin.click("#search");
    await admin.waitForFunction((id) => document.querySelector(`#user-list li[data-user-id="${id}"]`), userId);
    const found = await admin.evaluate(() => document.getElementById("user-list").dataset.count);
    await admin.click(`#user-list li[data-user-id="${userId}"] button`);
    await admin.waitForFunction(() => document.getElementById("detail")?.dataset.state === "ok");
    const opened = await admin.evaluate(() => ({
      sessions: document.getElementById("d-sessions").dataset.count,
      status: document.getElementById("detail").dataset.status,
    }));
    const firstEvents = await eventTypes(admin);

    const timings = {};
    await userPage.waitForFunction(live);
    // One click only asks: nothing is sent until the confirmation.
    let sent = 0;
    admin.on("request", (r) => { if (new URL(r.url()).pathname === "/v1/admins/users/deactivate") sent++; });
    await admin.click("#toggle-active");
    await admin.waitForFunction(() => document.getElementById("confirm")?.hidden === false);
    const confirm = await admin.evaluate(() => ({ text: document.getElementById("confirm-text").textContent,
      yes: document.getElementById("confirm-yes").textContent, status: document.getElementById("detail").dataset.status }));
    confirm.sentAfterClick = sent;
    await admin.click("#confirm-no");
    confirm.cancelled = await admin.evaluate(() => document.getElementById("confirm").hidden);
    confirm.userState = await userPage.evaluate(() => document.body?.dataset.state);
    let start = Date.now();
    await act(admin, "toggle-active", "inactive");
    confirm.sentAfterConfirm = sent;
    await userPage.waitForFunction(out, null, { timeout: 20_000 });
    timings.deactivate = Date.now() - start;
    await act(admin, "toggle-active", "active");
    await h.login(userPage, email);
    await userPage.waitForFunction(live);

    // The admin's log-in ages past REAUTH_MAX_AGE: ending the sessions asks
    // for the password first, then goes ahead.
    await h.checkpoint("age", { userId });
    await admin.click("#revoke-sessions");
    await admin.click("#confirm-yes");
    await admin.waitForFunction(() => document.getElementById("reauth")?.open);
    const reauth = { methods: await admin.evaluate(() => document.getElementById("reauth").dataset.methods) };
    await admin.fill("#reauth-secret", "Not-the-password-1");
    await admin.click("#reauth-submit");
    await admin.waitForFunction(() => document.getElementById("reauth-error")?.hidden === false);
    reauth.refused = await admin.textContent("#reauth-error");
    await admin.fill("#reauth-secret", adminPassword);
    start = Date.now();
    await admin.click("#reauth-submit");
    await admin.waitForFunction(() => document.getElementById("detail")?.dataset.status === "active"
      && !document.getElementById("detail-result").hidden);
    reauth.closed = await admin.evaluate(() => !document.getElementById("reauth").open);
    await userPage.waitForFunction(out, null, { timeout: 20_000 });
    timings.revokesessions = Date.now() - start;
    await h.login(userPage, email);
    await userPage.waitForFunction(live);

    start = Date.now();
    await act(admin, "toggle-deleted", "deleted");
    await userPage.waitForFunction(out, null, { timeout: 20_000 });
    timings.delete = Date.now() - start;
    await admin.fill("#query", "");
    await admin.selectOption("#status", "deleted");
    await admin.click("#search");
    await admin.waitForFunction((id) => document.querySelector(`#user-list li[data-user-id="${id}"][data-status="deleted"]`), userId);
    await act(admin, "toggle-deleted", "active");
    await h.login(userPage, email);

    // The console fits a desktop and a phone.
    const overflows = () => admin.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    const desktopOverflows = await overflows();
    await admin.setViewportSize({ width: 390, height: 844 });
    const phoneOverflows = await overflows();
    h.check(!desktopOverflows && !phoneOverflows, `the console overflows its viewport (desktop ${desktopOverflows}, phone ${phoneOverflows})`);
    await admin.setViewportSize({ width: 1280, height: 800 });
    fs.mkdirSync(h.artifacts, { recursive: true });
    const shot = path.join(h.artifacts, "admin-desktop.png");
    fs.writeFileSync(`${shot}.${process.pid}.tmp`, await admin.screenshot({ fullPage: true }));
    fs.renameSync(`${shot}.${process.pid}.tmp`, shot);

    h.result("admin", { email, userId, found, ...opened, firstEvents, timings, reauth, confirm, lastEvents: await eventTypes(admin),
      userState: await userPage.evaluate(() => document.body?.dataset.state), screenshot: shot });
  },
};
