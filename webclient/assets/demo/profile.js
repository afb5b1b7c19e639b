// The parts of the demo page's account that CONTRACT §23 and §19 add: the
// profile's name, time zone and language (/v1/users/update), a new e-mail
// address (/v1/users/requestemailchange, and the links of its mails:
// #email-change=<token> → confirmemailchange, #email-revert=<token> →
// revertemailchange), downloading the account's data (/v1/users/export),
// deleting the account (/v1/users/delete), and the apps given access
// through "Sign in with actionkit" (/v1/users/oauth/apps, revokeapp).
// Everything sensitive goes through the re-authentication prompt.

import { $, el, alert, showError, busy, when, fill } from "./view.js";

/** The page's words for the link codes of an e-mail change. */
const linkWords = {
  USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN: "This confirmation link is invalid, expired, replaced by a newer one, or already used. Ask for a new one under Profile.",
  USER_BAD_REQUEST_INVALID_EMAIL_REVERT_TOKEN: "This link is invalid, expired or already used.",
  USER_BAD_REQUEST_USER_ALREADY_EXISTS: "Another account uses this address now, so the change cannot be made.",
};

const profileFields = { firstName: "pf-first-name", lastName: "pf-last-name", timezone: "pf-timezone", locale: "pf-locale" };
const emailFields = { newEmail: "new-email" };

/**
 * ProfilePanel runs #profile-edit, #email-change, #export and #delete, and
 * the e-mail change's links. #profile-edit's data-state is idle, saved or
 * failed (for the browser tests).
 */
export class ProfilePanel {
  #client;
  #prompt;
  #changed;
  #link;
  #user = null; // the profile as last shown
  #shown = {}; // input id -> the value the form last showed in it

