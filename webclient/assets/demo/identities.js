// The "Connected accounts" panel of the demo page: the accounts of identity
// providers the user can sign in with, connecting another one (the browser
// goes to the provider and comes back with #linked=<provider>), and
// disconnecting one. Both are sensitive actions: when the server wants a
// recent log-in, the re-authentication prompt asks for one first.

import { $, el, alert, describe, when, fill } from "./view.js";
import { busy } from "./account.js";
import { identityProviders } from "/client/oidc.js";

/** The page's words for the codes of the identity-provider flows, which
 * come back in the address's fragment (#error=<CODE>) or from a call. */
const words = {
  USER_BAD_REQUEST_INVALID_OIDC_STATE: "This sign-in could not be finished: it expired, was used already, or began in another browser. Please start again.",
  USER_BAD_REQUEST_OIDC_PROVIDER_ERROR: "The provider did not confirm who you are: it was cancelled, refused, or could not be reached. Please try again.",
  USER_BAD_REQUEST_OIDC_ACCOUNT_EXISTS: "An account with this e-mail address exists already. Log in to it with its password or passkey, then connect the provider under “Connected accounts”.",
  USER_BAD_REQUEST_IDENTITY_ALREADY_LINKED: "This account at the provider is connected to another account here already.",
  USER_BAD_REQUEST_SIGNUP_DISABLED: "There is no account for this sign-in, and this provider cannot create new ones.",
  USER_BAD_REQUEST_INVALID_OIDC_CODE: "This sign-in expired before it could be finished. Please start again.",
  USER_BAD_REQUEST_UNKNOWN_OIDC_PROVIDER: "This provider is not available any more.",
  USER_BAD_REQUEST_ACCOUNT_INACTIVE: "This account is deactivated.",
  USER_BAD_REQUEST_ACCOUNT_DELETED: "This account is deleted.",
  USER_BAD_REQUEST_EMAIL_NOT_VERIFIED: "Confirm your e-mail address first, with the link of the mail you received.",
  USER_BAD_REQUEST_LAST_SIGNIN_METHOD: "This is your account's last way to sign in, so it stays connected: " +
    "add a passkey, set a password (“Forgot your password?” on the log-in form sends a link), or connect another account first.",
  USER_IDENTITY_NOT_FOUND: "This connected account no longer exists.",
};

/**
 * Explains a code of the identity-provider flows: from a fragment
 * (a string, which may be anything) or an error.
 * @param {string|Error} what
 */
export function explainOIDC(what) {
  if (typeof what !== "string") return words[what?.code] ?? describe(what);
  if (words[what]) return words[what];
  return /^[A-Z_]{1,80}$/.test(what) ? `The sign-in failed (${what}).` : "The sign-in failed.";
}

/**
 * ConnectedAccounts runs the panel #identities, shown when providers are
 * configured or the user has identities. Its data-state is loading, ok or
 * failed, data-count the number of identities; #id-error's data-code is
 * the code of the last failure (for the browser tests).
 */
export class ConnectedAccounts {
  #client;
  #idp;
  #prompt;
  #providers;

  /**
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{prompt: Function, providers: Promise<{id: string, name: string}[]>}} page
   *   prompt is the re-authentication prompt; providers the configured ones.
   */
  constructor(client, page) {
    this.#client = client;
    this.#idp = identityProviders(client);
    this.#prompt = page.prompt;
    this.#providers = page.providers;
  }

  /** The page is logged in: lists the identities. */
  shown() {
    this.load();
  }

  /** The page logged out. */
  hidden() {
    fill("identity-list", [], "Loading…");
    $("link-buttons").replaceChildren();
    $("identities").dataset.state = "loading";
    delete $("identities").dataset.count;
    alert("id-result", "");
    this.#error(null);
  }

  /** The browser came back from connecting provider (#linked=<provider>). */
  async linked(provider) {
    const name = (await this.#providers).find((p) => p.id === provider)?.name ?? provider;
    alert("id-result", `Connected your ${name} account: you can sign in with it now.`);
    $("id-result").dataset.provider = provider;
    await this.load();
  }

  /** A connection came back with #error=<CODE>. */
  failed(code) {
    this.#error(code);
    $("identities").hidden = false;
  }

  /** Reads and lists the identities, with a button per provider. */
  async load() {
    const panel = $("identities");
    try {
      const [providers, identities] = await Promise.all([this.#providers, this.#idp.identities()]);
      const name = (id) => providers.find((p) => p.id === id)?.name ?? id;
      fill("identity-list", identities.map((i) => this.#item(i, name(i.provider))), "No account connected.");
      const has = new Set(identities.map((i) => i.provider));
      $("link-buttons").replaceChildren(...providers.map((p) => this.#linkButton(p, has.has(p.id))));
      panel.dataset.count = String(identities.length);
      panel.dataset.state = "ok";
      panel.hidden = providers.length === 0 && identities.length === 0 && $("id-error").hidden;
    } catch (err) {
      if (err.sessionEnded) return;
      panel.dataset.state = "failed";
      panel.hidden = false;
      this.#error(err);
    }
  }

  #item(identity, name) {
    const what = el("div", { class: "what" },
      el("strong", {}, name),
      el("span", { class: "meta" }, identity.email ?? "no e-mail address"),
      el("span", { class: "meta" }, "connected ", when(identity.createdAt), " · ",
        ...(identity.lastLoginAt ? ["last sign-in ", when(identity.lastLoginAt)] : ["not used to sign in yet"])));
    const button = el("button", { type: "button", class: "small danger" }, "Disconnect");
    button.addEventListener("click", () => this.#sensitive(button, async () => {
      await this.#idp.unlink(identity.id);
      alert("id-result", `Disconnected your ${name} account: it no longer signs in here.`);
      delete $("id-result").dataset.provider;
      await this.load();
    }));
    return el("li", { class: "device", "data-identity-id": identity.id, "data-provider": identity.provider }, what, button);
  }

  #linkButton(p, connected) {
    const button = el("button", { type: "button", "data-provider": p.id }, connected ? `Connect another ${p.name} account` : `Connect ${p.name}`);
    button.addEventListener("click", () => this.#sensitive(button, () => this.#idp.link(p.id)));
    return button;
  }

  /** Runs a sensitive change, asking for a recent log-in when needed. */
  #sensitive(button, fn) {
    return busy(button, async () => {
      alert("id-result", "");
      this.#error(null);
      try {
        await this.#client.withReauthentication(fn, this.#prompt);
      } catch (err) {
        if (!err.sessionEnded) this.#error(err);
      }
    });
  }

  /** Shows a failure (an error, a code, or null for none), with its code in data-code. */
  #error(what) {
    const node = $("id-error");
    alert("id-error", what ? explainOIDC(what) : "");
    const code = typeof what === "string" ? what : what?.code;
    if (code) node.dataset.code = String(code);
    else delete node.dataset.code;
  }
}
