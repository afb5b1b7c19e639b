// The re-authentication prompt of the demo page: a sensitive action (the
// second factor's changes, and later passkeys and linked accounts) that
// answers REAUTHENTICATION_REQUIRED asks the person to confirm with its
// password or a second factor, in the dialog #reauth, and is then retried
// (client.withReauthentication).

import { $, alert, describe } from "./view.js";

/** How each method is offered, in the order the server lists them. */
const choices = {
  password: { label: "Password", option: "your password", type: "password", autocomplete: "current-password", inputmode: "text" },
  totp: { label: "Code from your app", option: "a code from your authenticator app", type: "text", autocomplete: "one-time-code", inputmode: "numeric" },
  recovery_code: { label: "Recovery code", option: "a recovery code", type: "text", autocomplete: "off", inputmode: "text" },
};

/**
 * Creates the prompt that withReauthentication calls: it shows the dialog
 * with the methods the server offers (a second factor first, since a
 * password alone does not raise the session's level), and resolves the
 * proof, or null when the person cancels.
 * @returns {(methods: string[], error: Error|null) => Promise<object|null>}
 */
export function reauthPrompt() {
  const dialog = $("reauth");
  let settle = null;
  const finish = (proof) => {
    const done = settle;
    settle = null;
    $("reauth-secret").value = "";
    if (dialog.open) dialog.close();
    done?.(proof);
  };
  $("reauth-method").addEventListener("change", () => choose($("reauth-method").value));
  $("reauth-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const method = $("reauth-method").value;
    const secret = $("reauth-secret").value;
    finish(method === "password" ? { password: secret } : { method, code: secret.trim() });
  });
  $("reauth-cancel").addEventListener("click", () => finish(null));
  dialog.addEventListener("cancel", () => finish(null)); // Escape (close() fires no "cancel")
  return (methods, error) => new Promise((resolve) => {
    settle = resolve;
    const offered = methods.filter((m) => choices[m]);
    offered.sort((a, b) => (a === "password") - (b === "password"));
    $("reauth-method").replaceChildren(...offered.map((m) => new Option(choices[m].option, m)));
    dialog.dataset.methods = offered.join(" ");
    alert("reauth-error", error ? describe(error) : "");
    if (!dialog.open) dialog.showModal();
    choose(offered[0] ?? "password");
  });
}

/** Sets the dialog's field up for method. */
function choose(method) {
  const c = choices[method] ?? choices.password;
  $("reauth-method").value = method;
  $("reauth-label").textContent = c.label;
  const input = $("reauth-secret");
  input.type = c.type;
  input.autocomplete = c.autocomplete;
  input.inputMode = c.inputmode;
  input.value = "";
  input.focus();
}
