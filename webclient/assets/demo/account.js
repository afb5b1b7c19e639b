// The account parts of the demo page: a forgotten password, the links of
// the reset and verification mails, a password change, the address's
// verification, and where the user is logged in.

import { $, el, text, alert, describe, showError, busy, when, deviceName, place, fill, date } from "./view.js";

export { busy };

/** The messages of the one-time-token codes, in the page's words. */
const linkErrors = {
  USER_BAD_REQUEST_INVALID_RESET_TOKEN: "This reset link is invalid, expired or already used. Ask for a new one with “Forgot your password?”.",
  USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN: "This verification link is invalid, expired or already used. Log in and ask for a new one.",
};

/**
 * Reads a mail's link from the address bar (#reset=<token> or
 * #verify=<token>) and removes it at once, so that the token stays neither
 * in the address bar nor in the history.
 * @returns {{kind: string, token: string}|null}
 */
export function takeLink() {
  const m = /^#(reset|verify|email-change|email-revert)=([^&]*)$/.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return { kind: m[1], token: decodeURIComponent(m[2]) };
}

/** Explains a failed call, with the page's words for the link codes. */
function explain(err) {
  return linkErrors[err?.code] ?? describe(err);
}

/**
 * Account wires the account parts of the page to client (the page's
 * ActionkitClient). ready reports when the page's account state changes,
 * for the browser tests (data-* attributes).
 */
export class Account {
  #client;
  #onLogin;

  /**
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{showLogin: () => void, profileChanged: () => void, prompt: Function}} page
   *   showLogin puts up the log-in form; profileChanged reloads the
   *   profile; prompt is the re-authentication prompt (an account with a
   *   second factor changes its password only in a session that used it).
   */
  constructor(client, page) {
    this.#client = client;
    this.#onLogin = page;
    $("link-close").addEventListener("click", () => this.closeLink());
    this.#wireForgot();
    this.#wireReset();
    this.#wirePassword();
    $("resend-verification").addEventListener("click", () => this.#resend());
  }

  /** Handles a mail's link, if the page was opened with one. */
  async handleLink(link) {
    if (!link) return;
    $("link").hidden = false;
    $("link").dataset.kind = link.kind;
    $("reset-form").hidden = true;
    showError("reset-error", null, { password: "reset-password" });
    alert("link-result", "");
    const result = $("link-result");
    result.classList.remove("error");
    delete result.dataset.state;
    delete result.dataset.code;
    if (link.kind === "email-change" || link.kind === "email-revert") {
      this.#onLogin.emailLink?.(link);
      return;
    }
    if (link.kind === "reset") {
      text("link-title", "Set a new password");
      $("reset-form").hidden = false;
      $("reset-form").dataset.token = link.token;
      $("reset-password").focus();
      return;
    }
    text("link-title", "Confirm your address");
    result.dataset.state = "pending";
    try {
      const user = await this.#client.verifyEmail(link.token);
      alert("link-result", `Thank you: ${user.email} is confirmed.`);
      result.dataset.state = "verified";
      if (this.#client.loggedIn) this.#onLogin.profileChanged();
    } catch (err) {
      this.#linkError(err);
    }
  }

  /** Whether the link card shows an outcome (not a form still to fill). */
  get linkSettled() {
    return !$("link").hidden && $("reset-form").hidden && $("link-result").dataset.state !== "pending";
  }

  /** Hides the link card: its outcome no longer applies (a log-in, Close). */
  closeLink() {
    $("link").hidden = true;
    $("reset-form").hidden = true;
    showError("reset-error", null, { password: "reset-password" });
    alert("link-result", "");
    delete $("link-result").dataset.state;
    delete $("link-result").dataset.code;
    $("link").dataset.kind = "";
  }

  /** Shows the outcome of a link in the link card. */
  linkOutcome(title, message, state) {
    $("link").hidden = false;
    text("link-title", title);
    const result = $("link-result");
    result.classList.remove("error");
    alert("link-result", message);
    result.dataset.state = state;
  }

  /** Shows a link's failure in the link card. */
  linkFailed(title, message, code) {
    this.linkOutcome(title, message, "failed");
    $("link-result").classList.add("error");
    $("link-result").dataset.code = code ?? "";
  }

  #linkError(err) {
    const result = $("link-result");
    alert("link-result", explain(err));
    result.classList.add("error");
    result.dataset.state = "failed";
    result.dataset.code = err?.code ?? "";
  }

  #wireForgot() {
    const show = (forgot) => {
      $("auth-form").hidden = forgot;
      $("forgot-form").hidden = !forgot;
      alert("forgot-result", "");
      alert("forgot-error", "");
      if (forgot) {
        $("forgot-email").value = $("email").value;
        $("forgot-email").focus();
      }
    };
    $("forgot-open").addEventListener("click", () => show(true));
    $("forgot-back").addEventListener("click", () => show(false));
    $("forgot-form").addEventListener("submit", (e) => {
      e.preventDefault();
      busy($("forgot-submit"), async () => {
        showError("forgot-error", null, { email: "forgot-email" });
        alert("forgot-result", "");
        try {
          await this.#client.requestPasswordReset($("forgot-email").value.trim());
          alert("forgot-result", "If this address belongs to an account, a link to set a new password is on its way. It works for 30 minutes.");
        } catch (err) {
          showError("forgot-error", err, { email: "forgot-email" });
        }
      }, "Sending…");
    });
  }

