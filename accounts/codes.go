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

//go:embed messages/*.json
var messageFiles embed.FS

// Messages returns the translations of ErrorCodes, by locale.
func Messages() errorcodes.Messages { return errorcodes.MustLoadMessages(messageFiles, "messages") }
