// The actionkit admin console: an admin logs in, searches and pages through
// users, opens one to see its sessions and security events, and
// deactivates, activates, deletes, restores it, ends its sessions or resets
// its two-factor authentication (a person who lost its authenticator app
// and its recovery codes). Every
// call goes through the client library as an admin (jwt-admin, the
// jwt-admin-refresh cookie) to the actions under /v1/admins/users/. The
// changes the server holds sensitive (delete, revokesessions, resetmfa)
// ask the admin to confirm with a recent log-in when it answers
// ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED, in the demo's prompt
// (/demo/reauth.js), and are then retried. The Webhooks section
// (webhooks.js) lists the webhooks and their deliveries.

import { createClient, MfaRequired } from "/client/actionkit.js";
import { $, el, text, alert, describe, showError, busy, when, place, date, fill, setState } from "/demo/view.js";
import { sessionName } from "/demo/account.js";
import { SecondStep } from "/demo/secondstep.js";
import { reauthPrompt } from "/demo/reauth.js";
import { webhooksSection } from "/admin/webhooks.js";

const client = createClient({ owner: "admin" });
globalThis.actionkitAdmin = client; // for the browser console (and the browser tests)

const users = { list: [], cursor: null };
const events = { list: [], cursor: null };
let current = null; // the user shown in the detail card

/** A user's status as the list filter names it. */
function statusOf(u) {
  if (u.deletedAt) return "deleted";
  return u.isActive ? "active" : "inactive";
}

async function call(path, args) {
  return client.api("/v1/admins/users/" + path, args);
}

/** Shows err in the alert #id unless the session ended (the login form shows). */
function failed(id, err) {
  if (!err?.sessionEnded) showError(id, err);
}

async function search(more) {
  const args = { query: $("query").value.trim(), status: $("status").value, limit: 20 };
  if (more) args.cursor = users.cursor;
  const list = $("user-list");
  list.dataset.state = "loading";
  try {
    const page = await call("list", args);
    users.list = more ? users.list.concat(page.users) : page.users;
    users.cursor = page.nextCursor;
    renderUsers();
    list.dataset.state = "ok";
    alert("users-error", "");
  } catch (err) {
    list.dataset.state = "failed";
    failed("users-error", err);
  }
}

function renderUsers() {
  fill("user-list", users.list.map((u) => {
    const open = el("button", { type: "button" },
      el("strong", {}, u.email), " ",
      el("span", { class: `meta status-${statusOf(u)}` }, statusOf(u)));
    open.addEventListener("click", () => openUser(u.id));
    const li = el("li", { "data-user-id": u.id, "data-status": statusOf(u) }, open,
      el("span", { class: "meta" }, date(u.createdAt)));
    if (current?.id === u.id) li.setAttribute("aria-current", "true");
    return li;
  }), "No user matches.");
  $("user-list").dataset.count = String(users.list.length);
  $("more-users").hidden = !users.cursor;
}

async function openUser(id) {
  if (current?.id !== id) closeConfirm();
  const card = $("detail");
  card.hidden = false;
  card.dataset.state = "loading";
  alert("detail-result", "");
  alert("detail-error", "");
  try {
    const [{ user }, { sessions }] = await Promise.all([call("read", { id }), call("sessions", { id })]);
    current = user;
    renderDetail(user, sessions);
    events.list = [];
    events.cursor = null;
    await loadEvents(false);
    card.dataset.state = "ok";
    card.dataset.userId = id;
    renderUsers();
  } catch (err) {
    card.dataset.state = "failed";
    failed("detail-error", err);
  }
}

function renderDetail(user, sessions) {
  const status = statusOf(user);
  text("detail-title", user.email);
  text("d-email", user.email);
  text("d-name", [user.firstName, user.lastName].filter(Boolean).join(" ") || "—");
  text("d-status", status);
  $("d-status").className = `status-${status}`;
  $("detail").dataset.status = status;
  text("d-created", date(user.createdAt));
  text("d-logins", `${user.loginCount} (last ${user.lastLoginAt ? date(user.lastLoginAt) : "never"})`);
  text("d-verified", user.emailVerifiedAt ? `confirmed ${date(user.emailVerifiedAt)}` : "not confirmed");
  text("d-mfa", user.mfaEnabled ? "on" : "off");
  $("d-mfa").dataset.enabled = String(Boolean(user.mfaEnabled));
  $("reset-mfa").hidden = !user.mfaEnabled;
  text("d-id", user.id);
  text("toggle-active", user.isActive ? "Deactivate" : "Activate");
  text("toggle-deleted", user.deletedAt ? "Restore" : "Delete");
  fill("d-sessions", sessions.map((s) => el("li", { "data-session-id": s.id, title: s.userAgent ?? "" },
    el("span", { class: "device-name" }, sessionName(s)),
    el("span", { class: "meta" }, `from ${place(s.ipAddress)} · last active `, when(s.lastUsedAt)))), "No session.");
  $("d-sessions").dataset.count = String(sessions.length);
}

