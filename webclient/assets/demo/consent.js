// The consent screen of "Sign in with actionkit": the page that
// OAUTH_INTERACTION_URL names opens with ?oauth_request=<requestId> after
// an application sent the browser to /oauth2/authorize. It reads the
// request (/v1/users/oauth/request; the oauth-request cookie goes with it,
// same origin), lets the person sign in with every way the log-in form
// offers when they are not signed in yet, and then shows who is asking and
// for what, with Allow and Deny; the browser then goes back to the
// application (redirectTo). With a consent that already covers the
// request it approves without asking; with prompt=none it never asks
// anything: it approves when it can, and otherwise answers login_required
// or consent_required.

import { $, el, text, alert, describe } from "./view.js";
import { busy } from "./account.js";

/** What each scope lets the application do, in the page's words. */
const scopeWords = {
  openid: "Know who you are: sign you in with your account",
  profile: "See your name, language and time zone",
  email: "See your e-mail address and whether it is confirmed",
  offline_access: "Stay connected when you are not using it, until you disconnect it",
  "account:read": "Read your account: your e-mail address, name, language, time zone and sign-in settings",
  "posts:write": "Write posts in your name: create drafts and publish them",
};

/** The words of a scope: the known ones, else an action's own scope. */
export function scopeText(scope) {
  return scopeWords[scope] ?? `Use “${scope}” on your behalf`;
}

/** The host of a URL, or the whole text when it is none (a private-use
 * scheme's "com.example.app:/cb" gives its scheme). */
export function hostOf(uri) {
  try {
    const u = new URL(uri);
    return u.host || u.protocol.replace(/:$/, "");
  } catch {
    return uri;
  }
}

/** The request id of the page's address, or null. */
function requestIdOf(loc = location) {
  const id = new URLSearchParams(loc.search).get("oauth_request");
  return id && /^[0-9a-f]{64}$/.test(id) ? id : null;
}

/**
 * Consent runs the card #consent while the page has a pending request.
 * Its data-state tells where it is (for the browser tests): loading,
 * login (the person must sign in first), ask, approving, denying, leaving
 * (the browser goes back to the application), invalid (an unknown,
 * answered or expired request, or one of another browser) or failed.
 */

// markup is the consent card, put at the top of the page's main column
// only when the page answers a request (index.html stays the account's).
const markup = `
  <section id="consent" class="card consent" aria-labelledby="consent-title" aria-live="polite" hidden>
    <div class="consent-head">
      <span id="consent-monogram" class="monogram" aria-hidden="true"></span>
      <div>
        <h2 id="consent-title">An application wants to use your account</h2>
        <p class="consent-client"><strong id="consent-client-name"></strong>
          <span id="consent-verified" class="badge" hidden>verified</span>
          <span id="consent-unverified" class="badge warn" hidden>unverified</span></p>
      </div>
    </div>
    <div id="consent-details">
      <dl class="facts consent-hosts">
        <dt id="consent-client-host-label">Application at</dt><dd id="consent-client-host"></dd>
        <dt>Sends you back to</dt><dd id="consent-redirect-host"></dd>
      </dl>
      <p id="consent-unverified-note" class="consent-warning">This application registered itself: nobody checked
        that it is what its name says. Continue only if you started this sign-in and you trust
        <strong id="consent-redirect-host-again"></strong>.</p>
      <h3>It will be able to</h3>
      <ul id="consent-scopes" class="scopes"></ul>
      <div id="consent-resources" hidden>
        <h3>At</h3>
        <ul id="consent-resource-list" class="scopes"></ul>
      </div>
      <p id="consent-who" class="hint" hidden></p>
    </div>
    <div class="actions">
      <button type="button" id="consent-approve" class="primary" hidden>Allow</button>
      <button type="button" id="consent-deny">Deny</button>
    </div>
    <p id="consent-error" class="error" role="alert" hidden></p>
  </section>
`;

export class Consent {
  #client;
  #prompt;
  #id;
  #request = null;
  #done = false;
  #acting = false;
  #seq = 0;

