// The "Two-factor authentication" panel of the demo page: set up an
// authenticator app (its QR code, drawn by the server, or its key typed
// in), confirm it with a code, see the recovery codes once (copy or
// download them), make new ones, turn it off. Every change is a sensitive
// action: when the server wants a recent log-in, the re-authentication
// prompt asks for one and the change goes ahead.

import { $, el, text, alert, showError, busy, date } from "./view.js";
import { rememberCode, refusedCode } from "./secondstep.js";

/**
 * TwoFactorPanel runs the panel #two-factor. Its data-state is what it
 * shows: loading, off, setup, codes or on (for the browser tests).
 */
export class TwoFactorPanel {
  #client;
  #prompt;
  #changed;
  #enabled = false;

  /**
   * @param {import("/client/actionkit.js").ActionkitClient} client
   * @param {{prompt: Function, changed: () => void}} page prompt is the
   *   re-authentication prompt; changed is called when other sessions
   *   ended (two-factor turned on).
   */
  constructor(client, page) {
    this.#client = client;
    this.#prompt = page.prompt;
    this.#changed = page.changed;
    this.#wire();
  }

  /** The page is logged in: shows the status. */
  shown() {
    this.load();
  }

  /** The page logged out: forgets any key or code on show. */
  hidden() {
    this.#clear();
    this.#state("loading");
  }

  /** Reads and shows the status. */
  async load() {
    if (!this.#showingCodes()) this.#state("loading");
    try {
      this.#render(await this.#client.mfa.status());
      showError("tf-error", null);
    } catch (err) {
      if (!err.sessionEnded) showError("tf-error", err);
    }
  }

  #render(st) {
    // The app's controls follow the app; passkeys (their own panel) are a
    // second factor too, which the status tells.
    const app = Boolean(st.totpConfirmedAt);
    this.#enabled = app;
    const node = $("tf-status");
    const keys = st.passkeys === 1 ? "your passkey" : `your ${st.passkeys} passkeys`;
    node.textContent = app
      ? `On: an authenticator app since ${date(st.totpConfirmedAt)} · ${st.recoveryCodesRemaining} recovery codes left` +
        (st.passkeys ? ` · and ${keys}` : "")
      : st.enabled ? `On with ${keys}. You can add an authenticator app too.` : "Off: a password alone logs in to your account.";
    node.dataset.enabled = String(st.enabled);
    node.dataset.remaining = String(st.recoveryCodesRemaining);
    if (!this.#showingCodes()) this.#state(app ? "on" : "off"); // the codes stay until saved
  }

  #showingCodes() {
    return $("two-factor").dataset.state === "codes";
  }

  #state(state) {
    $("two-factor").dataset.state = state;
    $("tf-off").hidden = state !== "off";
    $("tf-setup").hidden = state !== "setup";
    $("tf-codes").hidden = state !== "codes";
    $("tf-on").hidden = state !== "on";
    if (state !== "on") $("tf-disable-form").hidden = true;
  }

  /** Runs a sensitive change, asking for a recent log-in when needed. */
  #sensitive(button, fn, label, code) {
    return busy(button, async () => {
      alert("tf-result", "");
      showError("tf-error", null);
      try {
        await this.#client.withReauthentication(fn, this.#prompt);
      } catch (err) {
        if (!err.sessionEnded) showError("tf-error", code ? refusedCode(err, code) : err);
      }
    }, label);
  }

  #wire() {
    $("tf-enroll").addEventListener("click", (e) => this.#sensitive(e.currentTarget, async () => {
      const enrolment = await this.#client.mfa.enrollTotp();
      $("tf-qr").src = enrolment.qrCode;
      $("tf-link").href = enrolment.otpauthUrl;
      $("tf-secret").textContent = enrolment.secret.replace(/(.{4})(?=.)/g, "$1 ");
      $("tf-secret").dataset.secret = enrolment.secret;
      this.#state("setup");
      $("tf-confirm-code").focus();
    }));
    $("tf-cancel").addEventListener("click", () => {
      this.#clear();
      this.#state("off");
    });
    $("tf-confirm-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const code = $("tf-confirm-code").value.trim();
      this.#sensitive($("tf-confirm"), async () => {
        const { recoveryCodes } = await this.#client.mfa.confirmTotp(code);
        rememberCode(code);
        this.#clear();
        this.#showCodes(recoveryCodes);
        alert("tf-result", "Two-factor authentication is on. Your other sessions ended; this one goes on.");
        this.#changed();
        await this.load();
      }, "Turning on…", code);
    });
    $("tf-regenerate").addEventListener("click", (e) => this.#sensitive(e.currentTarget, async () => {
      this.#showCodes(await this.#client.mfa.regenerateRecoveryCodes());
      alert("tf-result", "New recovery codes: the earlier ones no longer work.");
      await this.load();
    }));
    $("tf-disable-open").addEventListener("click", () => {
      $("tf-disable-form").hidden = false;
      $("tf-disable-code").focus();
    });
    $("tf-disable-cancel").addEventListener("click", () => { $("tf-disable-form").hidden = true; });
    $("tf-disable-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const code = $("tf-disable-code").value.trim();
      this.#sensitive($("tf-disable"), async () => {
        await this.#client.mfa.disableTotp(code);
        $("tf-disable-code").value = "";
        alert("tf-result", "Two-factor authentication is off, and your recovery codes are void.");
        await this.load();
      }, "Turning off…", code);
    });
    this.#wireCodes();
  }

  /** Shows codes until "I have saved them"; they are never shown again. */
  #showCodes(codes) {
    $("tf-code-list").replaceChildren(...codes.map((c) => el("li", {}, el("code", {}, c))));
    $("tf-codes").dataset.count = String(codes.length);
    this.#state("codes");
  }

  #codes() {
    return [...$("tf-code-list").querySelectorAll("code")].map((c) => c.textContent);
  }

  #wireCodes() {
    $("tf-copy").addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(this.#codes().join("\n"));
        alert("tf-result", "Copied: paste them somewhere safe.");
      } catch (err) {
        alert("tf-error", `Could not copy (${err.message}): select them, or download them.`);
      }
    });
    $("tf-download").addEventListener("click", () => {
      const who = this.#client.user?.email ?? "your account";
      const body = `Recovery codes for ${who} (actionkit demo)\nEach works once, in place of a code from your authenticator app.\n\n` +
        this.#codes().join("\n") + "\n";
      const url = URL.createObjectURL(new Blob([body], { type: "text/plain" }));
      const a = el("a", { href: url, download: "actionkit-recovery-codes.txt" });
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    });
    $("tf-saved").addEventListener("click", () => {
      this.#clear();
      this.#state(this.#enabled ? "on" : "off");
    });
  }

  /** Forgets the pending key and the codes on show. */
  #clear() {
    $("tf-qr").removeAttribute("src");
    $("tf-link").removeAttribute("href");
    text("tf-secret", "");
    delete $("tf-secret").dataset.secret;
    $("tf-confirm-code").value = "";
    $("tf-code-list").replaceChildren();
    delete $("tf-codes").dataset.count;
  }
}
