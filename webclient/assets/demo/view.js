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

/** Explains an ActionkitError (or a passkey ceremony's DOMException) to a person. */
export function describe(err) {
  if (!err) return "";
  if (ceremonies[err.name]) return ceremonies[err.name];
  const fields = err.fields ? Object.entries(err.fields).map(([k, v]) => `${k}: ${v}`).join("; ") : "";
  const base = fields ? `${err.message} (${fields})` : err.message;
  return err.requestId ? `${base} [request ${err.requestId}]` : base;
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
