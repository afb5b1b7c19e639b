// actionkit web client: sign-in with identity providers (OpenID Connect).
// Plain ES module, no build step:
//
//   import { createClient } from "/client/actionkit.js";
//   import { identityProviders, takeResult } from "/client/oidc.js";
//   const ak = createClient();
//   const idp = identityProviders(ak);
//   const result = takeResult();                 // first, on page load
//   if (result?.kind === "oidc") await idp.exchange(result.value); // the user, or an MfaRequired
//   for (const p of await idp.providers()) button(p.name, () => idp.start(p.id));
//   await idp.link("google");                    // from the account page (sensitive)
//
// The server runs the whole authorization code flow: start answers the
// provider's URL (and binds the flow to this browser with an HttpOnly
// cookie), the provider sends the browser to the server's callback, and
// the callback sends it back to the page with only a one-time result code
// in the fragment (#oidc=<code>), or #linked=<provider> after a link, or
// #error=<CODE>. No token ever travels in a URL.

/** The fragments the server's callback sends the browser back with. */
const RESULT_RE = /^#(oidc|linked|error)=([^&]*)$/;

/**
 * Reads the result of a flow from the address bar and removes it at once
 * (history.replaceState), so that the one-time code stays neither in the
 * address bar nor in the history.
 * @param {Location} [loc=location]
 * @returns {{kind: "oidc"|"linked"|"error", value: string}|null} kind
 *   "oidc" carries the result code to exchange, "linked" the provider id,
 *   "error" the error code.
 */
export function takeResult(loc = location) {
  const m = RESULT_RE.exec(loc.hash);
  if (!m) return null;
  history.replaceState(history.state, "", loc.pathname + loc.search);
  let value = m[2];
  try {
    value = decodeURIComponent(value);
  } catch {
    // a malformed escape: keep the text as it came
  }
  return { kind: m[1], value };
}

/** @returns {string} this page's URL without its fragment: where a flow comes back to. */
export function thisPage(loc = location) {
  return loc.origin + loc.pathname + loc.search;
}

/**
 * IdentityProviders are the sign-ins of one client's user through the
 * server's identity providers, and the identities connected to its account.
 * Identity providers are for users only.
 */
export class IdentityProviders {
  #ak;
  #go;

  /**
   * @param {import("./actionkit.js").ActionkitClient} client
   * @param {(url: string) => void} [navigate] sends the browser to the
   *   provider; default location.assign.
   */
  constructor(client, navigate = (url) => location.assign(url)) {
    this.#ak = client;
    this.#go = navigate;
  }

  /** @returns {Promise<{id: string, name: string}[]>} the configured providers, in order. */
  providers() {
    return this.#ak.call("/v1/users/oidc/providers").then((b) => b.providers);
  }

  /**
   * Starts signing in with provider: the browser leaves the page for the
   * provider's, and comes back to redirectTo with the result (takeResult).
   * @param {string} provider a provider id from providers().
   * @param {{redirectTo?: string}} [where] an absolute URL of an origin the
   *   server allows (OIDC_REDIRECT_ORIGINS); default this page.
   * @returns {Promise<string>} the provider's URL, once the browser is on its way.
   */
  async start(provider, { redirectTo = thisPage() } = {}) {
    const { url } = await this.#ak.call("/v1/users/oidc/start", { provider, redirectTo });
    this.#go(url);
    return url;
  }

  /**
   * Starts connecting an account at provider to the logged-in user's (a
   * sensitive action: wrap it in client.withReauthentication). The browser
   * comes back to redirectTo with #linked=<provider> or #error=<CODE>.
   * @param {string} provider
   * @param {{redirectTo?: string}} [where]
   * @returns {Promise<string>} the provider's URL.
   */
  async link(provider, { redirectTo = thisPage() } = {}) {
    const { url } = await this.#ak.api("/v1/users/oidc/link", { provider, redirectTo });
    this.#go(url);
    return url;
  }

  /**
   * Trades the one-time result code of #oidc=<code> for the login, as
   * login() does: the user, or an MfaRequired when the account has a
   * second factor (the code is spent either way).
   * @param {string} code
   * @returns {Promise<object|import("./mfa.js").MfaRequired>}
   */
  exchange(code) {
    return this.#ak.loginWith("oidc/exchange", { code });
  }

  /** @returns {Promise<object[]>} the identities connected to the user's
   * account ({id, provider, email, createdAt, lastLoginAt}), oldest first. */
  identities() {
    return this.#ak.api("/v1/users/identities").then((b) => b.identities);
  }

  /**
   * Removes a connected identity (sensitive), unless it is the account's
   * last way to sign in (USER_BAD_REQUEST_LAST_SIGNIN_METHOD).
   * @param {string} identityId
   */
  unlink(identityId) {
    return this.#ak.api("/v1/users/identities/unlink", { identityId });
  }
}

/**
 * The identity providers of client's user.
 * @param {import("./actionkit.js").ActionkitClient} client
 * @returns {IdentityProviders}
 */
export function identityProviders(client) {
  return new IdentityProviders(client);
}
