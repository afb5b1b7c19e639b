// actionkit web client: log in, call the API and listen to events from a
// browser, with the access token in memory only and the refresh token in
// the server's httpOnly cookie. Plain ES module, no build step:
//
//   import { createClient } from "/client/actionkit.js";
//   const ak = createClient();
//   let user = await ak.start() ?? await ak.login(email, password);
//   if (user instanceof MfaRequired) user = await ak.verifyMfa(user.mfaToken, "totp", code);
//   const { post } = await ak.api("/v1/posts/create", { title: "Hello" });
//   ak.socket({ rooms: ["FEED"] }).on("POST_PUBLISHED", (p) => console.log(p.title));
//
// Refreshes are single-flight across every tab of the origin: see session.js.
// Passkeys (login, registration, second factor): see passkeys.js.

import { Session, decodeClaims } from "./session.js";
import { LiveSocket } from "./live.js";
import { MfaRequired, SecondFactor, retryAfterReauthentication } from "./mfa.js";
import { ActionkitError } from "./errors.js";

export { ActionkitError, decodeClaims, LiveSocket, MfaRequired, SecondFactor };

/**
 * @typedef {object} ClientOptions
 * @property {string} [baseURL] the server's origin; default: this page's.
 *   Another origin must be listed in the server's CORS_ORIGINS and be
 *   same-site, since the refresh cookie is SameSite=Strict.
 * @property {string} [owner="user"] the owner type: "user", or "admin" for
 *   an admin console (its actions under /v1/admins/, the scheme jwt-admin;
 *   admins have no sockets).
 * @property {string} [platform="web"] sent as X-Platform at login.
 * @property {number} [refreshMargin=60000] refresh this many ms before the
 *   access token expires (at most a fifth of its lifetime).
 * @property {string} [lockName="actionkit-refresh"] the Web Lock that
 *   serialises refreshes across tabs ("actionkit-admin-refresh" for admins).
 * @property {string} [channelName="actionkit-session"] the BroadcastChannel
 *   on which tabs share tokens and logouts ("actionkit-admin-session").
 */

/**
 * ActionkitClient is one tab's connection to an actionkit server. It is an
 * EventTarget that dispatches CustomEvents:
 *
 * - "login": this tab became logged in (detail: {user, source});
 * - "token": it holds a new access token (detail: {source, obtainedAt,
 *   expiresAt, user}); source is "login", "register", "refresh" (this tab
 *   refreshed), "changepassword", "mfa" (the second factor was turned on)
 *   or "peer" (another tab did and handed it over);
 * - "logout": it lost its session (detail: {reason}: "logout",
 *   "logoutall", "expired" when the server refused the refresh, "peer" when
 *   another tab logged out);
 * - "error": a background refresh failed without ending the session
 *   (detail: {error}).
 */
export class ActionkitClient extends EventTarget {
  #base;
  #owner;
  #actions;
  #platform;
  #credentials;
  #session;
  #started = null;
  /** @type {SecondFactor} the owner's second factor: status, TOTP, recovery codes. */
  mfa;

