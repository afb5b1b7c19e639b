// The admin console's Webhooks section: the admin adds a webhook (its
// secret shown once), a user's registration is delivered to a receiver
// that fails, the console shows the delivery pending with the receiver's
// status, and once the admin's log-in is older than REAUTH_MAX_AGE,
// sending it again asks for the password first, then the console shows it
// delivered.

import fs from "node:fs";
import path from "node:path";

/** The deliveries the console lists: their status, attempts and code. */
function deliveries(page) {
  return page.evaluate(() => [...document.querySelectorAll("#delivery-list li[data-delivery-id]")].map((li) => ({
    id: li.dataset.deliveryId, status: li.dataset.status, attempts: li.dataset.attempts, code: li.dataset.code,
  })));
}

export const scenarios = {
  async webhooks(h) {
    const admin = await h.open("/admin");
    await h.settled(admin);
    const { adminEmail, adminPassword, receiverURL } = await h.checkpoint("start", {});
    await admin.fill("#email", adminEmail);
    await admin.fill("#password", adminPassword);
    await admin.click("#submit");
    await admin.waitForFunction(() => document.body.dataset.state === "in");
    await admin.waitForFunction(() => document.getElementById("webhook-list")?.dataset.count === "0");

    await admin.fill("#webhook-url", receiverURL);
    await admin.fill("#webhook-events", "register, login");
    await admin.fill("#webhook-description", "CRM sync");
    await admin.click("#webhook-create");
    await admin.waitForFunction(() => document.getElementById("webhook-list")?.dataset.count === "1");
    const secret = await admin.textContent("#webhook-secret");
    const webhookId = await admin.evaluate(() => document.querySelector("#webhook-list li[data-webhook-id]").dataset.webhookId);

    // A registration is delivered to the receiver, which answers 500.
    const { userId } = await h.checkpoint("created", { secret, webhookId });
    await admin.click(`#webhook-list li[data-webhook-id="${webhookId}"] button[data-role="deliveries"]`);
    await admin.waitForFunction(() => document.querySelector('#delivery-list li[data-status="pending"][data-code="500"]'),
      null, { timeout: 20_000 });
    const pending = await deliveries(admin);

    // The receiver is mended and the admin's log-in ages: sending it again
    // asks for the password, then goes ahead.
    await h.checkpoint("age", { userId });
    await admin.click('#delivery-list li[data-delivery-id] button[data-role="redeliver"]');
    await admin.waitForFunction(() => document.getElementById("reauth")?.open);
    await admin.fill("#reauth-secret", adminPassword);
    await admin.click("#reauth-submit");
    await admin.waitForFunction(() => !document.getElementById("reauth")?.open);
    await admin.waitForFunction(() => document.querySelector('#delivery-list li[data-status="delivered"]'),
      null, { timeout: 20_000 });
    const delivered = await deliveries(admin);

    fs.mkdirSync(h.artifacts, { recursive: true });
    const shot = path.join(h.artifacts, "admin-webhooks.png");
    fs.writeFileSync(`${shot}.${process.pid}.tmp`, await admin.screenshot({ fullPage: true }));
    fs.renameSync(`${shot}.${process.pid}.tmp`, shot);
    const overflows = await admin.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    await admin.setViewportSize({ width: 390, height: 844 });
    const phoneOverflows = await admin.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    h.check(!overflows && !phoneOverflows, `the console overflows its viewport (desktop ${overflows}, phone ${phoneOverflows})`);
    h.result("webhooks", { webhookId, secret, pending, delivered,
      result: await admin.textContent("#webhooks-result"),
      listed: await admin.textContent(`#webhook-list li[data-webhook-id="${webhookId}"]`), screenshot: shot });
  },
};
