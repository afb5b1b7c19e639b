// actionkit web client: passkeys (WebAuthn). Plain ES module, no build step:
//
//   import { createClient } from "/client/actionkit.js";
//   import { passkeys } from "/client/passkeys.js";
//   const ak = createClient();
//   const pk = passkeys(ak);
//   const user = await pk.login();              // passwordless
//   pk.login({ mediation: "conditional", signal }); // the browser's autofill
//   await pk.register("Laptop");                // adds a passkey (a recent login needed)
//   await pk.verify(err.body.mfaToken);         // a password login answered MFA_REQUIRED
//   await pk.reauthenticate();                  // before a sensitive action
//   ak.withReauthentication(fn, () => pk.proof()); // the same, when fn asks for it
//
// The server sends the options of navigator.credentials.create() and get()
// as JSON with binary members in base64url, and takes the credential back
// as the JSON object PublicKeyCredential.toJSON() gives. Browsers that have
// parseCreationOptionsFromJSON, parseRequestOptionsFromJSON and toJSON
// convert with them; for the others, the small conversions below do the
// same for the members WebAuthn defines.

/**
 * Encodes bytes as base64url without padding.
 * @param {ArrayBuffer|ArrayBufferView} data
 * @returns {string}
 */
export function base64urlEncode(data) {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Decodes base64url (padding optional) into an ArrayBuffer.
 * @param {string} text
 * @returns {ArrayBuffer}
 */
export function base64urlDecode(text) {
  const b64 = String(text).replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer;
}

/** @returns {boolean} whether this browser can use passkeys at all. */
export function supported() {
  return typeof PublicKeyCredential !== "undefined" && typeof navigator !== "undefined" && !!navigator.credentials;
}

/** @returns {Promise<boolean>} whether the browser offers passkeys in the
 * autofill of a field with autocomplete="username webauthn". */
export async function autofillSupported() {
  if (!supported() || typeof PublicKeyCredential.isConditionalMediationAvailable !== "function") return false;
  return PublicKeyCredential.isConditionalMediationAvailable().catch(() => false);
}

const withIDs = (list) => list?.map((d) => ({ ...d, id: base64urlDecode(d.id) }));

/**
 * Converts the server's creation options to navigator.credentials.create()'s.
 * @param {object} json PublicKeyCredentialCreationOptionsJSON
 * @returns {PublicKeyCredentialCreationOptions}
 */
export function creationOptions(json) {
  if (typeof PublicKeyCredential !== "undefined" && typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  const out = { ...json, challenge: base64urlDecode(json.challenge), user: { ...json.user, id: base64urlDecode(json.user.id) } };
  if (json.excludeCredentials) out.excludeCredentials = withIDs(json.excludeCredentials);
  return out;
}

/**
 * Converts the server's request options to navigator.credentials.get()'s.
 * @param {object} json PublicKeyCredentialRequestOptionsJSON
 * @returns {PublicKeyCredentialRequestOptions}
 */
export function requestOptions(json) {
  if (typeof PublicKeyCredential !== "undefined" && typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  const out = { ...json, challenge: base64urlDecode(json.challenge) };
  if (json.allowCredentials) out.allowCredentials = withIDs(json.allowCredentials);
  return out;
}

const optional = (fn) => { try { return fn(); } catch { return undefined; } };

/**
 * The JSON of a credential from create() or get(), as the server takes it.
 * @param {PublicKeyCredential} cred
 * @returns {object}
 */
export function credentialJSON(cred) {
  if (typeof cred.toJSON === "function") return cred.toJSON();
  const r = cred.response;
  const response = { clientDataJSON: base64urlEncode(r.clientDataJSON) };
  if (r.attestationObject) { // from create()
    response.attestationObject = base64urlEncode(r.attestationObject);
    response.transports = optional(() => r.getTransports()) ?? [];
    const data = optional(() => r.getAuthenticatorData());
    if (data) response.authenticatorData = base64urlEncode(data);
    const key = optional(() => r.getPublicKey());
    if (key) response.publicKey = base64urlEncode(key);
    const alg = optional(() => r.getPublicKeyAlgorithm());
    if (alg !== undefined) response.publicKeyAlgorithm = alg;
  } else { // from get()
    response.authenticatorData = base64urlEncode(r.authenticatorData);
    response.signature = base64urlEncode(r.signature);
    if (r.userHandle) response.userHandle = base64urlEncode(r.userHandle);
  }
  return {
    id: cred.id, rawId: base64urlEncode(cred.rawId), type: cred.type, response,
    authenticatorAttachment: cred.authenticatorAttachment ?? null,
    clientExtensionResults: optional(() => cred.getClientExtensionResults()) ?? {},
  };
}

/**
 * Passkeys of one client's owner (user or admin). Errors are the client's
 * ActionkitError for the server's refusals, and the browser's DOMException
 * (NotAllowedError when the person cancels, AbortError when aborted).
 */
export class Passkeys {
  #ak;

  /** @param {import("./actionkit.js").ActionkitClient} client */
  constructor(client) {
    this.#ak = client;
  }

  get #base() { return `/v1/${this.#ak.owner}s/`; }

  /** @returns {Promise<object[]>} the passkeys, newest first. */
  list() {
    return this.#ak.api(this.#base + "passkeys").then((b) => b.passkeys);
  }

  /**
   * Adds a passkey of this device (or a phone's, or a security key's).
   * The session must have authenticated recently (else the server answers
   * USER_FORBIDDEN_REAUTHENTICATION_REQUIRED: reauthenticate() first).
   * @param {string} [name] at most 64 characters; "Passkey" when empty.
   * @returns {Promise<object>} the passkey.
   */
  async register(name = "") {
    const { challengeId, options } = await this.#ak.api(this.#base + "passkeys/registeroptions");
    const cred = await navigator.credentials.create({ publicKey: creationOptions(options) });
    const b = await this.#ak.api(this.#base + "passkeys/register", { challengeId, credential: credentialJSON(cred), name });
    return b.passkey;
  }

  /** @param {string} passkeyId @param {string} name @returns {Promise<object>} the passkey. */
  rename(passkeyId, name) {
    return this.#ak.api(this.#base + "passkeys/rename", { passkeyId, name }).then((b) => b.passkey);
  }

  /** Removes a passkey (not the account's last way to sign in). @param {string} passkeyId */
  remove(passkeyId) {
    return this.#ak.api(this.#base + "passkeys/remove", { passkeyId });
  }

  /**
   * Signs in with a passkey, as login() does with a password.
   * @param {{mediation?: string, signal?: AbortSignal}} [how] mediation
   *   "conditional" waits for the person to pick a passkey in the autofill
   *   of a field with autocomplete="username webauthn"; abort the signal
   *   before starting another ceremony.
   * @returns {Promise<object>} the owner.
   */
  async login({ mediation, signal } = {}) {
    const { challengeId, options } = await this.#ak.call(this.#base + "passkeys/loginoptions");
    const req = { publicKey: requestOptions(options), signal };
    if (mediation) req.mediation = mediation;
    const cred = await navigator.credentials.get(req);
    return this.#ak.loginWith("passkeys/login", { challengeId, credential: credentialJSON(cred) });
  }

  /**
   * Finishes a password login that answered MFA_REQUIRED with a passkey.
   * @param {string} mfaToken from the error's body.
   * @returns {Promise<object>} the owner.
   */
  async verify(mfaToken) {
    const { challengeId, options } = await this.#ak.call(this.#base + "mfa/webauthnoptions", { mfaToken });
    const cred = await navigator.credentials.get({ publicKey: requestOptions(options) });
    return this.#ak.loginWith("mfa/verify", { mfaToken, method: "webauthn", challengeId, credential: credentialJSON(cred) });
  }

  /**
   * Re-authenticates this session with a passkey, for the sensitive actions.
   * @returns {Promise<object>} the session, at level 2.
   */
  async reauthenticate() {
    return this.#ak.reauthenticate(await this.proof());
  }

  /**
   * Runs the passkey ceremony of a re-authentication and resolves the
   * proof without sending it: what a prompt of client.withReauthentication
   * resolves when the owner picks a passkey.
   * @returns {Promise<{method: "webauthn", challengeId: string, credential: object}>}
   */
  async proof() {
    const { challengeId, options } = await this.#ak.api(this.#base + "reauthenticateoptions");
    const cred = await navigator.credentials.get({ publicKey: requestOptions(options) });
    return { method: "webauthn", challengeId, credential: credentialJSON(cred) };
  }
}

/**
 * The passkeys of client's owner.
 * @param {import("./actionkit.js").ActionkitClient} client
 * @returns {Passkeys}
 */
export function passkeys(client) {
  return new Passkeys(client);
}
