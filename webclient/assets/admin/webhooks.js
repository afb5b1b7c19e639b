// The admin console's Webhooks section: the webhooks, a form that adds one
// (its secret shown once), and for the webhook chosen its recent
// deliveries with their status, each of which can be sent again. Every
// change goes through /v1/admins/webhooks/*; the server holds them all
// sensitive, so each runs in client.withReauthentication and asks the
// admin to confirm with a recent log-in when the server wants one.

import { $, el, alert, showError, clock, date, fill } from "/demo/view.js";

/** How long the deliveries wait before they are read again while one is pending. */
const pendingRefresh = 2000;

/**
 * Wires the section.
 * @param {object} client the admin's actionkit client
 * @param {Function} prompt the re-authentication prompt (/demo/reauth.js)
 * @returns {{load: Function, clear: Function}}
 */
export function webhooksSection(client, prompt) {
  const state = { hooks: [], current: null, deliveries: [], cursor: null, timer: 0 };
  const call = (path, args = {}) => client.api("/v1/admins/webhooks" + path, args);
  const sensitive = (path, args) => client.withReauthentication(() => call(path, args), prompt);
  // The form is one row of inputs: reasons show in the alert, in words.
  const fields = {};
  const failed = (err) => {
    if (!err?.sessionEnded) showError("webhooks-error", err, fields);
  };

  async function load() {
    try {
      const { webhooks } = await call("");
      state.hooks = webhooks;
      render();
      alert("webhooks-error", "");
    } catch (err) {
      failed(err);
    }
  }

  function render() {
    fill("webhook-list", state.hooks.map((w) => {
      const li = el("li", { "data-webhook-id": w.id, "data-enabled": String(w.enabled) },
        el("span", { class: "url" }, el("strong", {}, w.url), " ",
          el("span", { class: "meta" }, `${w.events.join(", ")}${w.enabled ? "" : " · disabled"}` +
            (w.description ? ` · ${w.description}` : ""))),
        button("Deliveries", "deliveries", () => openDeliveries(w)),
        button(w.enabled ? "Disable" : "Enable", "toggle", () => change("/update", { id: w.id, enabled: !w.enabled },
          w.enabled ? "Disabled: its new deliveries wait until it is enabled." : "Enabled.")),
        button("New secret", "rotate", () => rotate(w)),
        button("Delete", "delete", () => change("/delete", { id: w.id }, "Deleted, with its deliveries."), "danger"));
      if (state.current?.id === w.id) li.setAttribute("aria-current", "true");
      return li;
    }), "No webhook.");
    $("webhook-list").dataset.count = String(state.hooks.length);
  }

  function button(label, role, onClick, cls = "") {
    const b = el("button", { type: "button", "data-role": role, ...(cls ? { class: cls } : {}) }, label);
    b.addEventListener("click", async () => {
      b.disabled = true;
      try {
        await onClick();
      } finally {
        b.disabled = false;
      }
    });
    return b;
  }

  async function change(path, args, done) {
    try {
      await sensitive(path, args);
      if (path === "/delete" && state.current?.id === args.id) clearDeliveries();
      await load();
      alert("webhooks-result", done);
    } catch (err) {
      failed(err);
    }
  }

  async function rotate(w) {
    try {
      const { secret } = await sensitive("/rotatesecret", { id: w.id });
      showSecret(secret);
      alert("webhooks-result", "New secret: deliveries carry a signature with the old one too for 24 hours.");
    } catch (err) {
      failed(err);
    }
  }

  function showSecret(secret) {
    $("webhook-secret").textContent = secret;
    $("webhook-secret-box").hidden = false;
  }

  async function create(e) {
    e.preventDefault();
    const events = $("webhook-events").value.split(",").map((s) => s.trim()).filter(Boolean);
    const args = { url: $("webhook-url").value.trim(), events, description: $("webhook-description").value.trim() };
    $("webhook-create").disabled = true;
    $("webhook-create").setAttribute("aria-busy", "true");
    alert("webhooks-result", "");
    showError("webhooks-error", null, fields);
    try {
      const { webhook, secret } = await sensitive("/create", args);
      showSecret(secret);
      $("webhook-url").value = "";
      $("webhook-description").value = "";
      await load();
      alert("webhooks-result", `Added: ${webhook.url}`);
    } catch (err) {
      failed(err);
    } finally {
      $("webhook-create").disabled = false;
      $("webhook-create").removeAttribute("aria-busy");
    }
  }

  async function openDeliveries(w) {
    state.current = w;
    state.deliveries = [];
    state.cursor = null;
    $("deliveries-title").textContent = `Deliveries to ${w.url}`;
    render();
    await loadDeliveries(false);
  }

  async function loadDeliveries(more) {
    clearTimeout(state.timer);
    if (!state.current) return;
    const list = $("delivery-list");
    list.dataset.state = "loading";
    try {
      const page = await call("/deliveries", { id: state.current.id, limit: 20, ...(more ? { cursor: state.cursor } : {}) });
      state.deliveries = more ? state.deliveries.concat(page.deliveries) : page.deliveries;
      state.cursor = page.nextCursor;
      renderDeliveries();
      list.dataset.state = "ok";
      if (state.deliveries.some((d) => d.status === "pending")) {
        state.timer = setTimeout(() => loadDeliveries(false), pendingRefresh);
      }
    } catch (err) {
      list.dataset.state = "failed";
      failed(err);
    }
  }

  function renderDeliveries() {
    fill("delivery-list", state.deliveries.map((d) => {
      const last = d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? "");
      const next = d.nextAttemptAt ? ` · next ${date(d.nextAttemptAt)} ${clock(d.nextAttemptAt)}` : "";
      return el("li", { "data-delivery-id": d.id, "data-status": d.status, "data-attempts": String(d.attempts),
        "data-code": String(d.lastStatusCode ?? "") },
      el("span", {}, el("strong", {}, d.type.replaceAll("_", " ")), " ",
        el("span", { class: `status-${d.status}` }, d.status)),
      el("span", { class: "meta" }, `${date(d.createdAt)} ${clock(d.createdAt)} · ${d.attempts} attempt(s)` +
        (last ? ` · ${last}` : "") + next),
      button("Send again", "redeliver", () => redeliver(d)));
    }), "No delivery yet.");
    $("delivery-list").dataset.count = String(state.deliveries.length);
    $("more-deliveries").hidden = !state.cursor;
    $("refresh-deliveries").hidden = false;
  }

  async function redeliver(d) {
    try {
      await sensitive("/redeliver", { deliveryId: d.id });
      alert("webhooks-result", "Queued again: it is sent within seconds, with its id.");
      await loadDeliveries(false);
    } catch (err) {
      failed(err);
    }
  }

  function clearDeliveries() {
    clearTimeout(state.timer);
    state.current = null;
    state.deliveries = [];
    $("deliveries-title").textContent = "Deliveries";
    fill("delivery-list", [], "Choose a webhook's deliveries.");
    $("more-deliveries").hidden = true;
    $("refresh-deliveries").hidden = true;
  }

  function clear() {
    clearDeliveries();
    state.hooks = [];
    $("webhook-secret-box").hidden = true;
    alert("webhooks-result", "");
    alert("webhooks-error", "");
  }

  $("webhook-form").addEventListener("submit", create);
  $("more-deliveries").addEventListener("click", () => loadDeliveries(true));
  $("refresh-deliveries").addEventListener("click", () => loadDeliveries(false));
  return { load, clear };
}
