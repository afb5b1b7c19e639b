// The re-authentication prompt of the demo page: a sensitive action (the
// second factor's changes, passkeys, connected accounts) that answers
// REAUTHENTICATION_REQUIRED asks the person to confirm with a passkey, a
// code, or its password, in the dialog #reauth, and is then retried
// (client.withReauthentication).

import { $, alert, showError } from "./view.js";
import { passkeys, supported } from "/client/passkeys.js";

/** How each method is offered, in the order the dialog lists them. */
const choices = {
  webauthn: { label: "", option: "a passkey" },
  totp: { label: "Code from your app", option: "a code from your authenticator app", type: "text", autocomplete: "one-time-code", inputmode: "numeric" },
  recovery_code: { label: "Recovery code", option: "a recovery code", type: "text", autocomplete: "off", inputmode: "text" },
  password: { label: "Password", option: "your password", type: "password", autocomplete: "current-password", inputmode: "text" },
};
const order = Object.keys(choices);

/**
 * Creates the prompt that withReauthentication calls: it shows the dialog
 * with the methods the server offers (a passkey or a code first, since a
 * password alone does not raise the session's level), and resolves the
 * proof, or null when the person cancels. A passkey's ceremony runs in the
 * dialog: a cancelled one is explained there, and the person may try again.
 * @param {import("/client/actionkit.js").ActionkitClient} client
 * @returns {(methods: string[], error: Error|null) => Promise<object|null>}
 */
export function reauthPrompt(client) {
  const dialog = $("reauth");
  let settle = null;
  let chosen = null; // the method the person picked, kept when a proof is refused
  const finish = (proof) => {
    const done = settle;
    settle = null;
    $("reauth-secret").value = "";
    if (dialog.open) dialog.close();
    done?.(proof);
  };
  $("reauth-method").addEventListener("change", () => {
    chosen = $("reauth-method").value;
    choose(chosen);
  });
  $("reauth-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const method = $("reauth-method").value;
    const secret = $("reauth-secret").value;
    if (method !== "webauthn") {
      finish(method === "password" ? { password: secret } : { method, code: secret.trim() });
      return;
    }
    $("reauth-submit").disabled = true;
    $("reauth-submit").setAttribute("aria-busy", "true");
    alert("reauth-error", "");
    try {
      const proof = await passkeys(client).proof();
      if (settle) finish(proof);
    } catch (err) {
      if (!err.sessionEnded) showError("reauth-error", err);
    } finally {
      $("reauth-submit").disabled = false;
      $("reauth-submit").removeAttribute("aria-busy");
    }
  });
  $("reauth-cancel").addEventListener("click", () => finish(null));
  dialog.addEventListener("cancel", () => finish(null)); // Escape (close() fires no "cancel")
  return (methods, error) => new Promise((resolve) => {
    settle = resolve;
    const offered = methods.filter((m) => choices[m] && (m !== "webauthn" || supported()));
    offered.sort((a, b) => order.indexOf(a) - order.indexOf(b));
    $("reauth-method").replaceChildren(...offered.map((m) => new Option(choices[m].option, m)));
    dialog.dataset.methods = offered.join(" ");
    showError("reauth-error", error);
    const none = offered.length === 0;
    $("reauth-none").hidden = !none;
    $("reauth-choice").hidden = none;
    $("reauth-submit").hidden = none;
    if (!dialog.open) dialog.showModal();
    if (none) $("reauth-field").hidden = true;
    else choose(error && offered.includes(chosen) ? chosen : (chosen = offered[0]));
  });
}

/** Sets the dialog's field up for method. */
function choose(method) {
  const c = choices[method] ?? choices.password;
  $("reauth-method").value = method;
  const typed = method !== "webauthn";
  $("reauth-field").hidden = !typed;
  $("reauth-submit").textContent = typed ? "Confirm" : "Use a passkey";
  if (!typed) {
    $("reauth-submit").focus();
    return;
  }
  $("reauth-label").textContent = c.label;
  const input = $("reauth-secret");
  input.type = c.type;
  input.autocomplete = c.autocomplete;
  input.inputMode = c.inputmode;
  input.value = "";
  input.focus();
}