  /** @param {ClientOptions} [options] */
  constructor({ baseURL = "", owner = "user", platform = "web", refreshMargin = 60_000,
    lockName = owner === "user" ? "actionkit-refresh" : `actionkit-${owner}-refresh`,
    channelName = owner === "user" ? "actionkit-session" : `actionkit-${owner}-session` } = {}) {
    super();
    this.#base = String(baseURL).replace(/\/+$/, "");
    this.#owner = owner;
    this.#actions = `/v1/${owner}s/`;
    this.#platform = platform;
    const cross = this.#base && new URL(this.#base, location.href).origin !== location.origin;
    this.#credentials = cross ? "include" : "same-origin";
    this.#session = new Session({
      lockName, channelName, margin: refreshMargin,
      fetchRefresh: () => this.#send(this.#actions + "refresh", {}, null).then((b) => ({ token: b.token, user: b[owner] })),
      notify: (type, detail) => this.dispatchEvent(new CustomEvent(type, { detail })),
    });
    this.mfa = new SecondFactor((verb, args) => this.api(`${this.#actions}mfa/${verb}`, args),
      (verb, args) => this.#rotate(`${this.#actions}mfa/${verb}`, args, "mfa"), owner);
  }

  /** @returns {string} the server's origin, "" for this page's. */
  get baseURL() { return this.#base; }
  /** @returns {string|null} the current access token (memory only). */
  get token() { return this.#session.token; }
  /** @returns {object|null} the logged-in user, as the server last sent it. */
  get user() { return this.#session.user; }
  /** @returns {boolean} */
  get loggedIn() { return this.#session.token !== null; }
  /** @returns {number} when the access token expires (ms since the epoch, local clock). */
  get expiresAt() { return this.#session.expiresAt; }
  /** @returns {number} when the current access token was obtained, in this tab or another. */
  get obtainedAt() { return this.#session.obtainedAt; }
  /** @returns {string|null} how it was obtained: login, register, refresh, changepassword, mfa or peer. */
  get source() { return this.#session.source; }
  /** @returns {string} the owner type: "user" or "admin". */
  get owner() { return this.#owner; }
  /** @returns {string|null} the id of this browser's session (the token's
   * sid), the same across refreshes; null when logged out. */
  get sessionId() { return this.token ? decodeClaims(this.token).sid ?? null : null; }

  /**
   * Restores the session on page load: with no token in memory, gets one
   * from another tab or through the refresh cookie. Safe to call often.
   * @returns {Promise<object|null>} the user, or null when logged out.
   */
  start() {
    if (!this.#started) {
      const started = this.#session.token ? Promise.resolve() : this.#session.refresh(null);
      started.catch(() => { if (this.#started === started) this.#started = null; }); // retry next time
      this.#started = started;
    }
    return this.#started.then(() => this.user);
  }

  /**
   * Creates an account and logs in (X-Client: web).
   * @param {{email: string, password: string, firstName?: string, lastName?: string, timezone?: string, locale?: string}} fields
   * @returns {Promise<object>} the user.
   */
  register(fields) {
    return this.#enter(this.#actions + "register", fields, "register");
  }

  /**
   * Logs in (X-Client: web). The other tabs of the origin log in too. When
   * the account has a second factor, nothing is logged in yet: it resolves
   * an MfaRequired, to finish with verifyMfa.
   * @param {string} email
   * @param {string} password
   * @returns {Promise<object|MfaRequired>} the user, or the second step owed.
   */
  login(email, password) {
    return this.#enter(this.#actions + "login", { email, password }, "login");
  }

  /**
   * Finishes a login that resolved an MfaRequired: method "totp" or
   * "recovery_code" and its code. A wrong code rejects and may be tried
   * again until the handle burns (..._INVALID_MFA_TOKEN: log in again).
   * @returns {Promise<object>} the user.
   */
  verifyMfa(mfaToken, method, code) {
    return this.loginWith("mfa/verify", { mfaToken, method, code });
  }

  /**
   * Proves again that the owner is there, in this session, for the
   * sensitive actions: with the password (renews the time only) or a
   * second factor (also raises the session's level).
   * @param {{password: string} | {method: string, code: string} | {method: "webauthn", challengeId: string, credential: object}} proof
   * @returns {Promise<object>} the session (authMethods, aal, authenticatedAt).
   */
  reauthenticate(proof) {
    return this.api(this.#actions + "reauthenticate", proof).then((b) => b.session);
  }

  /**
   * Runs fn, and when it fails because the server wants a recent
   * authentication (err.reauthenticationRequired), asks prompt for a proof,
   * re-authenticates and runs fn again.
   *
   *   const codes = await ak.withReauthentication(() => ak.mfa.regenerateRecoveryCodes(),
   *     (methods, error) => askTheUser(methods, error)); // {password} | {method, code} | null
   *
   * prompt gets the methods the owner can use and the previous proof's
   * error, and resolves a proof, or null to give up (fn's error is thrown).
   */
  withReauthentication(fn, prompt) {
    return retryAfterReauthentication((proof) => this.reauthenticate(proof), fn, prompt);
  }

  /**
   * Finishes a login through another action of the owner type, such as
   * "passkeys/login" or "mfa/verify" (see passkeys.js), as login() does.
   * @param {string} action the path after /v1/users/ (or /v1/admins/).
   * @param {object} args
   * @returns {Promise<object>} the owner.
   */
  loginWith(action, args) {
    return this.#enter(this.#actions + action, args, "login");
  }

  /**
   * Calls a public action without the access token, such as
   * "/v1/users/passkeys/loginoptions"; resolves the success body.
   */
  call(path, args = {}) {
    return this.#send(path, args, null);
  }

  /** Ends this browser's session; every tab of the origin logs out. */
  logout() {
    return this.#leave(this.#actions + "logout", "logout");
  }

  /** Ends every session of the user, on every device. */
  logoutAll() {
    return this.#leave(this.#actions + "logoutall", "logoutall");
  }

  /**
   * Changes the password. Every other session of the owner ends at once;
   * this one goes on with the new tokens the answer carries, which every
   * tab of the origin adopts. It holds the refresh lock meanwhile: the
   * server counts the previous refresh token as rotated, so no tab may
   * present it.
   * @param {string} currentPassword
   * @param {string} newPassword
   * @returns {Promise<object>} the owner.
   */
  async changePassword(currentPassword, newPassword) {
    const body = await this.#rotate(this.#actions + "changepassword", { currentPassword, newPassword }, "changepassword");
    return body[this.#owner];
  }

  /**
   * Asks for a password reset mail. The answer is the same whether or not
   * the address has an account.
   * @param {string} email
   */
  requestPasswordReset(email) {
    return this.#send(this.#actions + "requestpasswordreset", { email }, null);
  }

  /**
   * Sets a new password with the token of a reset mail; every session of
   * the owner ends (log in again).
   * @param {string} token the 64 hex characters of the link.
   * @param {string} password
   */
  resetPassword(token, password) {
    return this.#send(this.#actions + "resetpassword", { token, password }, null);
  }

  /**
   * Confirms the e-mail address with the token of a verification mail.
   * @param {string} token
   * @returns {Promise<object>} the user, with emailVerifiedAt set.
   */
  verifyEmail(token) {
    return this.#send(this.#actions + "verifyemail", { token }, null).then((b) => b.user);
  }

  /** Asks for a new verification mail (nothing happens when verified). */
  requestEmailVerification() {
    return this.api(this.#actions + "requestemailverification");
  }

  /**
   * Lists where the owner is logged in: its live sessions, newest login
   * first, this browser's marked current.
   * @returns {Promise<object[]>}
   */
  sessions() {
    return this.api(this.#actions + "sessions").then((b) => b.sessions);
  }

  /**
   * Ends one session ("log out this device"): its access tokens and
   * sockets end at once. This browser's own is a logout.
   * @param {string} id a session id from sessions().
   */
  revokeSession(id) {
    if (id === this.sessionId) return this.logout();
    return this.api(this.#actions + "revokesession", { sessionId: id });
  }

  /**
   * Gets an access token newer than stale: refreshes through the cookie
   * unless this tab or another already did since. Concurrent calls, in this
   * tab or any other, make one request between them.
   * @param {string|null} [stale=this.token]
   * @returns {Promise<string|null>} the token, or null when the session is over.
   */
  refresh(stale = this.token) {
    return this.#session.refresh(stale);
  }

  /**
   * Calls an action with args as a JSON body and the access token, and
   * retries once after a refresh when the token is refused (401).
   * @param {string} path such as "/v1/users/read".
   * @param {object} [args]
   * @returns {Promise<object>} the success body ({status, success, ...payload}).
   * @throws {ActionkitError} with sessionEnded set when the call failed
   *   because the session is over (the "logout" event came first).
   */
  async api(path, args = {}) {
    await this.start().catch(() => null);
    const token = await this.#session.usable();
    try {
      return await this.#send(path, args, token);
    } catch (err) {
      if (!token || err.status !== 401 || err.code !== "UNAUTHORIZED") throw err;
      // The session may have ended while the call was on its way (a socket
      // disconnected by a logout-all elsewhere got its refresh refused
      // first): the cookie is gone, and another refresh would only be
      // refused again.
      const next = this.#session.token === null ? null : await this.#session.refresh(token);
      if (!next) {
        err.sessionEnded = this.#session.token === null;
        throw err;
      }
      return this.#send(path, args, next);
    }
  }

  /**
   * Connects socket.io with the current access token, joins rooms and
   * rejoins them on every reconnection, which always uses the newest token.
   * A refused token is refreshed once and the socket reconnects.
   * @param {{rooms?: string[]} & object} [options] rooms, plus socket.io options.
   * @returns {LiveSocket}
   */
  socket(options = {}) {
    return new LiveSocket(this, options);
  }

  /** Stops the timers and listeners of this client. */
  close() {
    this.#session.close();
  }

  #enter(path, args, source) {
    return this.#session.exclusive(async () => {
      let body;
      try {
        body = await this.#send(path, args, null, { "X-Client": "web", "X-Platform": this.#platform });
      } catch (err) {
        if (err.mfaRequired) return new MfaRequired(err.body); // no session yet, nothing to adopt
        throw err;
      }
      this.#session.adopt(body.token, body[this.#owner], source);
      return body[this.#owner];
    });
  }

  /** Calls an action that answers the session's new tokens (the server
   * counts the previous refresh token as rotated), holding the refresh
   * lock so that no tab presents that token meanwhile, and adopts them. */
  async #rotate(path, args, source) {
    await this.start().catch(() => null);
    return this.#session.exclusive(async (refreshHere) => {
      const token = this.#session.fresh() ? this.#session.token : await refreshHere();
      if (!token) throw Object.assign(new ActionkitError(401, null), { sessionEnded: true });
      const body = await this.#send(path, args, token);
      this.#session.adopt(body.token, body[this.#owner], source);
      return body;
    });
  }

  async #leave(path, reason) {
    await this.start().catch(() => null);
    return this.#session.exclusive(async (refreshHere) => {
      let token = this.#session.fresh() ? this.#session.token : null;
      if (!token && this.#session.token) token = await refreshHere();
      if (token) {
        try {
          await this.#send(path, {}, token);
        } catch (err) {
          if (err.status !== 401) throw err;
          token = await refreshHere(); // refused: one more try with a new token
          if (token) await this.#send(path, {}, token);
        }
      }
      this.#session.end(reason);
    });
  }

  async #send(path, args, token, headers = {}) {
    const h = { "Content-Type": "application/json", Accept: "application/json", ...headers };
    if (token) h.Authorization = `jwt-${this.#owner} ${token}`;
    let res;
    try {
      res = await fetch(this.#base + path, {
        method: "POST", headers: h, body: JSON.stringify(args ?? {}),
        credentials: this.#credentials, cache: "no-store",
      });
    } catch (cause) {
      throw new ActionkitError(0, { error: "NETWORK_ERROR", message: String(cause?.message ?? cause) });
    }
    const body = await res.json().catch(() => null);
    if (!res.ok || body?.success !== true) throw new ActionkitError(res.status, body);
    return body;
  }
}

/**
 * Creates a client for this page's origin (or options.baseURL).
 * @param {ClientOptions} [options]
 * @returns {ActionkitClient}
 */
export function createClient(options) {
  return new ActionkitClient(options);
}