async function loadEvents(more) {
  const page = await call("securityevents", { id: current.id, limit: 20, ...(more ? { cursor: events.cursor } : {}) });
  events.list = events.list.concat(page.events);
  events.cursor = page.nextCursor;
  fill("d-events", events.list.map((e) => el("li", { "data-type": e.type },
    el("strong", {}, e.type.replaceAll("_", " ")),
    el("span", { class: "meta" }, when(e.createdAt), ` · from ${place(e.ipAddress)}` +
      (e.data?.adminId ? " · by an admin" : "")))), "No event.");
  $("d-events").dataset.count = String(events.list.length);
  $("more-events").hidden = !events.cursor;
}

/** Runs one of the changes on the shown user and shows it again; a
 * change that wants a recent log-in asks for it first. */
async function change(button, path, done) {
  closeConfirm();
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  alert("detail-result", "");
  showError("detail-error", null);
  try {
    await client.withReauthentication(() => call(path, { id: current.id }), prompt);
    await openUser(current.id);
    alert("detail-result", done);
    const list = users.list.findIndex((u) => u.id === current.id);
    if (list >= 0) users.list[list] = current;
    renderUsers();
  } catch (err) {
    failed("detail-error", err);
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

/** What each change that cannot be taken back in one click asks first. */
const asks = {
  deactivate: { ask: (u) => `Deactivate ${u.email}? Every session of the user ends, and the user cannot log in until activated again.`, yes: "Deactivate" },
  delete: { ask: (u) => `Delete ${u.email}? Every session ends; the account is erased for good after the grace period unless restored.`, yes: "Delete" },
  revokesessions: { ask: (u) => `End every session of ${u.email}? The user is logged out on every device.`, yes: "End every session" },
  resetmfa: { ask: (u) => `Reset the two-factor authentication of ${u.email}? Its authenticator app, recovery codes and passkeys are removed, and every session ends.`, yes: "Reset two-factor" },
};
let pending = null; // the change waiting for its confirmation

/** Asks in the card to confirm path before change() runs it. */
function confirmFirst(button, path, done) {
  pending = { button, path, done };
  const a = asks[path];
  text("confirm-text", a.ask(current));
  text("confirm-yes", a.yes);
  $("confirm").hidden = false;
  $("confirm").dataset.path = path;
  $("confirm-no").focus();
}

function closeConfirm() {
  pending = null;
  $("confirm").hidden = true;
  delete $("confirm").dataset.path;
}

const loginFields = { email: "email", password: "password" };

function wire() {
  $("auth-form").addEventListener("submit", (e) => {
    e.preventDefault();
    alert("banner", "");
    showError("auth-error", null, loginFields);
    busy($("submit"), async () => {
      try {
        const result = await client.login($("email").value.trim(), $("password").value);
        $("password").value = "";
        if (result instanceof MfaRequired) secondStep.start(result);
      } catch (err) {
        showError("auth-error", err, loginFields);
      }
    }, "Logging in…");
  });
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    search(false);
  });
  $("more-users").addEventListener("click", () => search(true));
  $("more-events").addEventListener("click", () => loadEvents(true).catch((err) => failed("detail-error", err)));
  $("toggle-active").addEventListener("click", (e) => current.isActive
    ? confirmFirst(e.currentTarget, "deactivate", "Deactivated: every session of the user ended.")
    : change(e.currentTarget, "activate", "Activated: the user can log in again."));
  $("toggle-deleted").addEventListener("click", (e) => current.deletedAt
    ? change(e.currentTarget, "restore", "Restored: the user can log in again.")
    : confirmFirst(e.currentTarget, "delete", "Deleted: every session of the user ended."));
  $("revoke-sessions").addEventListener("click", (e) => confirmFirst(e.currentTarget, "revokesessions", "Every session of the user ended."));
  $("confirm-yes").addEventListener("click", () => {
    if (pending) change(pending.button, pending.path, pending.done);
  });
  $("confirm-no").addEventListener("click", () => {
    const button = pending?.button;
    closeConfirm();
    button?.focus();
  });
  $("reset-mfa").addEventListener("click", (e) => confirmFirst(e.currentTarget, "resetmfa",
    "Two-factor reset: the user's authenticator app and recovery codes are removed, every session ended, and a notice mailed. " +
    "The user logs in with its password alone and may set two-factor up again."));
  $("logout").addEventListener("click", () => client.logout().catch((err) => alert("banner", describe(err))));
  client.addEventListener("login", () => showIn());
  client.addEventListener("logout", () => showOut());
}

function showIn() {
  text("who", `Logged in as ${client.user?.email ?? "…"}`);
  $("reauth-username").value = client.user?.email ?? "";
  if (document.body.dataset.state === "in") return;
  setState("in");
  search(false);
  hooks.load();
}

function showOut() {
  setState("out");
  text("who", "Not logged in");
  $("detail").hidden = true;
  current = null;
  users.list = [];
  hooks.clear();
}

const prompt = reauthPrompt(client);
const hooks = webhooksSection(client, prompt);
const secondStep = new SecondStep(client, {
  back: (message) => {
    $("auth-form").hidden = false;
    alert("auth-error", message ?? "");
  },
});
wire();
client.start().then(
  (admin) => (admin ? showIn() : showOut()),
  (err) => {
    showOut();
    alert("banner", `Could not restore your session: ${describe(err)}`);
  },
);
