// Screenshots of the demo page, desktop and phone-sized, as test artefacts
// (and, when ACTIONKIT_DOCS_SCREENSHOT names a file, the one docs/client.md shows).

import fs from "node:fs";
import path from "node:path";

const POSTS = ["Shipping the web client", "Refresh tokens, rotated exactly once", "Hello from the second tab"];

/** Whether the page is wider than its viewport (a layout that overflows). */
function overflows(page) {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** Takes a screenshot of page into file through a temporary file and a
 * rename, so that runs sharing the artefacts directory (two test processes
 * on one machine) never read each other's half-written file. */
async function shoot(page, file, options = {}) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, await page.screenshot(options));
  fs.renameSync(tmp, file);
}

export const scenarios = {
  async screenshots(h) {
    const page = await h.open();
    await h.settled(page);
    await page.click("#mode-register");
    await page.fill("#first-name", "Ada");
    await page.fill("#email", "ada@example.com");
    await page.fill("#password", "Correct-Horse-42-battery");
    await page.click("#submit");
    await page.waitForFunction(() => document.getElementById("feed-status")?.dataset.live === "yes");
    for (const title of POSTS) {
      await page.fill("#post-title", title);
      await page.click("#publish-now");
      await page.waitForFunction((t) => [...document.querySelectorAll("#feed-list strong")].some((s) => s.textContent === t), title);
    }
    await page.fill("#post-title", "Notes for Friday");
    await page.click("#save-draft");
    await page.waitForSelector("#drafts li[data-post-id]");
    // Show a refresh in the session card, as a person would see one.
    await page.click("#refresh-now");
    await page.waitForFunction(() => document.getElementById("token-refreshed")?.dataset.source === "refresh");
    await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
    await page.mouse.move(0, 0); // no hover highlight in the pictures

    fs.mkdirSync(h.artifacts, { recursive: true });
    const desktop = path.join(h.artifacts, "demo-desktop.png");
    await shoot(page, desktop);
    const docs = process.env.ACTIONKIT_DOCS_SCREENSHOT;
    if (docs) {
      fs.mkdirSync(path.dirname(docs), { recursive: true });
      await shoot(page, docs, { fullPage: true });
    }
    const desktopOverflows = await overflows(page);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    const phone = path.join(h.artifacts, "demo-phone.png");
    await shoot(page, phone, { fullPage: true });
    const phoneOverflows = await overflows(page);
    h.check(!desktopOverflows && !phoneOverflows, `the page overflows its viewport (desktop ${desktopOverflows}, phone ${phoneOverflows})`);

    const out = await h.open();
    await out.evaluate(() => globalThis.actionkit.logout());
    await out.waitForFunction(() => document.body?.dataset.state === "out");
    const login = path.join(h.artifacts, "demo-login-phone.png");
    await out.setViewportSize({ width: 390, height: 844 });
    await shoot(out, login);
    h.result("screenshots", { desktop, phone, login, docs: docs ?? "", desktopOverflows, phoneOverflows });
  },
};