  /**
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{prompt: Function, changed: (user: object) => void,
   *   link: (title: string, message: string, state: string, code?: string) => void}} page
   *   prompt is the re-authentication prompt; changed shows the user's
   *   new profile; link shows a link's outcome in the page's link card.
   */
  constructor(client, page) {
    this.#client = client;
    this.#prompt = page.prompt;
    this.#changed = page.changed;
    this.#link = page.link;
    try {
      $("pf-timezones").replaceChildren(...Intl.supportedValuesOf("timeZone").map((z) => el("option", { value: z })));
    } catch {
      // An older browser: the field takes any name.
    }
    $("profile-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.#save();
    });
    $("email-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.#requestEmailChange();
    });
    $("export-download").addEventListener("click", () => this.#export());
    $("delete-open").addEventListener("click", () => {
      $("delete-form").hidden = false;
      $("delete-open").hidden = true;
      $("delete-cancel").focus();
    });
    $("delete-cancel").addEventListener("click", () => this.#closeDelete());
    $("delete-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.#delete();
    });
  }

  /**
   * Shows user's values in the form, leaving alone a field the person
   * has edited since the form last showed it: a read that answers late
   * (a slow network, a busy server) never wipes what was just typed.
   */
  render(user) {
    if (!user) return;
    this.#user = user;
    for (const [id, value] of [["pf-first-name", user.firstName], ["pf-last-name", user.lastName], ["pf-timezone", user.timezone]]) {
      const input = $(id);
      if (input.value === (this.#shown[id] ?? "")) input.value = value ?? "";
      this.#shown[id] = value ?? "";
    }
    const locale = $("pf-locale");
    if (user.locale && ![...locale.options].some((o) => o.value === user.locale)) locale.append(new Option(user.locale, user.locale));
    if (user.locale) locale.value = user.locale;
  }

  /** The page is logged in. */
  shown() {
    $("profile-edit").dataset.state = "idle";
  }

  /** The page logged out: forgets what was typed. */
  hidden() {
    this.#user = null;
    this.#shown = {};
    for (const id of ["pf-first-name", "pf-last-name", "pf-timezone", "new-email"]) $(id).value = "";
    for (const id of ["profile-result", "email-result", "export-result"]) alert(id, "");
    showError("profile-error", null, profileFields);
    showError("email-error", null, emailFields);
    showError("export-error", null);
    showError("delete-error", null);
    this.#closeDelete();
  }

  /** Handles #email-change=<token> and #email-revert=<token>. */
  async handleLink(link) {
    const change = link.kind === "email-change";
    const title = change ? "Confirm your new address" : "Undo the change of your address";
    this.#link(title, "One moment…", "pending");
    try {
      await this.#client.call(change ? "/v1/users/confirmemailchange" : "/v1/users/revertemailchange", { token: link.token });
      this.#link(title, change
        ? "Your e-mail address is changed. Every session of your account ended: log in with the new address."
        : "Your former address is back, every session of your account ended and its password no longer works: check your mail to choose a new password.",
      change ? "email-changed" : "email-reverted");
    } catch (err) {
      this.#link(title, linkWords[err?.code] ?? err?.message ?? String(err), "failed", err?.code);
    }
  }

  #save() {
    const user = this.#user ?? this.#client.user ?? {};
    const args = {};
    for (const [name, id] of Object.entries(profileFields)) {
      const value = $(id).value.trim();
      if (value !== (user[name] ?? "")) args[name] = value;
    }
    alert("profile-result", "");
    showError("profile-error", null, profileFields);
    if (Object.keys(args).length === 0) {
      alert("profile-result", "Nothing to save: no value changed.");
      return;
    }
    return busy($("profile-save"), async () => {
      try {
        const { user: updated } = await this.#client.api("/v1/users/update", args);
        this.#changed(updated);
        alert("profile-result", "Saved.");
        $("profile-edit").dataset.state = "saved";
      } catch (err) {
        if (err.sessionEnded) return;
        $("profile-edit").dataset.state = "failed";
        if (err.code === "USER_BAD_REQUEST_INVALID_TIMEZONE") showError("profile-error", { fields: { timezone: "is not a time zone this server knows (e.g. Europe/Paris)" } }, profileFields);
        else showError("profile-error", err, profileFields);
      }
    }, "Saving…");
  }

  #requestEmailChange() {
    const newEmail = $("new-email").value.trim();
    alert("email-result", "");
    showError("email-error", null, emailFields);
    return busy($("email-submit"), async () => {
      try {
        await this.#client.withReauthentication(() => this.#client.api("/v1/users/requestemailchange", { newEmail }), this.#prompt);
        alert("email-result", `A link is on its way to ${newEmail}: open it within an hour to confirm. Your address stays as it is until then.`);
        $("new-email").value = "";
      } catch (err) {
        if (!err.sessionEnded) showError("email-error", err, emailFields);
      }
    }, "Sending…");
  }

  #export() {
    alert("export-result", "");
    showError("export-error", null);
    return busy($("export-download"), async () => {
      try {
        const { export: data } = await this.#client.withReauthentication(() => this.#client.api("/v1/users/export"), this.#prompt);
        const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2) + "\n"], { type: "application/json" }));
        const day = new Date().toISOString().slice(0, 10);
        el("a", { href: url, download: `actionkit-data-${day}.json` }).click();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
        alert("export-result", "Your data is downloaded.");
      } catch (err) {
        if (!err.sessionEnded) showError("export-error", err);
      }
    }, "Preparing…");
  }

  #closeDelete() {
    $("delete-form").hidden = true;
    $("delete-open").hidden = false;
  }

  #delete() {
    showError("delete-error", null);
    return busy($("delete-submit"), async () => {
      try {
        await this.#client.withReauthentication(() => this.#client.api("/v1/users/delete"), this.#prompt);
        // Every session of the account ended with it: this tab logs out.
        await this.#client.logout().catch(() => {});
        alert("banner", "Your account is deleted and every session ended. Changed your mind? Contact support soon: after the grace period it is erased for good.");
      } catch (err) {
        if (!err.sessionEnded) showError("delete-error", err);
      }
    }, "Deleting…");
  }
}
