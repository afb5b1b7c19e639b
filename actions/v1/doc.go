// Package v1 holds the version 1 actions of the bundled server: accounts
// and sessions (for every owner kind) and posts.
//
// Each action is a struct whose fields are its dependencies and whose Spec
// declares its wire name, path and access rule. The account actions are
// generic over an accounts.Kind, so users and admins share one
// implementation: Login{Accounts: userService} is V1Login at
// /v1/users/login, and with the admin service it is V1AdminLogin at
// /v1/admins/login.
package v1
