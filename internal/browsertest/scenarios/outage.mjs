// A database outage seen from the page: a tab that opens while PostgreSQL
// is down gets the token from the logged-in tab, but the server cannot
// check it, so the socket handshake is refused with SERVICE_UNAVAILABLE;
// once PostgreSQL is back, the tab's feed connects by itself.

const live = () => document.getElementById("feed-status").dataset.live === "yes";

export const scenarios = {
  async feedoutage(h) {
    const first = await h.open("/demo");
    await h.settled(first);
    const { email, userId } = await h.register(first);
    await first.waitForFunction(live);
    await h.checkpoint("stop", { email }); // the test stops PostgreSQL

    const second = await h.open("/demo");
    await second.waitForFunction(() => document.getElementById("feed-status")?.dataset.refused === "SERVICE_UNAVAILABLE");
    const refused = await second.evaluate(() => document.getElementById("feed-status").textContent);
    await h.checkpoint("start", {}); // the test starts PostgreSQL again
    const start = Date.now();
    await second.waitForFunction(live, null, { timeout: 30_000 });
    const liveAfterMs = Date.now() - start;
    h.result("feedoutage", {
      email, userId, refused, liveAfterMs,
      firstLive: await first.evaluate(live),
      refusedLeft: await second.evaluate(() => document.getElementById("feed-status").dataset.refused ?? ""),
    });
  },
};
