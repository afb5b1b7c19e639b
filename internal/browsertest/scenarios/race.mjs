// Refresh races: the same refresh token must never be presented twice.
// The Go test counts rotations and looks for theft detection in the
// database at each checkpoint; these scenarios count the requests the
// browser sent to /v1/users/refresh.

const LOCK = "actionkit-refresh";

/** Two tabs logged in as one new user, holding the same access token. */
async function twoTabs(h) {
  const a = await h.open();
  await h.settled(a);
  const { userId } = await h.register(a);
  const b = await h.open();
  await b.waitForFunction(() => document.body?.dataset.state === "in");
  const token = await a.evaluate(() => globalThis.actionkit.token);
  await b.waitForFunction((t) => globalThis.actionkit.token === t, token);
  return { a, b, userId };
}

// The functions below run in the pages (page.evaluate serialises them):
// each waits until the local time when (ms), shared by the tabs of one
// browser, so that the tabs act at the same instant.

async function refreshAt(when) {
  await new Promise((r) => setTimeout(r, Math.max(0, when - Date.now())));
  const calledAt = Date.now();
  const token = await globalThis.actionkit.refresh();
  return { token, calledAt, source: globalThis.actionkit.source, obtainedAt: globalThis.actionkit.obtainedAt };
}

async function rawRefreshAt(when) {
  await new Promise((r) => setTimeout(r, Math.max(0, when - Date.now())));
  const r = await fetch("/v1/users/refresh", { method: "POST", credentials: "same-origin" });
  return { status: r.status, error: (await r.json()).error ?? null };
}

export const scenarios = {
  /** With the library: two tabs refreshing at the same instant, then ten
   * refreshes at once in one tab, each end with one request. */
  async race(h) {
    const { a, b, userId } = await twoTabs(h);
    await h.checkpoint("before", { userId });

    // Two tabs at once. The first request is held at the network until the
    // other tab is queued on the lock, the worst moment for it: it then
    // gets the lock right after the cookie was rotated.
    const n0 = h.refreshes.length;
    h.holdRefreshes();
    const when = Date.now() + 150;
    const ra = a.evaluate(refreshAt, when);
    const rb = b.evaluate(refreshAt, when);
    // (Two held requests mean the tabs did not take turns: let them go, and
    // the count below fails.)
    await h.until("one refresh request held while the other tab waits for the lock", async () => {
      const { pending = [] } = await h.locks(a);
      return h.gate.held.length >= 2 || (h.gate.held.length === 1 && pending.some((l) => l.name === LOCK));
    });
    const released = await h.release();
    const [ta, tb] = await Promise.all([ra, rb]);
    const tabs = {
      requests: h.refreshes.length - n0, released,
      sameToken: ta.token === tb.token && ta.obtainedAt === tb.obtainedAt, sources: [ta.source, tb.source].sort(),
      calledApartMs: Math.abs(ta.calledAt - tb.calledAt),
    };
    h.check(tabs.requests === 1, `two tabs sent ${tabs.requests} refresh requests, want 1`);
    h.check(ta.token && tabs.sameToken, "the two tabs ended with different tokens");
    h.result("tabs", tabs);
    await h.checkpoint("after-tabs", { userId });

    // Ten at once in one tab.
    const n1 = h.refreshes.length;
    h.holdRefreshes();
    const burst = a.evaluate(async () => {
      const calls = Array.from({ length: 10 }, () => globalThis.actionkit.refresh());
      globalThis.burstFired = true;
      return { tokens: await Promise.all(calls), obtainedAt: globalThis.actionkit.obtainedAt };
    });
    await a.waitForFunction(() => globalThis.burstFired === true);
    await h.until("the burst's refresh request held", () => h.gate.held.length >= 1);
    await h.release();
    // Tokens issued within one second can be equal strings (iat has second
    // precision), so a token's generation is told by when it was obtained.
    const { tokens, obtainedAt } = await burst;
    await b.waitForFunction((t) => globalThis.actionkit.obtainedAt === t, obtainedAt);
    const reads = await Promise.all([a, b].map((p) => p.evaluate(() => globalThis.actionkit.api("/v1/users/read").then((r) => r.status))));
    const tens = {
      requests: h.refreshes.length - n1, calls: tokens.length,
      distinctTokens: new Set(tokens).size, newToken: obtainedAt > ta.obtainedAt, reads,
    };
    h.check(tens.requests === 1, `ten refreshes in one tab sent ${tens.requests} requests, want 1`);
    h.check(tens.distinctTokens === 1 && tens.newToken, `the ten calls did not share one new token: ${JSON.stringify(tens)}`);
    h.check(reads.every((s) => s === 200), `API calls after the races: ${reads}`);
    h.result("burst", tens);
    await h.checkpoint("after-burst", { userId });
  },

  /** Without the library: two tabs calling the refresh endpoint at the same
   * instant present the same cookie twice, and the server sees theft. */
  async "race-raw"(h) {
    const a = await h.open();
    await h.settled(a);
    const { userId } = await h.register(a);
    await a.goto(h.base + "/health"); // same origin, no client library
    const b = await h.open("/health");
    await h.checkpoint("before", { userId });
    const n0 = h.refreshes.length;
    h.holdRefreshes();
    const when = Date.now() + 150;
    const ra = a.evaluate(rawRefreshAt, when);
    const rb = b.evaluate(rawRefreshAt, when);
    await h.until("both refresh requests held", () => h.gate.held.length === 2);
    await h.release(); // both go at once, carrying the same cookie
    const answers = (await Promise.all([ra, rb])).sort((x, y) => x.status - y.status);
    const data = { requests: h.refreshes.length - n0, statuses: answers.map((x) => x.status), errors: answers.map((x) => x.error) };
    h.check(data.statuses.join() === "200,401", `statuses ${data.statuses}, want 200 and 401`);
    h.result("raw", data);
    await h.checkpoint("after", { userId });
    const c = await h.open();
    data.stateAfter = await h.settled(c);
    h.check(data.stateAfter === "out", `after the theft a new tab is ${data.stateAfter}, want out`);
    h.result("after", { stateAfter: data.stateAfter });
  },
};
