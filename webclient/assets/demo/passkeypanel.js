// The "Passkeys" panel of the demo page: add a passkey of this device (or a
// phone's, or a security key's) under a name, see each with when it was
// added and last used, rename it, remove it. Adding and removing are
// sensitive actions: when the server wants a recent log-in, the
// re-authentication prompt asks for one and the change goes ahead.

import { $, el, alert, describe, when, fill } from "./view.js";
import { busy } from "./account.js";
import { passkeys, supported } from "/client/passkeys.js";

/** The page's words for the refusals a person can act on. */
const refusals = {
  USER_BAD_REQUEST_LAST_SIGNIN_METHOD: "This passkey is your account's last way to sign in, so it stays: " +
    "set a password (“Forgot your password?” on the log-in form sends a link), add another passkey, " +
    "or connect another account first.",
  USER_PASSKEY_NOT_FOUND: "This passkey no longer exists.",
};

/**
 * PasskeysPanel runs the panel #passkeys. Its data-state is loading, ok or
 * failed, and data-count the number of passkeys listed (for the browser
 * tests); #pk-error's data-code is the code of the last refusal.
 */
export class PasskeysPanel {
  #client;
  #pk;
  #prompt;
  #changed;

  /**
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{prompt: Function, changed: () => void}} page prompt is the
   *   re-authentication prompt; changed is called after a passkey was
   *   added or removed (the account's second factor changed).
   */
  constructor(client, page) {
    this.#client = client;
    this.#pk = passkeys(client);
    this.#prompt = page.prompt;
    this.#changed = page.changed;
    $("pk-unsupported").hidden = supported();
    $("pk-add-form").hidden = !supported();
    $("pk-add-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.#sensitive($("pk-add"), async () => {
        const passkey = await this.#pk.register($("pk-name").value.trim());
        $("pk-name").value = "";
        this.#done(`Added “${passkey.name}”: you can sign in with it now.`);
        await this.load();
      });
    });
  }

  /** The page is logged in: lists the passkeys. */
  shown() {
    this.load();
  }

  /** The page logged out. */
  hidden() {
    fill("passkey-list", [], "Loading…");
    $("passkeys").dataset.state = "loading";
    delete $("passkeys").dataset.count;
    alert("pk-result", "");
    this.#error(null);
  }

  /** Reads and lists the passkeys. */
  async load() {
    const panel = $("passkeys");
    try {
      const list = await this.#pk.list();
      fill("passkey-list", list.map((p) => this.#item(p)), "No passkey yet.");
      panel.dataset.count = String(list.length);
      panel.dataset.state = "ok";
    } catch (err) {
      if (err.sessionEnded) return;
      panel.dataset.state = "failed";
      this.#error(err);
    }
  }

  #item(p) {
    const what = el("div", { class: "what" },
      el("strong", { class: "pk-name" }, p.name, ...(p.backedUp ? [el("span", { class: "badge" }, "synced")] : [])),
      el("span", { class: "meta" }, "added ", when(p.createdAt), " · ", ...(p.lastUsedAt ? ["last used ", when(p.lastUsedAt)] : ["never used"])));
    const rename = el("button", { type: "button", class: "small", "data-action": "rename" }, "Rename");
    const remove = el("button", { type: "button", class: "small danger", "data-action": "remove" }, "Remove");
    const item = el("li", { class: "device passkey", "data-passkey-id": p.id, "data-name": p.name }, what,
      el("div", { class: "row-actions" }, rename, remove));
    rename.addEventListener("click", () => this.#renaming(item, p));
    remove.addEventListener("click", () => this.#sensitive(remove, async () => {
      await this.#pk.remove(p.id);
      this.#done(`Removed “${p.name}”: it no longer signs in to your account.`);
      await this.load();
    }));
    return item;
  }

  /** Replaces the item by a form that renames the passkey. */
  #renaming(item, p) {
    const input = el("input", { name: "name", maxlength: "64", "aria-label": "New name", required: "" });
    input.value = p.name;
    const save = el("button", { type: "submit", class: "small primary" }, "Save");
    const cancel = el("button", { type: "button", class: "small" }, "Cancel");
    const form = el("form", { class: "rename", novalidate: "" }, input, el("div", { class: "row-actions" }, save, cancel));
    const before = [...item.childNodes];
    item.replaceChildren(form);
    input.focus();
    cancel.addEventListener("click", () => item.replaceChildren(...before));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      busy(save, async () => {
        try {
          const renamed = await this.#pk.rename(p.id, input.value.trim());
          alert("pk-result", `Renamed to “${renamed.name}”.`);
          this.#error(null);
          await this.load();
        } catch (err) {
          if (!err.sessionEnded) this.#error(err);
        }
      });
    });
  }

  /** Runs a sensitive change, asking for a recent log-in when needed. */
  #sensitive(button, fn) {
    return busy(button, async () => {
      alert("pk-result", "");
      this.#error(null);
      try {
        await this.#client.withReauthentication(fn, this.#prompt);
      } catch (err) {
        if (!err.sessionEnded) this.#error(err);
      }
    });
  }

  #done(message) {
    alert("pk-result", message);
    this.#error(null);
    this.#changed();
  }

  /** Shows err (null: none), with its code in data-code. */
  #error(err) {
    const node = $("pk-error");
    alert("pk-error", err ? refusals[err.code] ?? describe(err) : "");
    if (err) node.dataset.code = typeof err.code === "string" ? err.code : err.name;
    else delete node.dataset.code;
  }
}
