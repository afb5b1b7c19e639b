package errorcodes

import "net/http"

// The codes of the framework and the bundled server. This list is
// append-only: add new codes at the end of all, and never change the ID or
// Status of a released code (codes.golden pins them).
var (
	BadRequestInvalidArguments      = Code{"BAD_REQUEST_INVALID_ARGUMENTS", http.StatusBadRequest, "bad_request.invalid_arguments"}
	UserAlreadyExists               = Code{"USER_BAD_REQUEST_USER_ALREADY_EXISTS", http.StatusBadRequest, "user.already_exists"}
	UserInvalidTimezone             = Code{"USER_BAD_REQUEST_INVALID_TIMEZONE", http.StatusBadRequest, "user.invalid_timezone"}
	UserInvalidLoginCredentials     = Code{"USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS", http.StatusBadRequest, "user.invalid_login_credentials"}
	UserAccountInactive             = Code{"USER_BAD_REQUEST_ACCOUNT_INACTIVE", http.StatusBadRequest, "user.account_inactive"}
	UserAccountDeleted              = Code{"USER_BAD_REQUEST_ACCOUNT_DELETED", http.StatusBadRequest, "user.account_deleted"}
	UserAccountDoesNotExist         = Code{"USER_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST", http.StatusBadRequest, "user.account_does_not_exist"}
	UserUnauthorizedInvalidRefresh  = Code{"USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN", http.StatusUnauthorized, "user.invalid_refresh_token"}
	Unauthorized                    = Code{"UNAUTHORIZED", http.StatusUnauthorized, "unauthorized"}
	PostNotFound                    = Code{"POST_NOT_FOUND", http.StatusNotFound, "post.not_found"}
	InternalServerError             = Code{"INTERNAL_SERVER_ERROR", http.StatusInternalServerError, "internal_server_error"}
	NotFound                        = Code{"NOT_FOUND", http.StatusNotFound, "not_found"}
	TooManyRequests                 = Code{"TOO_MANY_REQUESTS", http.StatusTooManyRequests, "too_many_requests"}
	ServiceUnavailable              = Code{"SERVICE_UNAVAILABLE", http.StatusServiceUnavailable, "service_unavailable"}
	Forbidden                       = Code{"FORBIDDEN", http.StatusForbidden, "forbidden"}
	ServiceBusy                     = Code{"SERVICE_BUSY", http.StatusServiceUnavailable, "service_busy"}
	AdminInvalidLoginCredentials    = Code{"ADMIN_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS", http.StatusBadRequest, "admin.invalid_login_credentials"}
	AdminAccountInactive            = Code{"ADMIN_BAD_REQUEST_ACCOUNT_INACTIVE", http.StatusBadRequest, "admin.account_inactive"}
	AdminAccountDeleted             = Code{"ADMIN_BAD_REQUEST_ACCOUNT_DELETED", http.StatusBadRequest, "admin.account_deleted"}
	AdminAccountDoesNotExist        = Code{"ADMIN_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST", http.StatusBadRequest, "admin.account_does_not_exist"}
	AdminUnauthorizedInvalidRefresh = Code{"ADMIN_UNAUTHORIZED_INVALID_REFRESH_TOKEN", http.StatusUnauthorized, "admin.invalid_refresh_token"}
	MethodNotAllowed                = Code{"METHOD_NOT_ALLOWED", http.StatusMethodNotAllowed, "method_not_allowed"}
	UserInvalidCurrentPassword      = Code{"USER_BAD_REQUEST_INVALID_CURRENT_PASSWORD", http.StatusBadRequest, "user.invalid_current_password"}
	AdminInvalidCurrentPassword     = Code{"ADMIN_BAD_REQUEST_INVALID_CURRENT_PASSWORD", http.StatusBadRequest, "admin.invalid_current_password"}
	UserInvalidResetToken           = Code{"USER_BAD_REQUEST_INVALID_RESET_TOKEN", http.StatusBadRequest, "user.invalid_reset_token"}
	UserInvalidVerificationToken    = Code{"USER_BAD_REQUEST_INVALID_VERIFICATION_TOKEN", http.StatusBadRequest, "user.invalid_verification_token"}
	UserEmailNotVerified            = Code{"USER_BAD_REQUEST_EMAIL_NOT_VERIFIED", http.StatusBadRequest, "user.email_not_verified"}
	UserSessionNotFound             = Code{"USER_SESSION_NOT_FOUND", http.StatusNotFound, "user.session_not_found"}
	UserNotFound                    = Code{"USER_NOT_FOUND", http.StatusNotFound, "user.not_found"}
)

var all = []Code{
	BadRequestInvalidArguments,
	UserAlreadyExists,
	UserInvalidTimezone,
	UserInvalidLoginCredentials,
	UserAccountInactive,
	UserAccountDeleted,
	UserAccountDoesNotExist,
	UserUnauthorizedInvalidRefresh,
	Unauthorized,
	PostNotFound,
	InternalServerError,
	NotFound,
	TooManyRequests,
	ServiceUnavailable,
	Forbidden,
	ServiceBusy,
	AdminInvalidLoginCredentials,
	AdminAccountInactive,
	AdminAccountDeleted,
	AdminAccountDoesNotExist,
	AdminUnauthorizedInvalidRefresh,
	MethodNotAllowed,
	UserInvalidCurrentPassword,
	AdminInvalidCurrentPassword,
	UserInvalidResetToken,
	UserInvalidVerificationToken,
	UserEmailNotVerified,
	UserSessionNotFound,
	UserNotFound,
}

// All returns every registered code in registration order.
func All() []Code { return append([]Code(nil), all...) }
