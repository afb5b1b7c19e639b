// Scenarios of the session as a person sees it: the cookie, a reload, a
// logout, and the live feed across two tabs.

/** What the page keeps in Web Storage and IndexedDB, for the tests to
 * show that no token is kept there. */
function storageOf(page) {
  return page.evaluate(async () => ({
    local: { ...localStorage },
    session: { ...sessionStorage },
    indexedDB: (await indexedDB.databases()).map((d) => d.name),
  }));
}

/** Fails unless storage holds neither token nor anything like a JWT. */
function checkNoToken(h, storage, token) {
  const dump = JSON.stringify(storage);
  h.check(token && !dump.includes(token), "the access token is in Web Storage");
  h.check(!/eyJ[A-Za-z0-9_-]{8,}/.test(dump), `something like a JWT is in storage: ${dump}`);
  h.check(!/[0-9a-f]{64}/.test(dump), `something like a refresh token is in storage: ${dump}`);
}

function refreshCookies(h) {
  return h.ctx.cookies(h.base).then((all) => all.filter((c) => c.name === "jwt-user-refresh"));
}

export const scenarios = {
  /** The refresh cookie is httpOnly and SameSite=Strict: the browser has
   * it, the page's script cannot see it. */
  async cookie(h) {
    const page = await h.open();
    h.check((await h.settled(page)) === "out", "a new browser should start logged out");
    const { userId } = await h.register(page);
    const documentCookie = await page.evaluate(() => document.cookie);
    const [c] = await refreshCookies(h);
    h.check(c, "the browser context has no jwt-user-refresh cookie");
    h.check(!documentCookie.includes("jwt-user-refresh"), `document.cookie shows it: ${documentCookie}`);
    h.check(c.httpOnly === true && c.sameSite === "Strict" && c.path === "/", `cookie attributes: ${JSON.stringify(c)}`);
    const storage = await storageOf(page);
    checkNoToken(h, storage, await page.evaluate(() => globalThis.actionkit.token));
    h.result("cookie", {
      userId, documentCookie, httpOnly: c.httpOnly, sameSite: c.sameSite, path: c.path,
      secure: c.secure, valueLength: c.value.length, storage,
    });
  },

  /** A reload keeps the user logged in, through the cookie alone. */
  async reload(h) {
    const page = await h.open();
    await h.settled(page);
    const { userId, email } = await h.register(page);
    const before = h.refreshes.length;
    await page.reload();
    await page.waitForFunction((e) => document.body.dataset.state === "in"
      && document.getElementById("profile-email").textContent === e, email);
    const source = await page.evaluate(() => globalThis.actionkit.source);
    const storage = await storageOf(page);
    checkNoToken(h, storage, await page.evaluate(() => globalThis.actionkit.token));
    const read = await page.evaluate(() => globalThis.actionkit.api("/v1/users/read").then((b) => b.user.id));
    h.check(read === userId, `read after the reload gave ${read}, want ${userId}`);
    h.result("reload", { userId, source, refreshesOnReload: h.refreshes.length - before, storage });
  },

  /** Logout clears the cookie; the other tab logs out too; a reload lands
   * logged out. */
  async logout(h) {
    const a = await h.open();
    await h.settled(a);
    const { userId } = await h.register(a);
    const b = await h.open();
    await b.waitForFunction(() => document.body.dataset.state === "in");
    h.check((await refreshCookies(h)).length === 1, "no refresh cookie before the logout");
    await a.click("#logout");
    await a.waitForFunction(() => document.body.dataset.state === "out");
    await b.waitForFunction(() => document.body.dataset.state === "out");
    const otherTab = await b.evaluate(() => ({ token: globalThis.actionkit.token, banner: document.getElementById("banner").textContent }));
    const cookiesAfter = (await refreshCookies(h)).length;
    await a.reload();
    const stateAfterReload = await h.settled(a);
    h.check(cookiesAfter === 0, `the refresh cookie survived the logout (${cookiesAfter})`);
    h.check(otherTab.token === null, "the other tab kept its token");
    h.check(stateAfterReload === "out", `after a reload the page is ${stateAfterReload}`);
    h.result("logout", { userId, cookiesAfter, otherTab: otherTab.banner, stateAfterReload });
  },

  /** A logout-all from another device (the Go test, at the checkpoint)
   * disconnects the tab's socket; the tab tries one refresh, which the
   * server refuses, and logs out. */
  async revoked(h) {
    const page = await h.open();
    await h.settled(page);
    const { userId } = await h.register(page);
    await page.waitForFunction(() => document.getElementById("feed-status").dataset.live === "yes");
    const before = h.refreshes.length;
    await h.checkpoint("logged-in", { userId, token: await page.evaluate(() => globalThis.actionkit.token) });
    await page.waitForFunction(() => document.body.dataset.state === "out");
    const banner = await page.evaluate(() => document.getElementById("banner").textContent);
    h.result("revoked", { userId, banner, refreshes: h.refreshes.length - before });
  },

  /** A post published in one tab shows up live in the other tab's feed. */
  async feed(h) {
    const a = await h.open();
    await h.settled(a);
    const { userId } = await h.register(a);
    const b = await h.open();
    let polls = 0; // the socket connects over websocket first: no long-polling request
    b.on("request", (r) => { if (r.url().includes("/socket.io/") && r.url().includes("transport=polling")) polls++; });
    const live = () => document.getElementById("feed-status").dataset.transport === "websocket"
      && document.getElementById("feed-status").dataset.live === "yes";
    await b.waitForFunction(live);
    await a.waitForFunction(live);
    const title = `Live from tab A ${Date.now()}`;
    await a.fill("#post-title", title);
    await a.click("#publish-now");
    const shown = (t) => [...document.querySelectorAll("#feed-list li strong")].some((s) => s.textContent === t);
    await b.waitForFunction(shown, title);
    await a.waitForFunction(shown, title);
    const item = await b.evaluate((t) => {
      const li = [...document.querySelectorAll("#feed-list li")].find((x) => x.querySelector("strong").textContent === t);
      return { postId: li.dataset.postId, transport: document.getElementById("feed-status").dataset.transport };
    }, title);
    h.check(polls === 0, `tab B made ${polls} socket.io polling requests; websocket comes first`);
    h.result("feed", { userId, title, polls, ...item });
  },
};
