// actionkit web client: the access token of one tab, kept in memory only,
// and the refresh protocol that keeps the tabs of an origin from ever
// presenting one refresh token twice.
//
// The refresh token lives in the httpOnly cookie jwt-user-refresh, shared
// by every tab, and the server rotates it on each use with no grace period:
// two tabs refreshing at once would present the same token twice, and the
// second would be taken for theft. So, per origin:
//
// 1. One refresh at a time: a refresh runs inside the Web Lock
//    "actionkit-refresh" (navigator.locks), which every tab requests.
// 2. One refresh per tab: calls made while a refresh is in flight in the
//    same tab share its promise.
// 3. The holder hands its result to the other tabs on the BroadcastChannel
//    "actionkit-session" before it releases the lock: the new token, or
//    "logout" when the session is over, or "failed".
// 4. A tab that gets the lock re-checks before it refreshes: every change of
//    its token (its own or a peer's) bumps a local epoch; if the epoch moved
//    since the refresh was asked for, the tab already has what it needs. If
//    it had to wait for the lock (someone else was refreshing) and nothing
//    has arrived yet, the lock grant may have overtaken the holder's
//    message, so it waits for that message (up to PEER_WAIT_MS) instead of
//    refreshing with the cookie the holder has just rotated.
// 5. A tab with no token (a page load) first asks the tabs that hold one
//    ("hello"), when the shared lock "actionkit-refresh:token" shows there
//    are any, and uses the cookie only when none answers.

/** A token this close to its expiry is refreshed before it is used. */
const SKEW_MS = 5_000;
/** How long a tab that waited for the lock waits for the holder's token. */
const PEER_WAIT_MS = 2_000;
/** How long a tab with no token waits for a peer's answer to "hello". */
const HELLO_WAIT_MS = 500;
const NOT_GRANTED = Symbol("not granted");

/**
 * Decodes the claims of a JWT without verifying them (the server does).
 * @param {string} token
 * @returns {{sub?: string, exp?: number, iat?: number, aud?: string, type?: string}}
 */
export function decodeClaims(token) {
  try {
    const b64 = String(token).split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  } catch {
    return {};
  }
}

/** Lifetime of a token in milliseconds, from its own iat and exp, so that
 * a browser clock that is off does not matter. */
function lifetimeOf(token) {
  const { iat, exp } = decodeClaims(token);
  return Number.isFinite(iat) && Number.isFinite(exp) && exp > iat ? (exp - iat) * 1000 : 60_000;
}

/**
 * Session keeps one tab's access token and refreshes it in concert with the
 * other tabs of the origin. ActionkitClient builds one; it is not meant to
 * be used on its own.
 */
export class Session {
  #token = null;
  #user = null;
  #obtainedAt = 0; // Date.now() when the token was obtained, in whichever tab
  #expiresAt = 0;
  #source = null;
  #epoch = 0;
  #changed = new EventTarget(); // "change" on every epoch bump, "failed" from peers
  #inflight = null;
  #chain = Promise.resolve(); // the lock when the Web Locks API is missing
  #timer = 0;
  #channel = null;
  #presence = null;
  #opts;
  #onVisible = () => {
    if (document.visibilityState === "visible" && this.#token && this.#expiresAt - Date.now() < this.#margin()) {
      this.refresh(this.#token).catch(() => {});
    }
  };

