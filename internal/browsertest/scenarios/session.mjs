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
    await page.waitForFunction((e) => document.body?.dataset.state === "in"
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
    await b.waitForFunction(() => document.body?.dataset.state === "in");
    h.check((await refreshCookies(h)).length === 1, "no refresh cookie before the logout");
    await a.click("#logout");
    await a.waitForFunction(() => document.body?.dataset.state === "out");
    await b.waitForFunction(() => document.body?.dataset.state === "out");
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
   * disconnects the tab's socket and makes the tab's calls fail with 401;
   * either ends in one refused refresh and the logged-out form with "your
   * session ended", never an error banner. Three rounds, a new user each:
   * "unforced" leaves the order to chance; "socket-first" holds the
   * profile read the page sends on login at the network until the socket's
   * disconnect has logged the tab out, then lets it get its 401;
   * "read-first" holds what the server sends on the socket (its disconnect)
   * until the held read's 401 and its refresh have logged the tab out. */
  async revoked(h) {
    const reads = await h.requestGate("/v1/users/read");
    const frames = await h.socketGate();
    const page = await h.open();
    await h.settled(page);
    const out = () => document.body?.dataset.state === "out";
    for (const order of ["unforced", "socket-first", "read-first"]) {
      reads.hold = order !== "unforced";
      const { userId } = await h.register(page, `Round ${order}`);
      await page.waitForFunction(() => document.getElementById("feed-status")?.dataset.live === "yes");
      if (reads.hold) await h.until("the profile read held", () => reads.held.length === 1);
      frames.hold = order === "read-first";
      const before = h.refreshes.length;
      await h.checkpoint("logged-in", { userId, order, token: await page.evaluate(() => globalThis.actionkit.token) });
      if (order === "socket-first") {
        await page.waitForFunction(out); // through the socket: the read is still held
        h.check(reads.held.length === 1, "the profile read went through before the socket's disconnect");
        await reads.release();
      } else if (order === "read-first") {
        await h.until("the server's disconnect held", () => frames.held.some((f) => f.close || /^41/.test(String(f.message))));
        h.check((await page.evaluate(() => globalThis.actionkit.loggedIn)) === true, "the tab logged out before the read's 401");
        await reads.release();
        await page.waitForFunction(out); // through the read's 401: the disconnect is still held
        frames.release();
      }
      await page.waitForFunction(out);
      // The profile read has settled: "ended" when its 401 came from the
      // logout-all, "ok" when it was answered before; or an error shows.
      // (A forced round's read always gets a 401.)
      await page.waitForFunction((forced) => {
        const read = document.getElementById("profile").dataset.read;
        return (forced ? read === "ended" || read === "failed" : read !== "pending")
          || document.getElementById("banner").textContent.startsWith("Could not");
      }, order !== "unforced");
      const seen = await page.evaluate(() => ({
        state: document.body?.dataset.state,
        banner: document.getElementById("banner").textContent,
        read: document.getElementById("profile").dataset.read ?? null,
        formShown: document.getElementById("auth-form").checkVisibility(),
      }));
      h.result(`revoked-${order}`, { userId, order, ...seen, refreshes: h.refreshes.length - before });
    }
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
