// The demo page as a person meets it (issue 33): errors once and next to
// their field, in words, with the request id behind a toggle; messages
// that no longer apply cleared; a busy button while a slow log-in goes;
// one message for a deactivated account; sessions in words and relative
// times; the show-password toggle, password rules, autocomplete and hidden
// usernames; tabs with arrow keys, a skip link; and the account's sections
// apart from the posts and tokens demo.

const out = () => document.body?.dataset.state === "out";
const inside = () => document.body?.dataset.state === "in";
const WEAK = "weakpass";

/** The visible text of the alerts and field errors of page. */
function visibleMessages(page) {
  return page.evaluate(() => [...document.querySelectorAll("[role=alert], .field-error")]
    .filter((n) => n.checkVisibility() && n.innerText.trim() !== "").map((n) => ({ id: n.id, text: n.innerText.trim() })));
}

/** What the input #id shows of its error. */
function fieldState(page, id) {
  return page.evaluate((i) => {
    const input = document.getElementById(i);
    const err = document.getElementById(`${i}-field-error`);
    return { invalid: input.getAttribute("aria-invalid"), describedBy: input.getAttribute("aria-describedby") ?? "",
      error: err?.checkVisibility() ? err.textContent : "" };
  }, id);
}

export const scenarios = {
  async pages(h) {
    const page = await h.open();
    await h.settled(page);
    const res = {};

    // 10. The skip link comes first, and the tabs answer the arrow keys.
    await page.keyboard.press("Tab");
    res.skip = await page.evaluate(() => ({ focused: document.activeElement?.className, href: document.activeElement?.getAttribute("href") }));
    await page.keyboard.press("Enter");
    res.skip.landed = await page.evaluate(() => document.activeElement?.id);
    await page.focus("#mode-login");
    await page.keyboard.press("ArrowRight");
    res.tabs = await page.evaluate(() => ({
      focused: document.activeElement?.id,
      selected: document.getElementById("mode-register").getAttribute("aria-selected"),
      tabindex: [document.getElementById("mode-login").tabIndex, document.getElementById("mode-register").tabIndex],
      panel: document.getElementById("auth-form").getAttribute("role"),
      labelledBy: document.getElementById("auth-form").getAttribute("aria-labelledby"),
      mode: document.getElementById("auth-form").dataset.mode,
      rule: document.getElementById("register-rule").checkVisibility() ? document.getElementById("register-rule").textContent : "",
    }));
    await page.keyboard.press("ArrowLeft");
    res.tabs.back = await page.evaluate(() => document.getElementById("auth-form").dataset.mode);
    await page.keyboard.press("ArrowRight");

    // 1. A weak password at register: once, under its field, in words.
    const email = `pages-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
    await page.fill("#first-name", "Ada");
    await page.fill("#email", email);
    await page.fill("#password", WEAK);
    await page.click("#submit");
    await page.waitForFunction(() => document.getElementById("password-field-error"));
    res.weak = { field: await fieldState(page, "password"), messages: await visibleMessages(page) };

    // 8. The show-password toggle.
    await page.click("#password + .show-password");
    res.toggle = await page.evaluate(() => ({ type: document.getElementById("password").type,
      pressed: document.querySelector("#password + .show-password").getAttribute("aria-pressed") }));
    await page.click("#password + .show-password");

    // 4. A slow registration shows that it is under way, without the old error.
    const gate = await h.requestGate("/v1/users/register");
    gate.hold = true;
    await page.fill("#password", "Correct-Horse-42-battery");
    await page.click("#submit");
    await h.until("the registration held", () => gate.held.length === 1);
    res.busy = await page.evaluate(() => ({
      label: document.getElementById("submit").textContent,
      ariaBusy: document.getElementById("submit").getAttribute("aria-busy"),
      disabled: document.getElementById("submit").disabled,
      oldError: document.getElementById("password-field-error")?.checkVisibility() ?? false,
    }));
    await gate.release();
    await page.waitForFunction((e) => document.getElementById("profile-email").textContent === e, email);
    const userId = await page.evaluate(() => globalThis.actionkit.user.id);
    res.busy.after = await page.evaluate(() => document.getElementById("submit").getAttribute("aria-busy"));

    // 11. The account's own place, and the demo beside it.
    res.layout = await page.evaluate(() => {
      const inAccount = ["profile", "profile-edit", "email-change", "password-card", "two-factor", "passkeys", "devices",
        "activity", "export", "delete"].filter((id) => document.getElementById("account").contains(document.getElementById(id)));
      const inDemo = ["feed", "compose", "session"].filter((id) => document.getElementById("demo-area").contains(document.getElementById(id)));
      const sections = [...document.querySelectorAll("#account > section.group > h2")].map((h) => h.textContent);
      const a = document.getElementById("account").getBoundingClientRect();
      const d = document.getElementById("demo-area").getBoundingClientRect();
      return { inAccount, inDemo, sections, beside: d.left >= a.right, nav: document.querySelectorAll(".account-nav a").length,
        connectedNone: document.querySelector(".connected-none").checkVisibility() };
    });

    // 7. Sessions in words, with relative times and the exact one in a title.
    await page.waitForFunction(() => document.getElementById("device-list")?.dataset.count === "1");
    res.session = await page.evaluate(() => {
      const li = document.querySelector("#device-list li");
      const time = li.querySelector("time");
      return { name: li.querySelector(".device-name").firstChild.textContent, text: li.innerText,
        time: time?.textContent, title: time?.title ?? "", datetime: time?.getAttribute("datetime") ?? "" };
    });
    // Activity: the user's own security log.
    await page.waitForFunction(() => document.getElementById("activity")?.dataset.state === "ok");
    res.activity = await page.evaluate(() => [...document.querySelectorAll("#activity-list li")].map((li) => ({ type: li.dataset.type, text: li.querySelector("strong").textContent })));

    // 8. Hidden usernames tie the password forms to the account.
    res.usernames = await page.evaluate(() => Object.fromEntries(["password-username", "reauth-username"].map((id) => {
      const n = document.getElementById(id);
      return [id, { value: n.value, autocomplete: n.autocomplete }];
    })));
    res.autocomplete = await page.evaluate(() => Object.fromEntries(["current-password", "new-password", "reset-password"]
      .map((id) => [id, document.getElementById(id).autocomplete])));

    // Deleting the account asks in the page first: one click sends nothing.
    let deletes = 0;
    page.on("request", (r) => { if (new URL(r.url()).pathname === "/v1/users/delete") deletes++; });
    await page.click("#delete-open");
    res.deleteAsk = await page.evaluate(() => ({ form: document.getElementById("delete-form").checkVisibility(),
      focused: document.activeElement?.id }));
    await page.click("#delete-cancel");
    res.deleteAsk.closed = await page.evaluate(() => !document.getElementById("delete-form").checkVisibility());
    res.deleteAsk.sent = deletes;
    res.deleteAsk.state = await page.evaluate(() => document.body.dataset.state);

    // 1. The change form: the new password's reason under it, never "newPassword".
    await page.fill("#current-password", "Correct-Horse-42-battery");
    await page.fill("#new-password", WEAK);
    await page.click("#password-submit");
    await page.waitForFunction(() => document.getElementById("new-password-field-error"));
    res.change = { field: await fieldState(page, "new-password"), messages: await visibleMessages(page) };

    // 2. "You logged out." goes once a later log-in begins; the link card
    // of a bad reset link goes once the person logs in.
    await page.click("#logout");
    await page.waitForFunction(out);
    res.banner = { before: await page.evaluate(() => document.getElementById("banner").checkVisibility() && document.getElementById("banner").textContent) };
    await page.goto(`${h.base}/demo#reset=${"0".repeat(64)}`);
    await page.waitForFunction(() => document.getElementById("reset-form")?.hidden === false);
    await page.fill("#reset-password", "Another-Password-88");
    await page.click("#reset-submit");
    await page.waitForFunction(() => document.getElementById("link-result")?.dataset.state === "failed");
    res.linkCard = await page.evaluate(() => {
      const link = document.getElementById("link").getBoundingClientRect();
      const main = document.getElementById("main");
      const style = getComputedStyle(main);
      const inner = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const auth = document.getElementById("auth").getBoundingClientRect();
      return { width: link.width, inner, above: link.bottom <= auth.top, text: document.getElementById("link-result").textContent };
    });
    // A wrong password: the message in words, the request id behind "Details".
    await page.click("#mode-login");
    await page.fill("#email", email);
    await page.fill("#password", "Not-the-password-1");
    await page.click("#submit");
    await page.waitForFunction(() => document.getElementById("auth-error")?.hidden === false);
    res.wrong = await page.evaluate(() => {
      const node = document.getElementById("auth-error");
      const details = node.querySelector("details");
      return { text: node.innerText, open: details?.open ?? null, details: details?.textContent ?? "" };
    });
    await page.click("#auth-error summary");
    res.wrong.opened = await page.evaluate(() => document.getElementById("auth-error").innerText);
    await h.login(page, email);
    res.afterLogin = await page.evaluate(() => ({
      banner: document.getElementById("banner").checkVisibility(),
      link: document.getElementById("link").checkVisibility(),
      authError: document.getElementById("auth-error").checkVisibility(),
    }));

    // 5. Deactivated meanwhile: one message that says what happened.
    await page.waitForFunction(() => document.getElementById("feed-status")?.dataset.live === "yes");
    await h.checkpoint("deactivate", { email, userId });
    await page.waitForFunction(out, null, { timeout: 20_000 });
    await page.fill("#email", email);
    await page.fill("#password", "Correct-Horse-42-battery");
    await page.click("#submit");
    await page.waitForFunction(() => document.getElementById("auth-error")?.hidden === false);
    res.deactivated = await visibleMessages(page);

    h.result("pages", { email, userId, ...res });
  },
};
