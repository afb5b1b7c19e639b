// The account parts of the demo page: a forgotten password, the links of
// the reset and verification mails, a password change, the address's
// verification, and where the user is logged in.

import { $, el, text, alert, describe, date, fill } from "./view.js";

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
  const m = /^#(reset|verify)=([^&]*)$/.exec(location.hash);
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
    this.#wireForgot();
    this.#wireReset();
    this.#wirePassword();
    $("resend-verification").addEventListener("click", () => this.#resend());
  }

  /** Handles a mail's link, if the page was opened with one. */
  async handleLink(link) {
    if (!link) return;
    $("link").hidden = false;
    $("reset-form").hidden = true;
    alert("link-result", "");
    const result = $("link-result");
    result.classList.remove("error");
    delete result.dataset.state;
    delete result.dataset.code;
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
        alert("forgot-error", "");
        try {
          await this.#client.requestPasswordReset($("forgot-email").value.trim());
          alert("forgot-result", "If this address belongs to an account, a link to set a new password is on its way. It works for 30 minutes.");
        } catch (err) {
          alert("forgot-error", describe(err));
        }
      });
    });
  }

  #wireReset() {
    $("reset-form").addEventListener("submit", (e) => {
      e.preventDefault();
      busy($("reset-submit"), async () => {
        alert("reset-error", "");
        try {
          await this.#client.resetPassword($("reset-form").dataset.token, $("reset-password").value);
          $("reset-form").hidden = true;
          $("reset-password").value = "";
          alert("link-result", "Your password is set. Every session of your account ended: log in with the new password.");
          $("link-result").dataset.state = "reset";
          this.#onLogin.showLogin();
        } catch (err) {
          if (err.code === "BAD_REQUEST_INVALID_ARGUMENTS") {
            alert("reset-error", describe(err));
          } else {
            $("reset-form").hidden = true;
            this.#linkError(err);
          }
        }
      });
    });
  }

  #wirePassword() {
    $("password-form").addEventListener("submit", (e) => {
      e.preventDefault();
      busy($("password-submit"), async () => {
        alert("password-result", "");
        alert("password-error", "");
        try {
          await this.#client.withReauthentication(
            () => this.#client.changePassword($("current-password").value, $("new-password").value), this.#onLogin.prompt);
          $("current-password").value = "";
          $("new-password").value = "";
          alert("password-result", "Your password is changed. Your other sessions ended; this one goes on.");
          $("password-form").dataset.changed = String(Number($("password-form").dataset.changed ?? 0) + 1);
          this.loadDevices();
        } catch (err) {
          if (!err.sessionEnded) alert("password-error", describe(err));
        }
      });
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
      el("strong", {}, s.client === "oauth" ? `${s.oauthClientName ?? "An application"} · signed in with your account`
        : `${s.client === "app" ? "App" : "Browser"} · ${s.platform}`,
        ...(s.current ? [el("span", { class: "badge" }, "this device")] : [])),
      el("span", { class: "meta" }, s.userAgent ?? "unknown browser"),
      el("span", { class: "meta" }, `from ${s.ipAddress ?? "?"} · since ${date(s.createdAt)} · last used ${date(s.lastUsedAt)}`),
      el("span", { class: "meta how" }, signedInWith(s)));
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

/** Runs fn with button disabled. */
export async function busy(button, fn) {
  button.disabled = true;
  try {
    await fn();
  } finally {
    button.disabled = false;
  }
}
