// The actionkit demo page: register or log in, see the profile, create and
// publish posts, watch the live feed, and see the access token refreshed;
// reset a forgotten password, confirm the address, change the password and
// see where you are logged in (account.js); log in with a second factor
// (secondstep.js) and set it up (twofactor.js), confirming sensitive
// changes with a recent log-in (reauth.js); sign in with a passkey or an
// identity provider (signin.js), manage passkeys (passkeypanel.js) and
// connected accounts (identities.js). Everything goes through the client
// library at /client/actionkit.js, /client/passkeys.js and /client/oidc.js.

import { createClient, MfaRequired } from "/client/actionkit.js";
import { identityProviders, takeResult } from "/client/oidc.js";
import { $, el, text, alert, describe, showError, busy, passwordToggles, clock, date, countdown, fill, setState } from "./view.js";
import { Account, takeLink } from "./account.js";
import { ActivityPanel } from "./activity.js";
import { ProfilePanel } from "./profile.js";
import { SecondStep } from "./secondstep.js";
import { TwoFactorPanel } from "./twofactor.js";
import { PasskeysPanel } from "./passkeypanel.js";
import { ConnectedAccounts } from "./identities.js";
import { SignIns } from "./signin.js";
import { reauthPrompt } from "./reauth.js";
import { Consent } from "./consent.js";
import { ConnectedApps } from "./apps.js";

// First: a mail's token, or a provider's one-time result code, leaves the
// address bar at once.
const link = takeLink();
const flow = takeResult();
const client = createClient();
globalThis.actionkit = client; // for the browser console (and the browser tests)

const drafts = [];
const feed = [];
let mode = "login";
let live = null;
let refreshes = 0;

const goodbye = {
  logout: "You logged out.",
  logoutall: "You logged out everywhere.",
  expired: "Your session ended (it expired, or was ended from another device or by support). Please log in again.",
  peer: "You logged out in another tab.",
};

function showIn() {
  alert("banner", "");
  const user = client.user ?? {};
  text("who", `Logged in as ${user.email ?? "…"}`);
  renderProfile(user);
  if (document.body.dataset.state === "in") return;
  setState("in");
  // What the logged-out page showed no longer applies.
  showError("auth-error", null, authFields);
  if (account.linkSettled) account.closeLink();
  signIns.offer(false);
  loadProfile();
  account.loadDevices();
  for (const p of panels) p.shown();
  connectFeed();
}

function showOut(reason) {
  setState("out");
  for (const id of ["password-username", "reauth-username"]) $(id).value = "";
  text("who", "Not logged in");
  fill("drafts", [], "No drafts yet.");
  drafts.length = 0;
  for (const p of panels) p.hidden();
  if (reason) alert("banner", goodbye[reason] ?? "You are logged out.");
  if (mode !== "login") setMode("login"); // the form to come back with
  offerAutofill();
}

/** Offers the browser's passkeys in the e-mail field's autofill while the
 * log-in form shows, and withdraws them otherwise. */
function offerAutofill() {
  signIns.offer(document.body.dataset.state === "out" && mode === "login" && !secondStep.active);
}

/** Shows the second step of a login that answered MFA_REQUIRED. */
function secondStepFor(challenge) {
  alert("banner", "");
  secondStep.start(challenge);
  offerAutofill();
}

/**
 * Shows err in the alert #id, unless the call failed because the session
 * ended meanwhile: the "logout" event has put up the logged-out form and
 * its reason, which an error would only hide. Reports whether it showed it.
 */
function failed(id, err, prefix = "") {
  if (err?.sessionEnded) return false;
  alert(id, prefix + describe(err));
  return true;
}

async function loadProfile() {
  const card = $("profile");
  card.dataset.read = "pending"; // for the browser tests: pending, ok, ended, failed
  try {
    const { user } = await client.api("/v1/users/read");
    renderProfile(user);
    card.dataset.read = "ok";
  } catch (err) {
    card.dataset.read = failed("banner", err, "Could not read your profile: ") ? "failed" : "ended";
  }
}

function renderProfile(user) {
  for (const id of ["password-username", "reauth-username"]) $(id).value = user.email ?? "";
  profile.render(user);
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ");
  text("profile-name", name || "—");
  text("profile-email", user.email ?? "—");
  text("profile-created", date(user.createdAt));
  text("profile-logins", user.loginCount ?? "—");
  account.renderVerified(user);
  account.renderPassword(user);
}

function renderToken() {
  const left = client.expiresAt - Date.now();
  text("token-expiry", client.loggedIn ? `expires in ${countdown(left)} (${clock(client.expiresAt)})` : "—");
}

