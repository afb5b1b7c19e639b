// The ways to sign in without a password on the demo page's log-in form:
// "Sign in with a passkey", the browser's passkey autofill on the e-mail
// field (conditional mediation), and a button per identity provider; and
// the end of a provider's sign-in when the browser comes back with
// #oidc=<code> (or #error=<CODE>).

import { MfaRequired } from "/client/actionkit.js";
import { passkeys, supported, autofillSupported } from "/client/passkeys.js";
import { identityProviders } from "/client/oidc.js";
import { $, el, alert, describe } from "./view.js";
import { busy } from "./account.js";
import { explainOIDC } from "./identities.js";

/**
 * SignIns runs the other ways to sign in. The e-mail field's data-autofill
 * tells where the autofill's request is (for the browser tests): waiting
 * (the browser offers the passkeys in the field's autofill), in, aborted,
 * failed, unsupported, or unavailable (the server has passkeys off).
 */
export class SignIns {
  #client;
  #pk;
  #idp;
  #secondStep;
  #wanted = false;
  #paused = 0;
  #off = false;
  #autofill = null;

  /**
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{secondStep: (challenge: MfaRequired) => void, providers: Promise<{id: string, name: string}[]>}} page
   *   secondStep shows the second step of a login; providers are the
   *   configured identity providers.
   */
  constructor(client, page) {
    this.#client = client;
    this.#pk = passkeys(client);
    this.#idp = identityProviders(client);
    this.#secondStep = page.secondStep;
    $("passkey-login").hidden = !supported();
    $("alternatives").hidden = !supported();
    $("passkey-login").addEventListener("click", () => busy($("passkey-login"), () => this.#withPasskey()));
    // An autofill request that ended (timed out, refused) starts again
    // when the person comes back to the field.
    $("email").addEventListener("focus", () => this.#startAutofill());
    page.providers.then((list) => this.#renderProviders(list));
  }

  /**
   * Whether the log-in form is showing: while it is, the e-mail field
   * offers the browser's passkeys; otherwise the request is aborted.
   * @param {boolean} on
   */
  offer(on) {
    this.#wanted = on;
    if (on) this.#startAutofill();
    else this.stopAutofill();
  }

  /**
   * Aborts the autofill's request; resolves once it has ended (the
   * browser runs one ceremony at a time).
   * @returns {Promise<void>}
   */
  async stopAutofill() {
    const running = this.#autofill;
    if (!running) return;
    running.ctl.abort();
    await running.done;
  }

  /**
   * Runs fn (a password log-in, another ceremony) with the autofill's
   * request aborted, and offers the autofill again afterwards if the form
   * still shows.
   * @template T
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async pause(fn) {
    this.#paused++;
    try {
      await this.stopAutofill();
      return await fn();
    } finally {
      this.#paused--;
      this.#startAutofill();
    }
  }

  /**
   * Finishes a provider's sign-in the browser came back from (the result
   * of takeResult): #oidc=<code> logs in, or shows the second step;
   * #error=<CODE> is explained on the log-in form.
   * @param {{kind: string, value: string}} result
   */
  async finish(result) {
    const form = $("auth");
    if (result.kind === "error") {
      alert("auth-error", explainOIDC(result.value));
      $("auth-error").dataset.code = result.value;
      return;
    }
    if (result.kind !== "oidc") return;
    if (this.#client.loggedIn) return; // signed in meanwhile (another tab): the code is left unused
    form.dataset.oidc = "pending";
    try {
      await this.pause(async () => {
        const user = await this.#idp.exchange(result.value);
        form.dataset.oidc = "done";
        if (user instanceof MfaRequired) this.#secondStep(user);
      });
    } catch (err) {
      form.dataset.oidc = "failed";
      alert("auth-error", explainOIDC(err));
      $("auth-error").dataset.code = err.code ?? "";
    }
  }

  #renderProviders(list) {
    $("provider-list").replaceChildren(...list.map((p) => {
      const button = el("button", { type: "button", class: "provider", "data-provider": p.id }, `Sign in with ${p.name}`);
      button.addEventListener("click", () => busy(button, async () => {
        alert("auth-error", "");
        try {
          await this.#idp.start(p.id); // the browser leaves for the provider's page
        } catch (err) {
          alert("auth-error", explainOIDC(err));
        }
      }));
      return button;
    }));
    $("alternatives").hidden = !supported() && list.length === 0;
  }

  async #withPasskey() {
    alert("auth-error", "");
    try {
      await this.pause(() => this.#pk.login()); // the client's "login" event shows the page
    } catch (err) {
      alert("auth-error", describe(err));
    }
  }

  /** Starts the autofill's request, when the form shows and the browser
   * offers passkeys in the autofill, unless one is running. */
  async #startAutofill() {
    if (!this.#wanted || this.#paused || this.#off || this.#autofill) return;
    const email = $("email");
    if (!(await autofillSupported())) {
      email.dataset.autofill = "unsupported";
      return;
    }
    if (!this.#wanted || this.#paused || this.#autofill) return; // changed while the browser answered
    const ctl = new AbortController();
    email.dataset.autofill = "waiting";
    const done = this.#pk.login({ mediation: "conditional", signal: ctl.signal }).then(
      () => "in",
      (err) => {
        if (ctl.signal.aborted || err?.name === "AbortError") return "aborted";
        if (err?.status === 503) { // the server has passkeys off (no relying party)
          this.#off = true;
          $("passkey-login").hidden = true;
          return "unavailable";
        }
        // The server refused a passkey the person picked; the browser's own
        // refusals (timed out, nothing picked) need no word.
        if (err?.status >= 400) alert("auth-error", describe(err));
        return "failed";
      },
    ).then((outcome) => {
      if (this.#autofill?.ctl === ctl) this.#autofill = null;
      email.dataset.autofill = outcome;
    });
    this.#autofill = { ctl, done };
  }
}
