// Rendering helpers of the actionkit demo page.

/** @returns {HTMLElement} the element with id, which the page must have. */
export function $(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`demo: no #${id}`);
  return el;
}

/**
 * Creates an element with text content and attributes.
 * @param {string} tag
 * @param {Object<string, string>} [attrs]
 * @param {...(Node|string)} children
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/** Sets the text of #id. */
export function text(id, value) {
  $(id).textContent = value;
}

/** Shows message in the alert #id, or hides it when message is empty. */
export function alert(id, message) {
  const node = $(id);
  node.textContent = message ?? "";
  node.hidden = !message;
}

/** What the browser's refusals of a passkey ceremony mean to a person. */
const ceremonies = {
  NotAllowedError: "The passkey request was cancelled, timed out, or no passkey of this site was chosen.",
  InvalidStateError: "This device already holds a passkey of your account.",
  SecurityError: "This page's address cannot use passkeys (the server's WEBAUTHN_RP_ID must be its domain).",
  NotSupportedError: "This browser or device cannot make this kind of passkey.",
};

/** The words of the API's argument names, for a reason shown without its field. */
const fieldWords = {
  email: "E-mail", password: "Password", currentPassword: "Current password", newPassword: "New password",
  firstName: "First name", lastName: "Last name", timezone: "Time zone", locale: "Language", newEmail: "New e-mail address",
  code: "Code", name: "Name", title: "Title", body: "Body", url: "URL", events: "Events", description: "Description",
};

/** The page's words for codes whose API message is not the best to show. */
const codeWords = {
  USER_BAD_REQUEST_ACCOUNT_INACTIVE: "This account is deactivated, so it cannot log in. Contact support to have it activated again.",
  ADMIN_BAD_REQUEST_ACCOUNT_INACTIVE: "This admin account is deactivated, so it cannot log in.",
  USER_BAD_REQUEST_ACCOUNT_DELETED: "This account was deleted, so it cannot log in. Contact support if you want it back.",
  USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS: "The e-mail address or the password is wrong.",
  USER_BAD_REQUEST_INVALID_CURRENT_PASSWORD: "Your current password is not the one you typed.",
  USER_BAD_REQUEST_USER_ALREADY_EXISTS: "An account with this e-mail address exists already: log in, or use “Forgot your password?”.",
  USER_BAD_REQUEST_INVALID_TOTP_CODE: "This code is wrong or was used already. Codes change every 30 seconds: enter the one your app shows now.",
  ADMIN_BAD_REQUEST_INVALID_TOTP_CODE: "This code is wrong or was used already. Codes change every 30 seconds: enter the one your app shows now.",
  USER_BAD_REQUEST_INVALID_RECOVERY_CODE: "This recovery code is wrong or was used already.",
  NETWORK_ERROR: "The server could not be reached. Check your connection and try again.",
};

/** The reason of one argument in a sentence: "Password must be …". */
export function fieldReason(name, reason) {
  return `${fieldWords[name] ?? name} ${reason}`;
}

/**
 * Explains an ActionkitError (or a passkey ceremony's DOMException) to a
 * person, once, without API field names or the request id (errorNode puts
 * those behind a details toggle).
 */
export function describe(err) {
  if (!err) return "";
  if (err.words) return err.words; // the page's own words for this case
  if (ceremonies[err.name]) return ceremonies[err.name];
  if (codeWords[err.code]) return codeWords[err.code];
  const fields = err.fields ? Object.entries(err.fields) : [];
  if (fields.length) return fields.map(([k, v]) => fieldReason(k, v)).join(". ") + ".";
  if (err.status === 429) return "Too many attempts: wait a moment, then try again.";
  return err.message;
}

/**
 * Shows err in the alert #id: its words, and its request id and code behind
 * a "Details" toggle for support. fields maps the API's argument names to
 * the ids of the page's inputs: each such reason shows under its input
 * (aria-invalid, aria-describedby) instead of in the alert. A null err
 * clears the alert and those inputs.
 * @param {string} id
 * @param {any} err
 * @param {Object<string, string>} [fields]
 * @param {string} [prefix]
 */
export function showError(id, err, fields = {}, prefix = "") {
  for (const input of Object.values(fields)) clearField(input);
  const node = $(id);
  if (!err) {
    alert(id, "");
    return;
  }
  let rest = null;
  if (err.fields && !ceremonies[err.name]) {
    rest = {};
    for (const [k, v] of Object.entries(err.fields)) {
      if (fields[k] && document.getElementById(fields[k])) markField(fields[k], fieldReason(k, v));
      else rest[k] = v;
    }
  }
  const message = rest ? (Object.keys(rest).length ? describe({ fields: rest }) : "") : describe(err);
  node.dataset.code = err.code ?? err.name ?? "";
  if (!message) {
    node.replaceChildren();
    node.hidden = true;
    return;
  }
  const parts = [el("span", { class: "msg" }, prefix + message)];
  if (err.requestId || err.code) {
    parts.push(el("details", { class: "details" }, el("summary", {}, "Details"),
      el("span", {}, [err.code, err.requestId && `request ${err.requestId}`].filter(Boolean).join(" · "))));
  }
  node.replaceChildren(...parts);
  node.hidden = false;
}

