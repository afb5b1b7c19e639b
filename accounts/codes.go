package accounts

import (
	"embed"

	"github.com/actionkit/actionkit/errorcodes"
)

// The error codes of the account engine's actions, for users and admins.
// Never change the ID or status of a released code (the server's
// codes.golden pins them); their messages are in messages/*.json.
const (
	UserAlreadyExists               errorcodes.Code = "USER_BAD_REQUEST_USER_ALREADY_EXISTS 400 user.already_exists"
	UserInvalidTimezone             errorcodes.Code = "USER_BAD_REQUEST_INVALID_TIMEZONE 400 user.invalid_timezone"
	UserInvalidLoginCredentials     errorcodes.Code = "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS 400 user.invalid_login_credentials"
	UserAccountInactive             errorcodes.Code = "USER_BAD_REQUEST_ACCOUNT_INACTIVE 400 user.account_inactive"
	UserAccountDeleted              errorcodes.Code = "USER_BAD_REQUEST_ACCOUNT_DELETED 400 user.account_deleted"
	UserAccountDoesNotExist         errorcodes.Code = "USER_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST 400 user.account_does_not_exist"
	UserUnauthorizedInvalidRefresh  errorcodes.Code = "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN 401 user.invalid_refresh_token"
	AdminInvalidLoginCredentials    errorcodes.Code = "ADMIN_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS 400 admin.invalid_login_credentials"
	AdminAccountInactive            errorcodes.Code = "ADMIN_BAD_REQUEST_ACCOUNT_INACTIVE 400 admin.account_inactive"
	AdminAccountDeleted             errorcodes.Code = "ADMIN_BAD_REQUEST_ACCOUNT_DELETED 400 admin.account_deleted"
	AdminAccountDoesNotExist        errorcodes.Code = "ADMIN_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST 400 admin.account_does_not_exist"
	AdminUnauthorizedInvalidRefresh errorcodes.Code = "ADMIN_UNAUTHORIZED_INVALID_REFRESH_TOKEN 401 admin.invalid_refresh_token"
	UserInvalidCurrentPassword      errorcodes.Code = "USER_BAD_REQUEST_INVALID_CURRENT_PASSWORD 400 user.invalid_current_password"
	AdminInvalidCurrentPassword     errorcodes.Code = "ADMIN_BAD_REQUEST_INVALID_CURRENT_PASSWORD 400 admin.invalid_current_password"
	UserInvalidResetToken           errorcodes.Code = "USER_BAD_REQUEST_INVALID_RESET_TOKEN 400 user.invalid_reset_token"
	UserInvalidVerificationToken    errorcodes.Code = "USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN 400 user.invalid_verification_token"
	UserEmailNotVerified            errorcodes.Code = "USER_BAD_REQUEST_EMAIL_NOT_VERIFIED 400 user.email_not_verified"
	UserSessionNotFound             errorcodes.Code = "USER_SESSION_NOT_FOUND 404 user.session_not_found"
	UserNotFound                    errorcodes.Code = "USER_NOT_FOUND 404 user.not_found"

	UserMFARequired             errorcodes.Code = "USER_FORBIDDEN_MFA_REQUIRED 403 user.mfa_required"
	UserReauthRequired          errorcodes.Code = "USER_FORBIDDEN_REAUTHENTICATION_REQUIRED 403 user.reauthentication_required"
	UserInvalidMFAToken         errorcodes.Code = "USER_BAD_REQUEST_INVALID_MFA_TOKEN 400 user.invalid_mfa_token"
	UserInvalidTOTPCode         errorcodes.Code = "USER_BAD_REQUEST_INVALID_TOTP_CODE 400 user.invalid_totp_code"
	UserInvalidRecoveryCode     errorcodes.Code = "USER_BAD_REQUEST_INVALID_RECOVERY_CODE 400 user.invalid_recovery_code"
	UserInvalidWebAuthnResponse errorcodes.Code = "USER_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE 400 user.invalid_webauthn_response"
	UserTOTPAlreadyEnabled      errorcodes.Code = "USER_BAD_REQUEST_TOTP_ALREADY_ENABLED 400 user.totp_already_enabled"
	UserTOTPNotPending          errorcodes.Code = "USER_BAD_REQUEST_TOTP_NOT_PENDING 400 user.totp_not_pending"
	UserMFANotEnabled           errorcodes.Code = "USER_BAD_REQUEST_MFA_NOT_ENABLED 400 user.mfa_not_enabled"

	AdminMFARequired             errorcodes.Code = "ADMIN_FORBIDDEN_MFA_REQUIRED 403 admin.mfa_required"
	AdminReauthRequired          errorcodes.Code = "ADMIN_FORBIDDEN_REAUTHENTICATION_REQUIRED 403 admin.reauthentication_required"
	AdminInvalidMFAToken         errorcodes.Code = "ADMIN_BAD_REQUEST_INVALID_MFA_TOKEN 400 admin.invalid_mfa_token"
	AdminInvalidTOTPCode         errorcodes.Code = "ADMIN_BAD_REQUEST_INVALID_TOTP_CODE 400 admin.invalid_totp_code"
	AdminInvalidRecoveryCode     errorcodes.Code = "ADMIN_BAD_REQUEST_INVALID_RECOVERY_CODE 400 admin.invalid_recovery_code"
	AdminInvalidWebAuthnResponse errorcodes.Code = "ADMIN_BAD_REQUEST_INVALID_WEBAUTHN_RESPONSE 400 admin.invalid_webauthn_response"
	AdminTOTPAlreadyEnabled      errorcodes.Code = "ADMIN_BAD_REQUEST_TOTP_ALREADY_ENABLED 400 admin.totp_already_enabled"
	AdminTOTPNotPending          errorcodes.Code = "ADMIN_BAD_REQUEST_TOTP_NOT_PENDING 400 admin.totp_not_pending"
	AdminMFANotEnabled           errorcodes.Code = "ADMIN_BAD_REQUEST_MFA_NOT_ENABLED 400 admin.mfa_not_enabled"

	UserUnknownOIDCProvider        errorcodes.Code = "USER_BAD_REQUEST_UNKNOWN_OIDC_PROVIDER 400 user.unknown_oidc_provider"
	UserInvalidOIDCState           errorcodes.Code = "USER_BAD_REQUEST_INVALID_OIDC_STATE 400 user.invalid_oidc_state"
	UserOIDCProviderError          errorcodes.Code = "USER_BAD_REQUEST_OIDC_PROVIDER_ERROR 400 user.oidc_provider_error"
	UserIdentityAlreadyLinked      errorcodes.Code = "USER_BAD_REQUEST_IDENTITY_ALREADY_LINKED 400 user.identity_already_linked"
	UserOIDCAccountExists          errorcodes.Code = "USER_BAD_REQUEST_OIDC_ACCOUNT_EXISTS 400 user.oidc_account_exists"
	UserSignupDisabled             errorcodes.Code = "USER_BAD_REQUEST_SIGNUP_DISABLED 400 user.signup_disabled"
	UserInvalidOIDCCode            errorcodes.Code = "USER_BAD_REQUEST_INVALID_OIDC_CODE 400 user.invalid_oidc_code"
	UserIdentityNotFound           errorcodes.Code = "USER_IDENTITY_NOT_FOUND 404 user.identity_not_found"
	UserLastSignInMethod           errorcodes.Code = "USER_BAD_REQUEST_LAST_SIGNIN_METHOD 400 user.last_signin_method"
	UserInvalidWebAuthnChallenge   errorcodes.Code = "USER_BAD_REQUEST_INVALID_WEBAUTHN_CHALLENGE 400 user.invalid_webauthn_challenge"
	UserInvalidPasskeyCredentials  errorcodes.Code = "USER_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS 400 user.invalid_passkey_credentials"
	UserPasskeyNotFound            errorcodes.Code = "USER_PASSKEY_NOT_FOUND 404 user.passkey_not_found"
	AdminInvalidWebAuthnChallenge  errorcodes.Code = "ADMIN_BAD_REQUEST_INVALID_WEBAUTHN_CHALLENGE 400 admin.invalid_webauthn_challenge"
	AdminInvalidPasskeyCredentials errorcodes.Code = "ADMIN_BAD_REQUEST_INVALID_PASSKEY_CREDENTIALS 400 admin.invalid_passkey_credentials"
	AdminPasskeyNotFound           errorcodes.Code = "ADMIN_PASSKEY_NOT_FOUND 404 admin.passkey_not_found"
	AdminLastSignInMethod          errorcodes.Code = "ADMIN_BAD_REQUEST_LAST_SIGNIN_METHOD 400 admin.last_signin_method"

	UserInvalidEmailChangeToken errorcodes.Code = "USER_BAD_REQUEST_INVALID_EMAIL_CHANGE_TOKEN 400 user.invalid_email_change_token"
	UserInvalidEmailRevertToken errorcodes.Code = "USER_BAD_REQUEST_INVALID_EMAIL_REVERT_TOKEN 400 user.invalid_email_revert_token"

	UserTooManyMFAFailures  errorcodes.Code = "USER_TOO_MANY_MFA_FAILURES 429 user.too_many_mfa_failures"
	AdminTooManyMFAFailures errorcodes.Code = "ADMIN_TOO_MANY_MFA_FAILURES 429 admin.too_many_mfa_failures"
)