  /**
   * @param {object} opts
   * @param {() => Promise<{token: string, user: object}>} opts.fetchRefresh
   *   sends the refresh request; rejects with an error whose status is 401
   *   when the session is over.
   * @param {(type: string, detail: object) => void} opts.notify
   *   reports "token", "login", "logout" and "error".
   * @param {string} opts.lockName
   * @param {string} opts.channelName
   * @param {number} opts.margin refresh this many ms before expiry (at most
   *   a fifth of the token's lifetime).
   */
  constructor(opts) {
    this.#opts = opts;
    if (typeof BroadcastChannel === "function") {
      this.#channel = new BroadcastChannel(opts.channelName);
      this.#channel.onmessage = (e) => this.#onMessage(e.data);
    }
    if (!globalThis.navigator?.locks) {
      console.warn("actionkit: no Web Locks API (it needs HTTPS or localhost): refreshes are single-flight in this tab only");
    }
    globalThis.document?.addEventListener("visibilitychange", this.#onVisible);
  }

  get token() { return this.#token; }
  get user() { return this.#user; }
  get obtainedAt() { return this.#obtainedAt; }
  get expiresAt() { return this.#expiresAt; }
  get source() { return this.#source; }

  /** Whether the token can still be sent for a while. */
  fresh() {
    return this.#token !== null && this.#expiresAt - Date.now() > SKEW_MS;
  }

  /** The token, refreshed first if it is about to expire; null when logged out. */
  async usable() {
    if (!this.#token || this.fresh()) return this.#token;
    return this.refresh(this.#token);
  }

  /**
   * Returns an access token newer than stale: refreshes through the cookie
   * unless this tab or another one already did since. Resolves null when
   * the session is over; rejects when the server could not be asked.
   * @param {string|null} [stale] the token that is no longer good enough.
   * @returns {Promise<string|null>}
   */
  refresh(stale = this.#token) {
    if (this.#token !== stale && this.fresh()) return Promise.resolve(this.#token);
    if (!this.#inflight) {
      const epoch = this.#epoch;
      this.#inflight = this.#locked((contended) => this.#underLock(stale, epoch, contended))
        .finally(() => { this.#inflight = null; });
    }
    return this.#inflight;
  }

  /**
   * Runs fn holding the refresh lock, so that no tab refreshes meanwhile
   * (login, logout). fn gets a function that refreshes from inside the lock.
   * @template T
   * @param {(refresh: () => Promise<string|null>) => Promise<T>} fn
   * @returns {Promise<T>}
   */
  exclusive(fn) {
    return this.#locked(() => fn(() => this.#fetchAndAdopt()));
  }

  /** Adopts a token from a login or registration and tells the other tabs. */
  adopt(token, user, source) {
    this.#set(token, user, source, Date.now(), 0);
    this.#post(this.#tokenMessage());
  }

  /** Drops the token (a logout) and tells the other tabs to drop theirs. */
  end(reason) {
    const at = Date.now();
    this.#drop(reason, at);
    this.#post({ type: "logout", reason, at });
  }

  /** Stops timers and listeners; the token is forgotten. */
  close() {
    clearTimeout(this.#timer);
    this.#channel?.close();
    this.#presence?.();
    globalThis.document?.removeEventListener("visibilitychange", this.#onVisible);
    this.#token = null;
  }

  async #underLock(stale, epoch, contended) {
    if (this.#epoch !== epoch || (this.#token !== stale && this.fresh())) return this.#token;
    if (contended) {
      // Someone refreshed while we waited; its token may still be on the way.
      if (await this.#awaitChange(epoch, PEER_WAIT_MS)) return this.#token;
    } else if (stale === null && (await this.#peersHaveToken())) {
      this.#post({ type: "hello" });
      if (await this.#awaitChange(epoch, HELLO_WAIT_MS)) return this.#token;
    }
    return this.#fetchAndAdopt();
  }

  async #fetchAndAdopt() {
    let got;
    try {
      got = await this.#opts.fetchRefresh();
    } catch (err) {
      if (err?.status === 401) {
        this.end("expired"); // the cookie's session is over, for every tab
        return null;
      }
      this.#post({ type: "failed" });
      throw err;
    }
    this.#set(got.token, got.user, "refresh", Date.now(), 0);
    this.#post(this.#tokenMessage());
    return got.token;
  }

  async #locked(fn) {
    const locks = globalThis.navigator?.locks;
    if (!locks) {
      const run = this.#chain.then(() => fn(false));
      this.#chain = run.catch(() => {});
      return run;
    }
    const name = this.#opts.lockName;
    const first = await locks.request(name, { ifAvailable: true }, (lock) => (lock ? fn(false) : NOT_GRANTED));
    if (first !== NOT_GRANTED) return first;
    return locks.request(name, () => fn(true));
  }

  /** Resolves true when the epoch moves past epoch within ms, false on a
   * timeout or when a peer reports that its refresh failed. */
  #awaitChange(epoch, ms) {
    if (this.#epoch !== epoch) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (moved) => {
        clearTimeout(timer);
        this.#changed.removeEventListener("change", onChange);
        this.#changed.removeEventListener("failed", onFailed);
        resolve(moved);
      };
      const onChange = () => done(true);
      const onFailed = () => done(false);
      const timer = setTimeout(onFailed, ms);
      this.#changed.addEventListener("change", onChange);
      this.#changed.addEventListener("failed", onFailed);
    });
  }

  async #peersHaveToken() {
    if (!this.#channel || !globalThis.navigator?.locks) return false;
    const { held = [] } = await navigator.locks.query();
    return held.some((l) => l.name === this.#opts.lockName + ":token");
  }

  #onMessage(msg) {
    switch (msg?.type) {
      case "token":
        if (typeof msg.token === "string" && msg.obtainedAt > this.#obtainedAt) {
          this.#set(msg.token, msg.user, "peer", msg.obtainedAt, msg.expiresAt);
        }
        break;
      case "logout":
        if (!(msg.at < this.#obtainedAt)) this.#drop(msg.reason === "expired" ? "expired" : "peer", msg.at);
        break;
      case "hello":
        if (this.fresh()) this.#post(this.#tokenMessage());
        break;
      case "failed":
        this.#changed.dispatchEvent(new Event("failed"));
        break;
    }
  }

  #set(token, user, source, obtainedAt, expiresAt) {
    const wasIn = this.#token !== null;
    this.#token = token;
    this.#user = user ?? this.#user;
    this.#obtainedAt = obtainedAt;
    this.#expiresAt = expiresAt || obtainedAt + lifetimeOf(token);
    this.#source = source;
    this.#bump();
    this.#schedule();
    this.#holdPresence();
    const detail = { source, obtainedAt, expiresAt: this.#expiresAt, user: this.#user };
    if (!wasIn) this.#opts.notify("login", detail);
    this.#opts.notify("token", detail);
  }

  #drop(reason, at) {
    const wasIn = this.#token !== null;
    clearTimeout(this.#timer);
    this.#token = null;
    this.#user = null;
    this.#obtainedAt = Math.max(this.#obtainedAt, at);
    this.#expiresAt = 0;
    this.#source = null;
    this.#presence?.();
    this.#presence = null;
    this.#bump();
    if (wasIn) this.#opts.notify("logout", { reason });
  }

  #bump() {
    this.#epoch++;
    this.#changed.dispatchEvent(new Event("change"));
  }

  #margin() {
    return Math.min(this.#opts.margin, (this.#expiresAt - this.#obtainedAt) / 5);
  }

  /** Refreshes shortly before expiry, with a little jitter so that tabs
   * holding the same token do not all ask at once. */
  #schedule() {
    clearTimeout(this.#timer);
    const life = this.#expiresAt - this.#obtainedAt;
    const jitter = Math.random() * Math.min(5_000, life / 20);
    const wait = Math.max(0, this.#expiresAt - this.#margin() - jitter - Date.now());
    const token = this.#token;
    this.#timer = setTimeout(() => {
      this.refresh(token).catch((error) => this.#opts.notify("error", { error }));
    }, Math.min(wait, 2 ** 31 - 1));
  }

  /** Holds the shared lock "<lockName>:token" while this tab has a token,
   * so that a new tab can see that asking its peers is worth it. */
  #holdPresence() {
    const locks = globalThis.navigator?.locks;
    if (this.#presence || !locks) return;
    const held = new Promise((resolve) => { this.#presence = resolve; });
    locks.request(this.#opts.lockName + ":token", { mode: "shared" }, () => held).catch(() => {});
  }

  #tokenMessage() {
    return { type: "token", token: this.#token, user: this.#user, obtainedAt: this.#obtainedAt, expiresAt: this.#expiresAt };
  }

  #post(msg) {
    this.#channel?.postMessage(msg);
  }
}
