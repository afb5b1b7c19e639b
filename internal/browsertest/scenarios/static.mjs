// The pages when one of their scripts cannot be fetched (answered 503 by
// the browser's own interception): each shows its failure message with a
// retry instead of "Restoring your session…" for ever, and the retry,
// once the script can be fetched again, loads the working page. A page
// whose failure script is refused too shows the same message after its
// 20 seconds of loading, from the stylesheet alone.

/** What the page shows of its load failure. */
function failure(page) {
  return page.evaluate(() => {
    const box = document.getElementById("load-failed");
    return {
      state: document.body?.dataset.state,
      failedScript: document.body.dataset.failedScript ?? "",
      visible: box.checkVisibility({ visibilityProperty: true }),
      who: document.getElementById("who").textContent,
      retry: document.getElementById("load-retry").textContent,
    };
  });
}

/** Makes the browser answer 503 for the scripts at paths until the
 * returned function is called; counts the refusals in denied. */
async function deny(h, paths, denied) {
  const handlers = paths.map((p) => [h.base + p, (route) => {
    denied[p] = (denied[p] ?? 0) + 1;
    return route.fulfill({ status: 503, contentType: "application/json", body: '{"status":503,"error":"SERVICE_UNAVAILABLE"}' });
  }]);
  for (const [url, fn] of handlers) await h.ctx.route(url, fn);
  return async () => {
    for (const [url, fn] of handlers) await h.ctx.unroute(url, fn);
  };
}

/** Clicks the retry and waits for the page it loads. */
async function retry(page) {
  await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.click("#load-retry")]);
}

export const scenarios = {
  async scriptfailure(h) {
    const out = {};
    // A module the entry imports (the demo's reauth.js, the demo's view.js
    // that the console imports), then the console's entry itself.
    for (const [name, pathname, script] of [
      ["demo", "/demo", "/demo/reauth.js"],
      ["adminImport", "/admin", "/demo/view.js"],
      ["adminEntry", "/admin", "/admin/admin.js"],
    ]) {
      const denied = {};
      const allow = await deny(h, [script], denied);
      const page = await h.open(pathname);
      await page.waitForFunction(() => document.body?.dataset.state === "failed");
      const shown = await failure(page);
      await allow();
      await retry(page);
      const after = await h.settled(page);
      out[name] = { ...shown, denied: denied[script] ?? 0, after, hiddenAfter: !(await failure(page)).visible };
      await page.close();
    }
    // Without load.js the stylesheet shows the message after 20 s.
    const denied = {};
    const allow = await deny(h, ["/demo/load.js", "/demo/demo.js"], denied);
    const page = await h.open("/demo");
    const start = Date.now();
    await page.waitForFunction(() => document.getElementById("load-failed").checkVisibility({ visibilityProperty: true }),
      null, { timeout: 40_000 });
    out.withoutLoader = { ...(await failure(page)), afterMs: Date.now() - start, denied };
    await allow();
    await retry(page);
    out.withoutLoader.after = await h.settled(page);
    h.result("scriptfailure", out);
  },
};