  /**
   * Starts the consent when the page's address carries a request;
   * otherwise it does nothing.
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{prompt: Function}} page prompt is the re-authentication prompt.
   * @param {(url: string) => void} [navigate]
   */
  constructor(client, page, navigate = (url) => location.assign(url)) {
    this.#client = client;
    this.#prompt = page.prompt;
    this.navigate = navigate;
    this.#id = requestIdOf();
    if (!this.#id) return;
    $("main").insertAdjacentHTML("afterbegin", markup);
    document.body.dataset.oauth = "pending";
    this.#state("loading");
    $("consent-approve").addEventListener("click", () => busy($("consent-approve"), () => this.#approve()));
    $("consent-deny").addEventListener("click", () => busy($("consent-deny"), () => this.#deny("access_denied")));
    // Signing in (password, second step, passkey, identity provider), or
    // out, reads the request again: whether consent is needed depends on
    // the user.
    client.addEventListener("login", () => this.#load());
    client.addEventListener("logout", () => this.#load());
    client.start().catch(() => null).then(() => this.#load());
  }

  #state(state) {
    $("consent").dataset.state = state;
    $("consent").setAttribute("aria-busy", String(["loading", "approving", "denying", "leaving"].includes(state)));
  }

  /** Reads the request and acts on it. Only the newest read acts, and
   * none while an answer is on its way. */
  async #load() {
    if (this.#done || this.#acting) return;
    const seq = ++this.#seq;
    const signedIn = this.#client.loggedIn;
    let request;
    try {
      ({ request } = await this.#client.api("/v1/users/oauth/request", { requestId: this.#id }));
    } catch (err) {
      if (seq === this.#seq && !this.#done && !this.#acting) this.#fail(err);
      return;
    }
    if (seq !== this.#seq || this.#done || this.#acting) return;
    if (signedIn !== this.#client.loggedIn) return; // signed in or out meanwhile: its event reads it again
    this.#request = request;
    this.#render(request, signedIn);
    const silent = request.prompt?.includes("none");
    if (!signedIn) {
      if (silent) return this.#deny("login_required");
      this.#state("login");
      return;
    }
    if (request.consentRequired === false) return this.#approve(silent);
    if (silent) return this.#deny("consent_required");
    this.#state("ask");
    $("consent-approve").focus();
  }

  /** Shows who is asking and for what. No image of the client is shown:
   * an unverified one's logo could show anything. */
  #render(request, signedIn) {
    const c = request.client;
    const silent = request.prompt?.includes("none");
    $("consent").hidden = silent; // prompt=none never shows anything
    if (silent) document.body.dataset.oauth = "silent";
    text("consent-client-name", c.name);
    $("consent-monogram").textContent = (c.name.trim()[0] ?? "?").toUpperCase();
    $("consent-verified").hidden = !c.verified;
    $("consent-unverified").hidden = c.verified;
    $("consent").dataset.verified = String(c.verified);
    // An unverified client's own words prove nothing: the host of its
    // client_id (a metadata document's URL; a registered client's id
    // otherwise) and of the redirect URI are what the person can judge.
    text("consent-client-host", c.clientId.includes("://") ? hostOf(c.clientId) : c.clientId);
    $("consent-client-host").hidden = c.verified;
    $("consent-client-host-label").hidden = c.verified;
    $("consent-unverified-note").hidden = c.verified;
    text("consent-redirect-host", hostOf(request.redirectUri));
    text("consent-redirect-host-again", hostOf(request.redirectUri));
    // An unverified client's name is its own claim: it is shown, marked,
    // but never as the title.
    const who = c.verified ? c.name : "an unverified application";
    text("consent-title", signedIn ? `${who[0].toUpperCase()}${who.slice(1)} wants to use your account` : `Log in to continue to ${who}`);
    $("consent-scopes").replaceChildren(...request.scopes.map((s) =>
      el("li", { "data-scope": s }, el("span", {}, scopeText(s)), el("code", { class: "meta" }, s))));
    $("consent-resources").hidden = !request.resources?.length;
    $("consent-resource-list").replaceChildren(...(request.resources ?? []).map((r) => el("li", {}, el("code", {}, r))));
    $("consent-approve").hidden = !signedIn;
    $("consent-who").hidden = !signedIn;
    if (signedIn) text("consent-who", `You are logged in as ${this.#client.user?.email ?? "…"}.`);
  }

  /** Approves and goes back to the application. A session that must
   * confirm it is there (prompt=login, max_age, the client's level) asks
   * with the re-authentication dialog and tries again; with prompt=none it
   * answers login_required instead. */
  async #approve(silent = false) {
    this.#acting = true;
    this.#state("approving");
    alert("consent-error", "");
    const approve = () => this.#client.api("/v1/users/oauth/approve", { requestId: this.#id });
    try {
      const { redirectTo } = silent ? await approve() : await this.#client.withReauthentication(approve, this.#prompt);
      this.#leave(redirectTo);
    } catch (err) {
      this.#acting = false;
      if (silent && err.reauthenticationRequired) return this.#deny("login_required");
      if (err.reauthenticationRequired) {
        this.#state("ask"); // the dialog was cancelled
        alert("consent-error", "Allowing it needs you to confirm it's you.");
        return;
      }
      this.#fail(err);
    }
  }

  async #deny(error) {
    this.#acting = true;
    this.#state("denying");
    alert("consent-error", "");
    try {
      const { redirectTo } = await this.#client.call("/v1/users/oauth/deny", { requestId: this.#id, error });
      this.#leave(redirectTo);
    } catch (err) {
      this.#acting = false;
      this.#fail(err);
    }
  }

  #leave(redirectTo) {
    this.#done = true;
    this.#state("leaving");
    $("consent").dataset.redirect = hostOf(redirectTo);
    const c = this.#request?.client;
    text("consent-title", `Going back to ${c?.verified ? c.name : "the application"}…`);
    $("consent-approve").hidden = true;
    $("consent-deny").hidden = true;
    this.navigate(redirectTo);
  }

  #fail(err) {
    document.body.dataset.oauth = "pending"; // an error shows, even for prompt=none
    if (err?.code === "USER_BAD_REQUEST_INVALID_OAUTH_REQUEST") {
      this.#done = true;
      this.#state("invalid");
      $("consent").hidden = false;
      text("consent-title", "This sign-in request cannot be answered");
      $("consent-details").hidden = true;
      $("consent-approve").hidden = true;
      $("consent-deny").hidden = true;
      alert("consent-error", "It expired, was answered already, or was started in another browser. Go back to the application and sign in again.");
      $("consent-error").dataset.code = err.code;
      return;
    }
    if (err?.sessionEnded) return; // the logout event reads the request again
    $("consent").hidden = false;
    this.#state("failed");
    alert("consent-error", describe(err));
    $("consent-error").dataset.code = err?.code ?? "";
  }
}