function onToken({ detail }) {
  if (detail.source === "refresh" || detail.source === "peer") {
    refreshes++;
    const by = detail.source === "refresh" ? "by this tab" : "by another tab";
    const node = $("token-refreshed");
    node.textContent = `${clock(detail.obtainedAt)} ${by} · ${refreshes} on this page`;
    node.dataset.source = detail.source;
    node.dataset.count = String(refreshes);
  }
  renderToken();
  if (detail.user) showIn();
}

function connectFeed() {
  if (live) return;
  live = client.socket({ rooms: ["FEED"] });
  live.on("POST_PUBLISHED", (post) => {
    feed.unshift({ ...post, receivedAt: Date.now() });
    feed.length = Math.min(feed.length, 50);
    renderFeed();
  });
  live.addEventListener("status", ({ detail }) => {
    console.info(`feed: ${detail.connected ? "connected" : "disconnected"} ${detail.transport ?? ""}`);
    renderFeedStatus(detail.connected, detail.transport, false);
  });
  live.addEventListener("connecterror", ({ detail }) => {
    console.info(`feed: connect_error ${detail.error}${detail.active ? " (socket.io retries)" : ""}`);
  });
  live.addEventListener("refused", ({ detail }) => {
    const node = $("feed-status");
    node.textContent = `offline (${detail.error || "refused"}), retrying`;
    node.dataset.refused = detail.error;
  });
  live.addEventListener("joined", ({ detail }) => {
    if (detail.room === "FEED") renderFeedStatus(live.connected, live.transport, detail.ack?.ok === true);
  });
}

function renderFeedStatus(connected, transport, joined) {
  const node = $("feed-status");
  const on = connected && (joined || node.dataset.live === "yes");
  node.textContent = on ? `live over ${transport}` : connected ? "joining…" : "offline";
  if (connected) delete node.dataset.refused;
  node.dataset.live = on ? "yes" : "no";
  node.dataset.transport = transport ?? "";
  $("feed-dot").classList.toggle("on", on);
  $("feed-dot").title = node.textContent;
}

function renderFeed() {
  fill("feed-list", feed.map((p) => el("li", { "data-post-id": p.postId },
    el("strong", {}, p.title),
    el("span", { class: "meta" }, `published ${clock(p.publishedAt)}`))), "Nothing published yet.");
}

function renderDrafts() {
  fill("drafts", drafts.map((p) => {
    const button = el("button", { type: "button", class: "small" }, "Publish");
    button.addEventListener("click", () => publish(p.id, button));
    return el("li", { "data-post-id": p.id }, el("span", {}, p.title), button);
  }), "No drafts yet.");
}

async function createPost() {
  const title = $("post-title").value.trim();
  const body = $("post-body").value;
  const { post } = await client.api("/v1/posts/create", { title, body });
  $("post-title").value = "";
  $("post-body").value = "";
  return post;
}

async function publish(id, button) {
  if (button) button.disabled = true;
  try {
    await client.api("/v1/posts/publish", { postId: id });
    const i = drafts.findIndex((p) => p.id === id);
    if (i >= 0) drafts.splice(i, 1);
    renderDrafts();
    alert("post-error", "");
  } catch (err) {
    if (!err?.sessionEnded) showError("post-error", err, postFields);
    if (button) button.disabled = false;
  }
}

/** The log-in form's inputs, by the API's argument names. */
const authFields = { email: "email", password: "password", firstName: "first-name" };
const postFields = { title: "post-title", body: "post-body" };

function setMode(next) {
  mode = next;
  secondStep.leave();
  $("auth-form").hidden = false;
  $("forgot-form").hidden = true;
  $("auth-form").dataset.mode = mode;
  for (const [id, m] of [["mode-login", "login"], ["mode-register", "register"]]) {
    $(id).setAttribute("aria-selected", String(mode === m));
    $(id).tabIndex = mode === m ? 0 : -1;
  }
  $("auth-form").setAttribute("aria-labelledby", mode === "login" ? "mode-login" : "mode-register");
  $("submit").textContent = mode === "login" ? "Log in" : "Create account";
  $("password").autocomplete = mode === "login" ? "current-password" : "new-password";
  if (mode === "register") $("password").setAttribute("aria-describedby", "register-rule");
  else $("password").removeAttribute("aria-describedby");
  $("email").autocomplete = mode === "login" ? "username webauthn" : "username";
  showError("auth-error", null, authFields);
  offerAutofill();
}

/** The tabs answer the arrow keys, Home and End (the ARIA tabs pattern). */
function wireTabs() {
  const tabs = [$("mode-login"), $("mode-register")];
  $("mode-login").parentElement.addEventListener("keydown", (e) => {
    const at = tabs.indexOf(document.activeElement);
    if (at < 0) return;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const tab = tabs[(to + tabs.length) % tabs.length];
    setMode(tab.id === "mode-login" ? "login" : "register");
    tab.focus();
  });
}

