// The "Activity" part of the demo page's account: the user's own security
// log (/v1/users/securityevents), newest first, in words, with where and
// on what each happened and a "Show more" for older pages.

import { $, el, showError, busy, when, deviceName, place, fill } from "./view.js";

/** The words of each event type, as the user reads them. */
const words = {
  register: "Account created",
  login: "Logged in",
  login_failed: "Failed log-in attempt",
  logout: "Logged out",
  logoutall: "Logged out everywhere",
  refresh_theft: "A stolen session was detected and ended",
  password_changed: "Password changed",
  password_reset_requested: "Password reset requested",
  password_reset: "Password reset",
  email_verified: "E-mail address confirmed",
  session_revoked: "A session was ended",
  account_deactivated: "Account deactivated",
  account_activated: "Account activated",
  account_deleted: "Account deleted",
  account_restored: "Account restored",
  mfa_enabled: "Two-factor authentication turned on",
  mfa_disabled: "Two-factor authentication turned off",
  mfa_challenge_failed: "Wrong two-factor code entered",
  recovery_code_used: "Recovery code used",
  recovery_codes_regenerated: "New recovery codes made",
  mfa_reset: "Two-factor authentication reset by support",
  reauthenticated: "Identity confirmed for a sensitive change",
  identity_linked: "Account of another service connected",
  identity_unlinked: "Account of another service disconnected",
  identity_login_failed: "Failed sign-in with another service",
  passkey_added: "Passkey added",
  passkey_removed: "Passkey removed",
  passkey_warning: "A passkey was used whose counter did not advance",
  oauth_app_connected: "App given access",
  oauth_app_revoked: "App access removed",
  email_changed: "E-mail address changed",
  email_change_reverted: "E-mail address change undone",
  user_updated: "Profile changed",
};

/** Event types a person should look at twice. */
const alarming = new Set(["login_failed", "refresh_theft", "mfa_challenge_failed", "identity_login_failed", "passkey_warning"]);

/** The words of an event type. */
export function eventWords(type) {
  return words[type] ?? type.replaceAll("_", " ");
}

/**
 * ActivityPanel runs #activity. Its data-state is loading, ok or failed and
 * data-count the number of events listed (for the browser tests).
 */
export class ActivityPanel {
  #client;
  #events = [];
  #cursor = null;

  /** @param {import("/client/actionkit.js").ActionkitClient} client */
  constructor(client) {
    this.#client = client;
    $("activity-more").addEventListener("click", () => busy($("activity-more"), () => this.#page(true), "Loading…"));
  }

  /** The page is logged in: lists the newest events. */
  shown() {
    this.load();
  }

  /** The page logged out: forgets the list. */
  hidden() {
    this.#events = [];
    this.#cursor = null;
    fill("activity-list", [], "Loading…");
    $("activity").dataset.state = "loading";
    delete $("activity").dataset.count;
    $("activity-more").hidden = true;
    showError("activity-error", null);
  }

  /** Reads the newest page again. */
  load() {
    return this.#page(false);
  }

  async #page(more) {
    const panel = $("activity");
    try {
      const page = await this.#client.api("/v1/users/securityevents", { limit: 20, ...(more ? { cursor: this.#cursor } : {}) });
      this.#events = more ? this.#events.concat(page.events) : page.events;
      this.#cursor = page.nextCursor;
      fill("activity-list", this.#events.map((e) => this.#item(e)), "Nothing yet.");
      panel.dataset.count = String(this.#events.length);
      panel.dataset.state = "ok";
      $("activity-more").hidden = !this.#cursor;
      showError("activity-error", null);
    } catch (err) {
      if (err.sessionEnded) return;
      panel.dataset.state = "failed";
      showError("activity-error", err);
    }
  }

  #item(e) {
    const device = deviceName(e.userAgent);
    const by = e.data?.adminId ? " · by support" : "";
    const mine = e.sessionId && e.sessionId === this.#client.sessionId ? " · this session" : "";
    return el("li", { "data-type": e.type, class: alarming.has(e.type) ? "alarming" : "" },
      el("strong", {}, eventWords(e.type)),
      el("span", { class: "meta" }, when(e.createdAt), ` · ${device ? `${device}, ` : ""}from ${place(e.ipAddress)}${mine}${by}`));
  }
}
