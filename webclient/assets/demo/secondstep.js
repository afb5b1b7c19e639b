// A login's second step, for the demo page and the admin console: when the
// password was right but the account has a second factor, login() resolves
// an MfaRequired, and the form #mfa-form asks for a code of the
// authenticator app or a recovery code, or offers the account's passkeys
// ("Use a passkey"), before the session opens.

import { $, alert, showError } from "/demo/view.js";
import { passkeys, supported } from "/client/passkeys.js";

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

/** The authenticator codes this page saw accepted lately (code → when),
 * in memory only. The server answers INVALID_TOTP_CODE alike for a wrong
 * code and for one of a step already used; the page, which knows the
 * code it just used (to turn two-factor on, say), can tell the person to
 * wait for the next one. */
const accepted = new Map();
const STEP_MS = 30_000;

/** Records that code was accepted now. */
export function rememberCode(code) {
  const now = Date.now();
  for (const [c, at] of accepted) if (now - at > 3 * STEP_MS) accepted.delete(c);
  accepted.set(code, now);
}

/** The page's words for a refused code: "wait for the next one" when it
 * is a code this page saw accepted in the last steps. */
export function refusedCode(err, code) {
  const at = accepted.get(code);
  if (/_INVALID_TOTP_CODE$/.test(err?.code ?? "") && at !== undefined && Date.now() - at <= 3 * STEP_MS) {
    return { code: err.code, requestId: err.requestId, status: err.status, name: "UsedCode",
      words: "This code was used a moment ago, and each code works once. Wait for the next code your app shows (codes change every 30 seconds), then enter it." };
  }
  return err;
}

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
    $("mfa-passkey").addEventListener("click", () => this.#passkey());
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
    const withKey = challenge.methods.includes("webauthn") && supported();
    $("mfa-passkey").hidden = !withKey;
    const codes = challenge.methods.filter((m) => asks[m]);
    $("mfa-code-part").hidden = codes.length === 0;
    $("mfa-passkey").classList.toggle("primary", codes.length === 0);
    if (codes.length) {
      this.#use(codes.includes("totp") ? "totp" : "recovery_code");
      return;
    }
    // Passkeys only: nothing to type.
    this.#method = "webauthn";
    $("mfa-form").dataset.method = "webauthn";
    $("mfa-prompt").textContent = withKey
      ? "Your account has two-step verification with a passkey: confirm with one of yours."
      : "Your account's second factor is a passkey, which this browser cannot use: log in on a browser that can.";
    $("mfa-switch").hidden = true;
    alert("mfa-error", "");
    if (withKey) $("mfa-passkey").focus();
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

  #submit() {
    if (this.#method === "webauthn") return this.#passkey();
    const code = $("mfa-code").value.trim();
    return this.#finish($("mfa-submit"), async (token) => {
      try {
        await this.#client.verifyMfa(token, this.#method, code);
      } catch (err) {
        throw this.#method === "totp" ? refusedCode(err, code) : err;
      }
      if (this.#method === "totp") rememberCode(code);
    }, "Verifying…");
  }

  #passkey() {
    return this.#finish($("mfa-passkey"), (token) => passkeys(this.#client).verify(token));
  }

  /** Finishes the login with verify(mfaToken), button disabled meanwhile. */
  async #finish(button, verify, label) {
    const challenge = this.#challenge;
    if (!challenge) return;
    if (Date.now() >= challenge.expiresAt) {
      this.leave("This log-in took too long: enter your password again.");
      return;
    }
    const before = button.textContent;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    if (label) button.textContent = label;
    alert("mfa-error", "");
    try {
      await verify(challenge.mfaToken);
      this.leave(); // the client's "login" event shows the page
    } catch (err) {
      if (over.test(err.code ?? "")) this.leave("This log-in expired or had too many wrong codes: enter your password again.");
      else showError("mfa-error", err);
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
      button.textContent = before;
    }
  }
}