/** Shows reason under the input #id, which it marks invalid. */
export function markField(id, reason) {
  const input = $(id);
  const errId = `${id}-field-error`;
  let p = document.getElementById(errId);
  if (!p) {
    p = el("p", { id: errId, class: "field-error", role: "alert" });
    (input.closest("label") ?? input).after(p);
  }
  p.textContent = reason;
  p.hidden = false;
  input.setAttribute("aria-invalid", "true");
  const described = (input.getAttribute("aria-describedby") ?? "").split(" ").filter((x) => x && x !== errId);
  input.setAttribute("aria-describedby", [errId, ...described].join(" "));
}

/** Removes the error of the input #id, if any. */
export function clearField(id) {
  const input = document.getElementById(id);
  const p = document.getElementById(`${id}-field-error`);
  if (p) p.remove();
  if (!input) return;
  input.removeAttribute("aria-invalid");
  const described = (input.getAttribute("aria-describedby") ?? "").split(" ").filter((x) => x && x !== `${id}-field-error`);
  if (described.length) input.setAttribute("aria-describedby", described.join(" "));
  else input.removeAttribute("aria-describedby");
}

/**
 * Runs fn with button busy: disabled, aria-busy, and label (such as
 * "Logging in…") in place of its text until fn settles.
 * @param {HTMLButtonElement} button
 * @param {() => Promise<any>} fn
 * @param {string} [label]
 */
export async function busy(button, fn, label) {
  const before = button.textContent;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  if (label) button.textContent = label;
  try {
    await fn();
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
    if (label && button.textContent === label) button.textContent = before;
  }
}

/** Gives each password input of ids a "Show" toggle beside it. */
export function passwordToggles(...ids) {
  for (const id of ids) {
    const input = $(id);
    const toggle = el("button", { type: "button", class: "small show-password", "aria-pressed": "false", "aria-controls": id,
      "aria-label": "Show password" }, "Show");
    const wrap = el("span", { class: "secret-field" });
    input.replaceWith(wrap);
    wrap.append(input, toggle);
    toggle.addEventListener("click", () => {
      const show = input.type === "password";
      input.type = show ? "text" : "password";
      toggle.textContent = show ? "Hide" : "Show";
      toggle.setAttribute("aria-pressed", String(show));
      toggle.setAttribute("aria-label", show ? "Hide password" : "Show password");
    });
    input.form?.addEventListener("submit", () => {
      if (input.type === "text") toggle.click(); // never leave it shown after use
    });
  }
}

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** HH:MM:SS of a timestamp (ms or ISO string). */
export function clock(t) {
  return timeFmt.format(new Date(t));
}

/** A medium date of an ISO string, or "—". */
export function date(iso) {
  return iso ? dateFmt.format(new Date(iso)) : "—";
}

const exactFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const relativeFmt = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const units = [["year", 31_536_000], ["month", 2_592_000], ["week", 604_800], ["day", 86_400], ["hour", 3600], ["minute", 60]];

/** "2 minutes ago", "just now", "yesterday" of an ISO string. */
export function ago(iso, now = Date.now()) {
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Math.abs(s) < 45) return "just now";
  for (const [unit, size] of units) {
    if (Math.abs(s) >= size || unit === "minute") return relativeFmt.format(Math.round(s / size), unit);
  }
  return "just now";
}

/** A <time> of an ISO string: relative, with the exact date and time in its title. */
export function when(iso) {
  if (!iso) return el("span", {}, "never");
  const exact = exactFmt.format(new Date(iso));
  return el("time", { datetime: iso, title: exact }, ago(iso));
}

/** "Chrome on Linux" of a user agent, or null when it says nothing known. */
export function deviceName(ua) {
  if (!ua) return null;
  const browser = [[/Edg(e|A|iOS)?\//, "Edge"], [/OPR\/|Opera/, "Opera"], [/Firefox\/|FxiOS/, "Firefox"],
    [/SamsungBrowser/, "Samsung Internet"], [/Chrome\/|CriOS|Chromium/, "Chrome"], [/Version\/.*Safari\//, "Safari"]]
    .find(([re]) => re.test(ua))?.[1];
  const os = [[/Windows/, "Windows"], [/Android/, "Android"], [/iPhone|iPad|iPod/, "iOS"], [/CrOS/, "ChromeOS"],
    [/Mac OS X|Macintosh/, "macOS"], [/Linux/, "Linux"]].find(([re]) => re.test(ua))?.[1];
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? null;
}

/** Where an address is, in words: loopback addresses are this computer. */
export function place(ip) {
  if (!ip) return "an unknown address";
  if (ip === "::1" || ip.startsWith("127.")) return `this computer (${ip})`;
  return ip;
}

/** "4 min 05 s" until ms from now, or "expired". */
export function countdown(ms) {
  if (ms <= 0) return "expired";
  const s = Math.round(ms / 1000);
  const m = Math.floor(s / 60);
  return m > 0 ? `${m} min ${String(s % 60).padStart(2, "0")} s` : `${s} s`;
}

/**
 * Replaces the items of list #id, showing empty when there are none.
 * @param {string} id
 * @param {Node[]} items
 * @param {string} empty
 */
export function fill(id, items, empty) {
  const list = $(id);
  list.replaceChildren(...(items.length ? items : [el("li", { class: "empty" }, empty)]));
}

/** Sets the page state (loading, in, out), which the stylesheet follows. */
export function setState(state) {
  document.body.dataset.state = state;
}
