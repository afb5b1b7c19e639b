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
	// InvalidCurrentPassword refuses a password change.
	InvalidCurrentPassword errorcodes.Code
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
	},
}
