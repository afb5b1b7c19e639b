// The "Connected apps" panel of the demo page: the applications the user
// signed in to with their account ("Sign in with actionkit"), what each
// may do, and a button to disconnect one, with a confirmation step: its
// consent and every session of it end at once (/v1/users/oauth/revokeapp).

import { $, el, alert, describe, date, fill } from "./view.js";
import { busy } from "./account.js";
import { scopeText } from "./consent.js";

/**
 * ConnectedApps runs the panel #apps, shown while the user has connected
 * applications. Its data-state is loading, ok or failed, data-count the
 * number of applications (for the browser tests).
 */
export class ConnectedApps {
  #client;
  #changed;

  /**
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{changed: () => void}} page changed is called after a
   *   disconnection (the session list changes).
   */
  constructor(client, page) {
    this.#client = client;
    this.#changed = page.changed;
  }

  /** The page is logged in: lists the applications. */
  shown() {
    this.load();
  }

  /** The page logged out. */
  hidden() {
    fill("app-list", [], "Loading…");
    $("apps").dataset.state = "loading";
    $("apps").hidden = true;
    alert("apps-result", "");
    alert("apps-error", "");
  }

  /** Reads and lists the applications. */
  async load() {
    const panel = $("apps");
    try {
      const { apps } = await this.#client.api("/v1/users/oauth/apps");
      fill("app-list", apps.map((a) => this.#item(a)), "No application uses your account.");
      panel.dataset.count = String(apps.length);
      panel.dataset.state = "ok";
      panel.hidden = apps.length === 0 && $("apps-result").hidden && $("apps-error").hidden;
    } catch (err) {
      if (err.sessionEnded) return;
      panel.dataset.state = "failed";
      panel.hidden = false;
      alert("apps-error", describe(err));
    }
  }

  #item(app) {
    const what = el("div", { class: "what" },
      el("strong", {}, app.name),
      el("span", { class: "meta app-scopes" }, app.scopes.map(scopeText).join(" · ")),
      el("span", { class: "meta" }, `connected ${date(app.createdAt)} · ` +
        (app.lastUsedAt ? `last used ${date(app.lastUsedAt)}` : "not used yet")));
    const open = el("button", { type: "button", class: "small danger", "data-action": "disconnect" }, "Disconnect");
    const confirm = el("div", { class: "confirm", hidden: "" },
      el("p", { class: "hint" }, `Disconnect ${app.name}? It is signed out at once and must ask again to use your account.`),
      el("div", { class: "actions" },
        el("button", { type: "button", class: "small danger", "data-action": "confirm" }, `Disconnect ${app.name}`),
        el("button", { type: "button", class: "small", "data-action": "cancel" }, "Cancel")));
    const [yes, no] = confirm.querySelectorAll("button");
    open.addEventListener("click", () => {
      open.hidden = true;
      confirm.hidden = false;
      no.focus();
    });
    no.addEventListener("click", () => {
      confirm.hidden = true;
      open.hidden = false;
      open.focus();
    });
    yes.addEventListener("click", () => busy(yes, async () => {
      alert("apps-result", "");
      alert("apps-error", "");
      try {
        await this.#client.api("/v1/users/oauth/revokeapp", { clientId: app.clientId });
        alert("apps-result", `Disconnected ${app.name}: it is signed out of your account.`);
        $("apps-result").dataset.clientId = app.clientId;
        this.#changed();
      } catch (err) {
        if (err.sessionEnded) return;
        alert("apps-error", describe(err));
      }
      await this.load();
    }));
    return el("li", { class: "device", "data-client-id": app.clientId }, what, open, confirm);
  }
}
