// Runs one browser scenario of the actionkit web client in headless
// Chromium (Debian's /usr/bin/chromium, never a downloaded browser), driven
// by playwright-core. Started by Go tests (internal/browsertest):
//
//   ACTIONKIT_URL=http://127.0.0.1:PORT node run.mjs <scenario>
//
// It reports on stdout, one JSON object a line:
//   {"type":"result","name":...,"data":{...}}      a fact for the Go test
//   {"type":"checkpoint","name":...,"data":{...}}  then waits for one JSON line
//                                                  on stdin (the Go test's reply)
//   {"type":"log","msg":...}
//   {"type":"done","ms":...} or {"type":"fail","error":...}
//
// Environment: ACTIONKIT_URL (required), CHROMIUM (default /usr/bin/chromium),
// ACTIONKIT_ARTIFACTS (where screenshots go), ACTIONKIT_DOCS_SCREENSHOT (also
// write the screenshot docs/client.md shows there).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { chromium } from "playwright-core";
import { scenarios as sessionScenarios } from "./scenarios/session.mjs";
import { scenarios as raceScenarios } from "./scenarios/race.mjs";
import { scenarios as shotScenarios } from "./scenarios/shots.mjs";
import { scenarios as accountScenarios } from "./scenarios/account.mjs";
import { scenarios as adminScenarios } from "./scenarios/admin.mjs";
import { scenarios as outageScenarios } from "./scenarios/outage.mjs";
import { scenarios as twoFactorScenarios } from "./scenarios/twofactor.mjs";
import { scenarios as passkeyScenarios } from "./scenarios/passkeys.mjs";
import { scenarios as oidcScenarios } from "./scenarios/oidc.mjs";
import { scenarios as staticScenarios } from "./scenarios/static.mjs";
import { scenarios as webhookScenarios } from "./scenarios/webhooks.mjs";
import { scenarios as pageScenarios } from "./scenarios/pages.mjs";
import { scenarios as selfServiceScenarios } from "./scenarios/selfservice.mjs";
import { scenarios as consentScenarios } from "./scenarios/consent.mjs";

const scenarios = { ...sessionScenarios, ...raceScenarios, ...shotScenarios, ...accountScenarios, ...adminScenarios, ...outageScenarios,
  ...twoFactorScenarios, ...passkeyScenarios, ...oidcScenarios, ...staticScenarios, ...webhookScenarios, ...pageScenarios, ...selfServiceScenarios,
  ...consentScenarios };

/** The flags go-svc.md gives for this machine's closed network. */
const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

const emit = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

const replies = (() => {
  const rl = readline.createInterface({ input: process.stdin });
  const it = rl[Symbol.asyncIterator]();
  return async () => {
    const { value, done } = await it.next();
    if (done) throw new Error("stdin closed before the checkpoint was answered");
    return JSON.parse(value);
  };
})();

/** launch starts Chromium with a profile of its own (a browser, as a
 * person's device has one) and returns its context and profile folder. */
async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "actionkit-chromium-"));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  return { ctx, profile };
}

/** Harness is what a scenario gets: the browser context and helpers. */
class Harness {
  constructor(base, ctx, artifacts) {
    this.base = base;
    this.ctx = ctx;
    this.artifacts = artifacts;
    this.problems = [];
    /** The other browsers the scenario opened with device(). */
    this.devices = [];
    /** Requests to /v1/users/refresh, in the order the browser sent them. */
    this.refreshes = [];
    this.gate = { hold: false, held: [] };
    ctx.on("request", (req) => {
      if (new URL(req.url()).pathname === "/v1/users/refresh") this.refreshes.push({ at: Date.now() });
    });
  }

  /** Installs the route that can hold refresh requests (see holdRefreshes). */
  async init() {
    await this.ctx.route("**/v1/users/refresh", (route) => {
      if (this.gate.hold) this.gate.held.push(route);
      else route.continue();
    });
  }

  /** From now on refresh requests wait in the gate until release. */
  holdRefreshes() {
    this.gate.hold = true;
  }

  /** Lets the held refresh requests go, all at once, and stops holding. */
  async release() {
    this.gate.hold = false;
    const held = this.gate.held.splice(0);
    await Promise.all(held.map((r) => r.continue()));
    return held.length;
  }

  /** Returns a gate for the requests to pathname: while gate.hold is
   * set they wait at the network, until gate.release() lets them go. */
  async requestGate(pathname) {
    const gate = {
      hold: false,
      held: [],
      async release() {
        gate.hold = false;
        const held = gate.held.splice(0);
        await Promise.all(held.map((r) => r.continue()));
        return held.length;
      },
    };
    await this.ctx.route(`**${pathname}`, (route) => {
      if (gate.hold) gate.held.push(route);
      else route.continue();
    });
    return gate;
  }