function wire() {
  $("mode-login").addEventListener("click", () => setMode("login"));
  $("mode-register").addEventListener("click", () => setMode("register"));
  wireTabs();
  $("auth-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const email = $("email").value.trim();
    const password = $("password").value;
    // A new attempt: the earlier outcome (logged out, an error) is over.
    alert("banner", "");
    showError("auth-error", null, authFields);
    busy($("submit"), async () => {
      try {
        // The autofill's passkey request is aborted while the password goes.
        await (mode === "login"
          ? signIns.pause(async () => {
            const result = await client.login(email, password);
            if (result instanceof MfaRequired) secondStepFor(result);
          })
          : client.register({ email, password, firstName: $("first-name").value.trim() }));
        $("password").value = "";
      } catch (err) {
        showError("auth-error", err, authFields);
      }
    }, mode === "login" ? "Logging in…" : "Creating your account…");
  });
  $("post-form").addEventListener("submit", (e) => {
    e.preventDefault();
    showError("post-error", null, postFields);
    busy($("publish-now"), async () => {
      try {
        const post = await createPost();
        await publish(post.id);
      } catch (err) {
        if (!err?.sessionEnded) showError("post-error", err, postFields);
      }
    }, "Publishing…");
  });
  $("save-draft").addEventListener("click", () => {
    showError("post-error", null, postFields);
    busy($("save-draft"), async () => {
      try {
        drafts.unshift(await createPost());
        renderDrafts();
      } catch (err) {
        if (!err?.sessionEnded) showError("post-error", err, postFields);
      }
    }, "Saving…");
  });
  $("logout").addEventListener("click", () => busy($("logout"), () => client.logout().catch((err) => alert("banner", describe(err))), "Logging out…"));
  $("logout-all").addEventListener("click", () => busy($("logout-all"), () => client.logoutAll().catch((err) => alert("banner", describe(err))), "Logging out…"));
  $("refresh-now").addEventListener("click", () => busy($("refresh-now"), () => client.refresh().catch((err) => alert("banner", describe(err)))));
  client.addEventListener("login", () => showIn());
  client.addEventListener("logout", ({ detail }) => showOut(detail.reason));
  client.addEventListener("token", onToken);
  client.addEventListener("error", ({ detail }) => alert("banner", `Could not refresh your session: ${describe(detail.error)}`));
  setInterval(renderToken, 1000);
}

passwordToggles("password", "reset-password", "current-password", "new-password");
const prompt = reauthPrompt(client);
const providers = identityProviders(client).providers().catch(() => []);
const profile = new ProfilePanel(client, {
  prompt,
  changed: (user) => renderProfile(user),
  link: (title, message, state, code) => (state === "failed" ? account.linkFailed(title, message, code) : account.linkOutcome(title, message, state)),
});
const account = new Account(client, {
  showLogin: () => setMode("login"),
  profileChanged: () => loadProfile(),
  emailLink: (link) => profile.handleLink(link),
  prompt,
});
const secondStep = new SecondStep(client, {
  back: (message) => {
    $("auth-form").hidden = false;
    showError("auth-error", null, authFields);
    alert("auth-error", message ?? "");
    offerAutofill();
  },
});
const signIns = new SignIns(client, { secondStep: secondStepFor, providers });
const twoFactor = new TwoFactorPanel(client, { prompt, changed: () => account.loadDevices() });
const connected = new ConnectedAccounts(client, { prompt, providers });
// The account's panels: each is shown() when the page logs in and
// hidden() when it logs out.
const activity = new ActivityPanel(client);
const panels = [
  twoFactor,
  new PasskeysPanel(client, { prompt, changed: () => { twoFactor.load(); activity.load(); } }),
  connected,
  new ConnectedApps(client, { changed: () => { account.loadDevices(); activity.load(); } }),
  activity,
  profile,
];
// The consent screen of an application's sign-in (?oauth_request=<id>).
new Consent(client, { prompt });
wire();
setMode("login");
client.start().then(
  (user) => (user ? showIn() : showOut()),
  (err) => {
    showOut();
    alert("banner", `Could not restore your session: ${describe(err)}`);
  },
).then(() => {
  account.handleLink(link);
  if (flow) finishFlow(flow);
});

/** Handles the fragment a provider's flow came back with. */
function finishFlow(result) {
  if (result.kind === "linked") connected.linked(result.value);
  else if (result.kind === "error" && client.loggedIn) connected.failed(result.value);
  else signIns.finish(result);
}
// A link opened in a tab already showing the page changes only its hash.
window.addEventListener("hashchange", () => {
  account.handleLink(takeLink());
  const result = takeResult();
  if (result) finishFlow(result);
});
