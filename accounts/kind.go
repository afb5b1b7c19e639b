package accounts

import (
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
)

// Codes are the error codes of one owner type.
type Codes struct {
	InvalidCredentials errorcodes.Code
	AccountInactive    errorcodes.Code
	AccountDeleted     errorcodes.Code
	AccountNotFound    errorcodes.Code
	InvalidRefresh     errorcodes.Code
	AlreadyExists      errorcodes.Code
	// InvalidCurrentPassword refuses a password change or a
	// re-authentication with a wrong password.
	InvalidCurrentPassword errorcodes.Code
	// SecondFactor are the codes of the second factor and of
	// re-authentication.
	SecondFactor SecondFactorCodes
	// Passkey are the codes of passkeys.
	Passkey PasskeyCodes
}

// PasskeyCodes are the codes of an owner type's passkeys.
type PasskeyCodes struct {
	// InvalidChallenge: a challengeId that names no ceremony issued for
	// this registration or login.
	InvalidChallenge errorcodes.Code
	// InvalidCredentials refuses every passkey login whose answer does
	// not verify, whatever the reason, so that nothing tells whether the
	// credential exists.
	InvalidCredentials errorcodes.Code
	NotFound           errorcodes.Code
	// LastSignInMethod refuses a removal that would leave the owner no
	// way to sign in.
	LastSignInMethod errorcodes.Code
}

// SecondFactorCodes are the codes of an owner type's second factor.
type SecondFactorCodes struct {
	// MFARequired answers a first factor whose owner owes a second one
	// (403, with the handle of the second step).
	MFARequired errorcodes.Code
	// ReauthRequired refuses a sensitive action to a session that did not
	// authenticate recently enough, or strongly enough (403).
	ReauthRequired errorcodes.Code
	// InvalidMFAToken: a second step's handle that is malformed, unknown,
	// expired, used or burnt.
	InvalidMFAToken         errorcodes.Code
	InvalidTOTPCode         errorcodes.Code
	InvalidRecoveryCode     errorcodes.Code
	InvalidWebAuthnResponse errorcodes.Code
	TOTPAlreadyEnabled      errorcodes.Code
	TOTPNotPending          errorcodes.Code
	MFANotEnabled           errorcodes.Code
	// TooManyFailures refuses every second factor of an account whose
	// second-factor budget is spent, until a password reset or an
	// admin's resetmfa (429).
	TooManyFailures errorcodes.Code
}

// All lists the codes.
func (c SecondFactorCodes) All() []errorcodes.Code {
	return []errorcodes.Code{c.MFARequired, c.ReauthRequired, c.InvalidMFAToken, c.InvalidTOTPCode, c.InvalidRecoveryCode,
		c.InvalidWebAuthnResponse, c.TOTPAlreadyEnabled, c.TOTPNotPending, c.MFANotEnabled, c.TooManyFailures}
}

// Kind declares an owner type: its name, the path segment and action-name
// part of its actions, its tables and its error codes.
type Kind struct {
	// Type is the owner type: "user".
	Type action.OwnerType
	// Plural is the path segment of its actions: "users".
	Plural string
	// Title goes between version and verb in action names: "" gives
	// V1Login, "Admin" gives V1AdminLogin.
	Title string
	// Tables names its account and session tables.
	Tables models.OwnerTables
	// Codes are its error codes.
	Codes Codes
}

// Users is the owner type of end users.
var Users = Kind{
	Type:   "user",
	Plural: "users",
	Tables: models.UserTables,
	Codes: Codes{
		InvalidCredentials:     UserInvalidLoginCredentials,
		AccountInactive:        UserAccountInactive,
		AccountDeleted:         UserAccountDeleted,
		AccountNotFound:        UserAccountDoesNotExist,
		InvalidRefresh:         UserUnauthorizedInvalidRefresh,
		AlreadyExists:          UserAlreadyExists,
		InvalidCurrentPassword: UserInvalidCurrentPassword,
		SecondFactor: SecondFactorCodes{
			MFARequired: UserMFARequired, ReauthRequired: UserReauthRequired, InvalidMFAToken: UserInvalidMFAToken,
			InvalidTOTPCode: UserInvalidTOTPCode, InvalidRecoveryCode: UserInvalidRecoveryCode,
			InvalidWebAuthnResponse: UserInvalidWebAuthnResponse, TOTPAlreadyEnabled: UserTOTPAlreadyEnabled,
			TOTPNotPending: UserTOTPNotPending, MFANotEnabled: UserMFANotEnabled, TooManyFailures: UserTooManyMFAFailures,
		},
		Passkey: PasskeyCodes{InvalidChallenge: UserInvalidWebAuthnChallenge, InvalidCredentials: UserInvalidPasskeyCredentials,
			NotFound: UserPasskeyNotFound, LastSignInMethod: UserLastSignInMethod},
	},
}

// Admins is the owner type of administrators. They have no
// self-registration; accounts are created from the command line.
var Admins = Kind{
	Type:   "admin",
	Plural: "admins",
	Title:  "Admin",
	Tables: models.AdminTables,
	Codes: Codes{
		InvalidCredentials:     AdminInvalidLoginCredentials,
		AccountInactive:        AdminAccountInactive,
		AccountDeleted:         AdminAccountDeleted,
		AccountNotFound:        AdminAccountDoesNotExist,
		InvalidRefresh:         AdminUnauthorizedInvalidRefresh,
		InvalidCurrentPassword: AdminInvalidCurrentPassword,
		SecondFactor: SecondFactorCodes{
			MFARequired: AdminMFARequired, ReauthRequired: AdminReauthRequired, InvalidMFAToken: AdminInvalidMFAToken,
			InvalidTOTPCode: AdminInvalidTOTPCode, InvalidRecoveryCode: AdminInvalidRecoveryCode,
			InvalidWebAuthnResponse: AdminInvalidWebAuthnResponse, TOTPAlreadyEnabled: AdminTOTPAlreadyEnabled,
			TOTPNotPending: AdminTOTPNotPending, MFANotEnabled: AdminMFANotEnabled, TooManyFailures: AdminTooManyMFAFailures,
		},
		Passkey: PasskeyCodes{InvalidChallenge: AdminInvalidWebAuthnChallenge, InvalidCredentials: AdminInvalidPasskeyCredentials,
			NotFound: AdminPasskeyNotFound, LastSignInMethod: AdminLastSignInMethod},
	},
}
