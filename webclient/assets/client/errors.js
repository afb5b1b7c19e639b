// actionkit web client: the error every call rejects with.

/**
 * ActionkitError is an answer that is not a success, or a request that
 * never got an answer (status 0, code NETWORK_ERROR).
 */
export class ActionkitError extends Error {
  /**
   * @param {number} status the HTTP status, 0 without an answer.
   * @param {object|null} body the decoded error body, if any.
   */
  constructor(status, body) {
    super(body?.message || (status ? `HTTP ${status}` : "network error"));
    this.name = "ActionkitError";
    /** @type {number} */
    this.status = status;
    /** @type {string} the error code, such as USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS. */
    this.code = body?.error ?? (status ? `HTTP_${status}` : "NETWORK_ERROR");
    /** @type {Object<string, string>|null} per-argument reasons of BAD_REQUEST_INVALID_ARGUMENTS. */
    this.fields = body?.fields ?? null;
    /** @type {string|null} the X-Request-ID of the answer, for support. */
    this.requestId = body?.requestId ?? null;
    /** @type {object|null} */
    this.body = body;
    /** @type {boolean} true when api() failed because the session is over:
     * the token was refused and could not be refreshed, or the tab was
     * logged out while the call was on its way. The client has already
     * dispatched "logout" (with its reason); a page shows its logged-out
     * view for that, not this error. */
    this.sessionEnded = false;
    /** @type {string[]|null} with REAUTHENTICATION_REQUIRED: how the owner
     * can prove itself again (password, totp, recovery_code, webauthn). */
    this.methods = body?.methods ?? null;
  }

  /** @returns {boolean} whether a sensitive action wants the owner to
   * re-authenticate first (403 *_FORBIDDEN_REAUTHENTICATION_REQUIRED). */
  get reauthenticationRequired() {
    return this.status === 403 && this.code.endsWith("_FORBIDDEN_REAUTHENTICATION_REQUIRED");
  }

  /** @returns {boolean} whether a login's password was right but a second
   * factor is owed (403 *_FORBIDDEN_MFA_REQUIRED); login() resolves an
   * MfaRequired for it instead of rejecting. */
  get mfaRequired() {
    return this.status === 403 && this.code.endsWith("_FORBIDDEN_MFA_REQUIRED") && typeof this.body?.mfaToken === "string";
  }
}