// ErrorCodes returns the codes of the account engine, to be given to
// errorcodes.NewCatalog with its Messages.
func ErrorCodes() []errorcodes.Code {
	return []errorcodes.Code{
		UserAlreadyExists,
		UserInvalidTimezone,
		UserInvalidLoginCredentials,
		UserAccountInactive,
		UserAccountDeleted,
		UserAccountDoesNotExist,
		UserUnauthorizedInvalidRefresh,
		AdminInvalidLoginCredentials,
		AdminAccountInactive,
		AdminAccountDeleted,
		AdminAccountDoesNotExist,
		AdminUnauthorizedInvalidRefresh,
		UserInvalidCurrentPassword,
		AdminInvalidCurrentPassword,
		UserInvalidResetToken,
		UserInvalidVerificationToken,
		UserEmailNotVerified,
		UserSessionNotFound,
		UserNotFound,
	}
}

// SecondFactorErrorCodes returns the codes of the second factor and of
// re-authentication, released after ErrorCodes (servers list them after
// their other codes, so that their lists only ever grow at the end).
func SecondFactorErrorCodes() []errorcodes.Code {
	return []errorcodes.Code{
		UserMFARequired,
		UserReauthRequired,
		UserInvalidMFAToken,
		UserInvalidTOTPCode,
		UserInvalidRecoveryCode,
		UserInvalidWebAuthnResponse,
		UserTOTPAlreadyEnabled,
		UserTOTPNotPending,
		UserMFANotEnabled,
		AdminMFARequired,
		AdminReauthRequired,
		AdminInvalidMFAToken,
		AdminInvalidTOTPCode,
		AdminInvalidRecoveryCode,
		AdminInvalidWebAuthnResponse,
		AdminTOTPAlreadyEnabled,
		AdminTOTPNotPending,
		AdminMFANotEnabled,
	}
}

