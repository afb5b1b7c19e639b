// actionkit web client: the second factor. A login whose account has one
// resolves to an MfaRequired (the first step's answer, 403
// *_FORBIDDEN_MFA_REQUIRED), finished by client.verifyMfa; client.mfa
// manages the owner's own factors; and sensitive actions that answer
// *_FORBIDDEN_REAUTHENTICATION_REQUIRED are retried after the owner proves
// itself again (client.withReauthentication).

/** How many times withReauthentication re-authenticates for one call. */
const MAX_REAUTH_ROUNDS = 3;

/**
 * MfaRequired is what login() resolves to when the password was right but
 * the account has a second factor: no session exists yet. Finish the login
 * with client.verifyMfa(mfaToken, method, code) before expiresAt.
 */
export class MfaRequired {
  /** @param {{mfaToken: string, methods?: string[], expiresIn?: number}} body the 403's body. */
  constructor(body) {
    /** @type {true} tells this apart from a user. */
    this.mfaRequired = true;
    /** @type {string} the one-time handle of the second step (never an access token). */
    this.mfaToken = body.mfaToken;
    /** @type {string[]} what this account can finish with: totp, recovery_code, webauthn. */
    this.methods = body.methods ?? [];
    /** @type {number} seconds the handle lives. */
    this.expiresIn = body.expiresIn ?? 0;
    /** @type {number} when it expires (ms since the epoch, local clock). */
    this.expiresAt = Date.now() + this.expiresIn * 1000;
  }
}

/**
 * SecondFactor manages the owner's own second factor (client.mfa). Every
 * change is a sensitive action: wrap it in client.withReauthentication to
 * have the owner prove itself again when the server asks.
 */
export class SecondFactor {
  #call;
  #rotate;
  #owner;

  /**
   * @param {(verb: string, args?: object) => Promise<object>} call calls
   *   the action mfa/<verb> of the owner with its access token.
   * @param {(verb: string, args: object) => Promise<object>} rotate the
   *   same for an action that answers the session's new tokens.
   * @param {string} owner "user" or "admin", the key of the owner in answers.
   */
  constructor(call, rotate, owner) {
    this.#call = call;
    this.#rotate = rotate;
    this.#owner = owner;
  }

  /**
   * @returns {Promise<{enabled: boolean, methods: string[], totpConfirmedAt: string|null,
   *   recoveryCodesRemaining: number, passkeys: number}>}
   */
  status() {
    return this.#call("status").then((b) => b.mfa);
  }

  /**
   * Starts setting up an authenticator app: a pending secret, which the
   * owner adds to the app by its QR code or by hand, then confirms.
   * @returns {Promise<{secret: string, otpauthUrl: string, qrCode: string, issuer: string,
   *   accountName: string, digits: number, period: number, algorithm: string}>}
   *   qrCode is a PNG data URL of the otpauth URL's QR code, for an <img>.
   */
  enrollTotp() {
    return this.#call("totp/enroll").then(({ status, success, ...enrolment }) => enrolment);
  }

  /**
   * Confirms the authenticator app with one of its codes: the second
   * factor is on, every other session of the owner ends, and this one goes
   * on at the higher level with new tokens that every tab adopts.
   * @param {string} code
   * @returns {Promise<{recoveryCodes: string[], user: object}>} the ten
   *   recovery codes, to show once, and the owner.
   */
  confirmTotp(code) {
    return this.#rotate("totp/confirm", { code }).then((b) => ({ recoveryCodes: b.recoveryCodes, user: b[this.#owner] }));
  }

  /**
   * Turns the authenticator app off, with one of its codes or a recovery
   * code; the recovery codes go too.
   * @param {string} code
   * @returns {Promise<object>} the owner.
   */
  disableTotp(code) {
    return this.#call("totp/disable", { code }).then((b) => b[this.#owner]);
  }

  /**
   * Replaces the recovery codes by a new set; the earlier set is void.
   * @returns {Promise<string[]>} the new codes, to show once.
   */
  regenerateRecoveryCodes() {
    return this.#call("recoverycodes/regenerate").then((b) => b.recoveryCodes);
  }
}

/**
 * Runs fn; when it fails with REAUTHENTICATION_REQUIRED, asks prompt for a
 * proof, re-authenticates with it and runs fn again. A refused proof (a
 * wrong password or code) is handed back to prompt, which may ask again.
 * @template T
 * @param {(proof: object) => Promise<object>} reauthenticate
 * @param {() => Promise<T>} fn
 * @param {(methods: string[], error: Error|null) => Promise<object|null>} prompt
 *   resolves {password} or {method, code}, or null to give up (fn's error
 *   is thrown then).
 * @returns {Promise<T>}
 */
export async function retryAfterReauthentication(reauthenticate, fn, prompt) {
  for (let round = 1; ; round++) {
    try {
      return await fn();
    } catch (err) {
      if (!err?.reauthenticationRequired || round > MAX_REAUTH_ROUNDS) throw err;
      await proveAgain(reauthenticate, err, prompt);
    }
  }
}

async function proveAgain(reauthenticate, refusal, prompt) {
  let error = null;
  for (;;) {
    const proof = await prompt(refusal.methods ?? [], error);
    if (!proof) throw refusal;
    try {
      return await reauthenticate(proof);
    } catch (err) {
      if (err?.status !== 400) throw err;
      error = err; // wrong password or code: ask again
    }
  }
}
