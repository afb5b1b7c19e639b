// A login's second step, for the demo page and the admin console: when the
// password was right but the account has a second factor, login() resolves
// an MfaRequired, and the form #mfa-form asks for a code of the
// authenticator app or a recovery code before the session opens.

import { $, alert, describe } from "/demo/view.js";

/** What the form asks for, by method. */
const asks = {
  totp: {
    prompt: "Your account has two-factor authentication: enter the 6-digit code your authenticator app shows.",
    label: "Code from your app", inputmode: "numeric", other: "Use a recovery code instead",
  },
  recovery_code: {
    prompt: "Enter one of the recovery codes you saved when you set two-factor up. Each works once.",
    label: "Recovery code", inputmode: "text", other: "Use a code from your app instead",
  },
};

/** The codes that mean the step is over: log in again. */
const over = /_BAD_REQUEST_INVALID_MFA_TOKEN$/;

/**
 * SecondStep runs #mfa-form. back() is called when the form gives way to
 * the log-in form again (the person went back, or the step expired).
 */
export class SecondStep {
  #client;
  #back;
  #challenge = null;
  #method = "totp";

  /**
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{back: (message?: string) => void}} page
   */
  constructor(client, page) {
    this.#client = client;
    this.#back = page.back;
    $("mfa-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.#submit();
    });
    $("mfa-switch").addEventListener("click", () => this.#use(this.#method === "totp" ? "recovery_code" : "totp"));
    $("mfa-back").addEventListener("click", () => this.leave());
  }

  /** Whether the form is showing. */
  get active() {
    return this.#challenge !== null;
  }

  /**
   * Shows the form for challenge, in place of the log-in form.
   * @param {import("/client/actionkit.js").MfaRequired} challenge
   */
  start(challenge) {
    this.#challenge = challenge;
    $("auth-form").hidden = true;
    $("mfa-form").hidden = false;
    $("mfa-form").dataset.methods = challenge.methods.join(" ");
    this.#use(challenge.methods.includes("totp") ? "totp" : "recovery_code");
  }

  /** Hides the form and forgets the challenge; message, if any, is shown
   * on the log-in form. */
  leave(message) {
    if (!this.#challenge) return;
    this.#challenge = null;
    $("mfa-form").hidden = true;
    $("mfa-code").value = "";
    alert("mfa-error", "");
    this.#back(message);
  }

  #use(method) {
    const ask = asks[method];
    this.#method = method;
    $("mfa-form").dataset.method = method;
    $("mfa-prompt").textContent = ask.prompt;
    $("mfa-label").textContent = ask.label;
    $("mfa-code").inputMode = ask.inputmode;
    $("mfa-code").value = "";
    const other = method === "totp" ? "recovery_code" : "totp";
    $("mfa-switch").textContent = asks[method].other;
    $("mfa-switch").hidden = !this.#challenge.methods.includes(other);
    alert("mfa-error", "");
    $("mfa-code").focus();
  }

  async #submit() {
    const challenge = this.#challenge;
    if (!challenge) return;
    if (Date.now() >= challenge.expiresAt) {
      this.leave("This log-in took too long: enter your password again.");
      return;
    }
    $("mfa-submit").disabled = true;
    try {
      await this.#client.verifyMfa(challenge.mfaToken, this.#method, $("mfa-code").value.trim());
      this.leave(); // the client's "login" event shows the page
    } catch (err) {
      if (over.test(err.code)) this.leave("This log-in expired or had too many wrong codes: enter your password again.");
      else alert("mfa-error", describe(err));
    } finally {
      $("mfa-submit").disabled = false;
    }
  }
}