// FederationErrorCodes returns the codes of sign-in through identity
// providers, released after SecondFactorErrorCodes (servers list them
// after those).
func FederationErrorCodes() []errorcodes.Code {
	return []errorcodes.Code{
		UserUnknownOIDCProvider,
		UserInvalidOIDCState,
		UserOIDCProviderError,
		UserIdentityAlreadyLinked,
		UserOIDCAccountExists,
		UserSignupDisabled,
		UserInvalidOIDCCode,
		UserIdentityNotFound,
		UserLastSignInMethod,
	}
}

// PasskeyErrorCodes returns the codes of passkeys, released after
// FederationErrorCodes (servers list them after those).
func PasskeyErrorCodes() []errorcodes.Code {
	return []errorcodes.Code{
		UserInvalidWebAuthnChallenge,
		UserInvalidPasskeyCredentials,
		UserPasskeyNotFound,
		AdminInvalidWebAuthnChallenge,
		AdminInvalidPasskeyCredentials,
		AdminPasskeyNotFound,
		AdminLastSignInMethod,
	}
}

// MFABudgetErrorCodes returns the codes of the second-factor budget,
// released after PasskeyErrorCodes (servers list them after those).
func MFABudgetErrorCodes() []errorcodes.Code {
	return []errorcodes.Code{UserTooManyMFAFailures, AdminTooManyMFAFailures}
}

// LifecycleErrorCodes returns the codes of the account's own management
// (e-mail change and its revert), released after the webhooks' codes:
// servers list them after those.
func LifecycleErrorCodes() []errorcodes.Code {
	return []errorcodes.Code{UserInvalidEmailChangeToken, UserInvalidEmailRevertToken}
}

//go:embed messages/*.json
var messageFiles embed.FS

// Messages returns the translations of ErrorCodes, SecondFactorErrorCodes,
// FederationErrorCodes, PasskeyErrorCodes, MFABudgetErrorCodes and
// LifecycleErrorCodes, by locale.
func Messages() errorcodes.Messages { return errorcodes.MustLoadMessages(messageFiles, "messages") }

// LaterErrorCodes returns the codes released after ErrorCodes and after
// the posts' codes, in release order: servers list them last, so that
// their list of codes only ever grows at its end.
func LaterErrorCodes() []errorcodes.Code {
	codes := append(append(SecondFactorErrorCodes(), FederationErrorCodes()...), PasskeyErrorCodes()...)
	return append(codes, MFABudgetErrorCodes()...)
}

// AllErrorCodes returns every code of the account engine: ErrorCodes,
// LaterErrorCodes and LifecycleErrorCodes.
func AllErrorCodes() []errorcodes.Code {
	return append(append(ErrorCodes(), LaterErrorCodes()...), LifecycleErrorCodes()...)
}