  /** Routes the socket.io WebSockets of the context through a gate for
   * what the server sends: while gate.hold is set, its messages and its
   * closing wait (in gate.held: {message} or {close}) until gate.release()
   * delivers them in order. What the page sends goes straight through.
   * Call it before the page opens a socket. */
  async socketGate() {
    const gate = {
      hold: false,
      held: [],
      release() {
        gate.hold = false;
        for (const deliver of gate.held.splice(0).map((m) => m.deliver)) deliver();
      },
    };
    const through = (entry) => (gate.hold ? gate.held.push(entry) : entry.deliver());
    await this.ctx.routeWebSocket(/\/socket\.io\//, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((message) => through({ message, deliver: () => ws.send(message) }));
      server.onClose((code, reason) => through({ close: code ?? true, deliver: () => ws.close({ code, reason }) }));
    });
    return gate;
  }

  /** Opens path in a new tab (the first tab is reused) and records any
   * Content-Security-Policy violation or uncaught error. */
  async open(pathname = "/demo") {
    const blank = this.ctx.pages().find((p) => p.url() === "about:blank" && !p.__used);
    const page = blank ?? (await this.ctx.newPage());
    page.__used = true;
    page.on("pageerror", (err) => this.problems.push(`page error: ${err.message}`));
    page.__log = [];
    page.on("console", (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) this.problems.push(`CSP: ${m.text()}`);
      page.__log = [...page.__log.slice(-19), `${m.type()}: ${m.text()}`];
    });
    await page.goto(this.base + pathname);
    return page;
  }

  /** Opens another browser, with a profile of its own: another device of a
   * person, or another person. It has the same helpers; its problems are
   * this harness's, and it closes when the scenario ends. */
  async device() {
    const { ctx, profile } = await launch();
    const other = new Harness(this.base, ctx, this.artifacts);
    other.problems = this.problems;
    await other.init();
    this.devices.push({ ctx, profile });
    return other;
  }

  /** Logs in through the demo's form and waits until the page shows the
   * profile. */
  async login(page, email, password = "Correct-Horse-42-battery") {
    await page.click("#mode-login");
    await page.fill("#email", email);
    await page.fill("#password", password);
    await page.click("#submit");
    await page.waitForFunction((e) => document.body.dataset.state === "in"
      && document.getElementById("profile-email").textContent === e, email);
  }

  /** Waits for the demo page to leave its loading state, and returns it. */
  async settled(page) {
    await page.waitForFunction(() => document.body.dataset.state !== "loading");
    return page.evaluate(() => document.body.dataset.state);
  }

  /** Registers a new user through the demo's form and waits until the page
   * shows the profile. */
  async register(page, firstName = "Ada") {
    const email = `browser-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
    await page.click("#mode-register");
    await page.fill("#first-name", firstName);
    await page.fill("#email", email);
    await page.fill("#password", "Correct-Horse-42-battery");
    await page.click("#submit");
    await page.waitForFunction((e) => document.getElementById("profile-email").textContent === e, email);
    const userId = await page.evaluate(() => globalThis.actionkit.user.id);
    return { email, userId };
  }

  /** Polls cond (a Node function) every 10 ms until it holds; the error
   * of a timeout tells how many refresh requests were held. */
  async until(what, cond, timeout = 10_000) {
    const deadline = Date.now() + timeout;
    while (!(await cond())) {
      if (Date.now() > deadline) {
        throw new Error(`not within ${timeout} ms: ${what} (refresh requests held: ${this.gate.held.length}, sent: ${this.refreshes.length})`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** The Web Locks of the origin, as seen from page. */
  locks(page) {
    return page.evaluate(() => navigator.locks.query());
  }

  check(ok, message) {
    if (!ok) throw new Error(message);
  }

  log(msg) {
    emit({ type: "log", msg });
  }

  result(name, data) {
    emit({ type: "result", name, data });
  }

  async checkpoint(name, data) {
    emit({ type: "checkpoint", name, data });
    return replies();
  }
}

/** describePages reports what each open tab shows, to explain a failure. */
async function describePages(ctx) {
  const out = [];
  for (const page of ctx.pages()) {
    const state = await page.evaluate(() => {
      const feed = document.getElementById("feed-status");
      const ak = globalThis.actionkit;
      return {
        state: document.body?.dataset.state,
        feed: feed ? { text: feed.textContent, ...feed.dataset } : null,
        loggedIn: ak?.loggedIn ?? null,
      };
    }).catch((err) => ({ error: String(err) }));
    out.push({ url: page.url(), ...state, console: page.__log ?? [] });
  }
  return out;
}

async function main() {
  const [name] = process.argv.slice(2);
  const scenario = scenarios[name];
  if (!scenario) throw new Error(`unknown scenario ${name}; have ${Object.keys(scenarios).join(", ")}`);
  const base = process.env.ACTIONKIT_URL;
  if (!base) throw new Error("ACTIONKIT_URL is not set");
  const artifacts = process.env.ACTIONKIT_ARTIFACTS || fs.mkdtempSync(path.join(os.tmpdir(), "actionkit-artifacts-"));
  const started = Date.now();
  const { ctx, profile } = await launch();
  const h = new Harness(base.replace(/\/+$/, ""), ctx, artifacts);
  let failure = null;
  try {
    await h.init();
    await scenario(h);
    if (h.problems.length) throw new Error(h.problems.join("\n"));
  } catch (err) {
    failure = err;
    // Report before closing the browser: evaluations still pending in its
    // pages reject when it closes.
    const pages = await describePages(ctx);
    for (const d of h.devices) pages.push(...(await describePages(d.ctx)));
    emit({ type: "fail", error: String(err?.stack ?? err), pages });
    process.on("unhandledRejection", () => {});
  } finally {
    for (const b of [{ ctx, profile }, ...h.devices]) {
      await b.ctx.close().catch(() => {});
      fs.rmSync(b.profile, { recursive: true, force: true, maxRetries: 5 });
    }
  }
  if (failure) process.exit(1);
  emit({ type: "done", ms: Date.now() - started });
}

main().then(
  () => process.exit(0),
  (err) => {
    emit({ type: "fail", error: String(err?.stack ?? err) });
    process.exit(1);
  },
);