  #wireReset() {
    $("reset-form").addEventListener("submit", (e) => {
      e.preventDefault();
      busy($("reset-submit"), async () => {
        showError("reset-error", null, { password: "reset-password" });
        try {
          await this.#client.resetPassword($("reset-form").dataset.token, $("reset-password").value);
          $("reset-form").hidden = true;
          $("reset-password").value = "";
          alert("link-result", "Your password is set. Every session of your account ended: log in with the new password.");
          $("link-result").dataset.state = "reset";
          this.#onLogin.showLogin();
        } catch (err) {
          if (err.code === "BAD_REQUEST_INVALID_ARGUMENTS") {
            showError("reset-error", err, { password: "reset-password" });
          } else {
            $("reset-form").hidden = true;
            this.#linkError(err);
          }
        }
      }, "Setting the password…");
    });
  }

  #wirePassword() {
    $("password-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const fields = { currentPassword: "current-password", newPassword: "new-password" };
      busy($("password-submit"), async () => {
        alert("password-result", "");
        showError("password-error", null, fields);
        try {
          await this.#client.withReauthentication(
            () => this.#client.changePassword($("current-password").value, $("new-password").value), this.#onLogin.prompt);
          $("current-password").value = "";
          $("new-password").value = "";
          alert("password-result", "Your password is changed. Your other sessions ended; this one goes on.");
          $("password-form").dataset.changed = String(Number($("password-form").dataset.changed ?? 0) + 1);
          this.loadDevices();
        } catch (err) {
          if (err.sessionEnded) return;
          if (err.code?.endsWith("_INVALID_CURRENT_PASSWORD")) showError("password-error", { fields: { currentPassword: "is wrong" }, code: err.code }, fields);
          else showError("password-error", err, fields);
        }
      }, "Changing…");
    });
  }

  async #resend() {
    await busy($("resend-verification"), async () => {
      try {
        await this.#client.requestEmailVerification();
        alert("verify-result", "A verification mail is on its way.");
      } catch (err) {
        if (!err.sessionEnded) alert("verify-result", describe(err));
      }
    });
  }

  /** Shows whether the user's address is verified. */
  renderVerified(user) {
    const verified = Boolean(user?.emailVerifiedAt);
    const node = $("profile-verified");
    node.textContent = !user?.email ? "—" : verified ? `confirmed ${date(user.emailVerifiedAt)}` : "not confirmed yet";
    node.dataset.verified = String(verified);
    $("resend-verification").hidden = !user?.email || verified;
  }

  /** Offers the password change only to an account that has a password
   * (one made through an identity provider has none until it sets one
   * through the reset mail). */
  renderPassword(user) {
    const none = user?.hasPassword === false;
    $("password-form").hidden = none;
    $("password-none").hidden = !none;
  }

  /** Lists where the user is logged in, with a button to end each. */
  async loadDevices() {
    const list = $("device-list");
    list.dataset.state = "loading";
    try {
      const sessions = await this.#client.sessions();
      fill("device-list", sessions.map((s) => this.#device(s)), "No session.");
      list.dataset.state = "ok";
      list.dataset.count = String(sessions.length);
      alert("devices-error", "");
    } catch (err) {
      list.dataset.state = err.sessionEnded ? "ended" : "failed";
      if (!err.sessionEnded) alert("devices-error", describe(err));
    }
  }

  #device(s) {
    const what = el("div", { class: "what" },
      el("strong", { class: "device-name" }, sessionName(s),
        ...(s.current ? [el("span", { class: "badge" }, "this device")] : [])),
      el("span", { class: "meta" }, `from ${place(s.ipAddress)} · last active `, when(s.lastUsedAt), " · since ", when(s.createdAt)),
      el("span", { class: "meta how" }, signedInWith(s)));
    if (s.userAgent) what.title = s.userAgent;
    const button = el("button", { type: "button", class: "small" }, "Log out this device");
    button.addEventListener("click", () => busy(button, async () => {
      try {
        await this.#client.revokeSession(s.id);
        if (!s.current) this.loadDevices();
      } catch (err) {
        if (!err.sessionEnded) alert("devices-error", describe(err));
      }
    }));
    return el("li", { class: "device", "data-session-id": s.id, "data-current": String(s.current),
      "data-methods": (s.authMethods ?? []).join(" "), "data-provider": s.provider ?? "",
      "data-oauth-client": s.oauthClientId ?? "" }, what, button);
  }
}

/** The words of the session's authentication methods. */
const methodWords = { pwd: "password", otp: "authenticator app", rcv: "recovery code", hwk: "passkey" };

/** How a session signed in: "signed in with password + passkey". */
function signedInWith(s) {
  const words = (s.authMethods ?? []).map((m) => (m === "fed" ? s.provider ?? "identity provider" : methodWords[m] ?? m));
  return words.length ? `signed in with ${words.join(" + ")}` : "";
}

/** What a session runs on, in words: "Chrome on Linux", "App on ios". */
export function sessionName(s) {
  if (s.client === "oauth") return `${s.oauthClientName ?? "An application"} · signed in with your account`;
  const named = deviceName(s.userAgent);
  if (s.client === "app") return named ? `App on ${named.replace(/^.* on /, "")}` : `App on ${s.platform}`;
  return named ?? "A browser";
}
