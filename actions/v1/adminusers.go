package v1

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
)

// The admin actions that manage users run on the users'
// account engine, on the admin's behalf: every change goes through the same
// paths as the user's own (revocation included) and records the admin's id
// in its security event.

// adminUsersSpec names an admin action on users: verb "ListUsers" becomes
// V1AdminListUsers at /v1/admins/users/<path>.
func adminUsersSpec(verb, path, summary string, errs ...errorcodes.Code) action.Spec {
	return action.Spec{
		Name:    "V1Admin" + verb,
		Path:    "/v1/admins/users/" + path,
		Summary: summary,
		Auth:    action.Owner(accounts.Admins.Type),
		Errors:  errs,
	}
}

// sensitiveAdminSpec is adminUsersSpec for a change that cannot be undone
// or that removes a user's credentials: a stolen admin session alone must
// not make it, so the admin's session needs a recent authentication (and
// its second factor, when it has one), as a user's sensitive changes do.
func sensitiveAdminSpec(verb, path, summary string, errs ...errorcodes.Code) action.Spec {
	s := adminUsersSpec(verb, path, summary, errs...)
	s.Reauth = action.ReauthRecent
	return s
}

// UserIDArgs name the user an admin action is about.
type UserIDArgs struct {
	ID uuid.UUID `arg:"id" validate:"required"`
}

// userError maps the engine's failures of an admin action on a user.
func userError(err error) error {
	if errors.Is(err, accounts.ErrNotFound) {
		return accounts.UserNotFound.New()
	}
	return AccountError(accounts.Users, err)
}

// actor is the admin calling, for the security events.
func actor(req *action.Request) accounts.Actor {
	return accounts.Actor{AdminID: req.Caller.ID, Origin: Origin(req)}
}

// AdminListUsers pages through users, newest first.
type AdminListUsers struct {
	Users *accounts.Management
}

// AdminListUsersArgs are the arguments of AdminListUsers: a filter and a
// page (as PageArgs).
type AdminListUsersArgs struct {
	Query  string `arg:"query" mod:"trim" validate:"max=254"`
	Status string `arg:"status" mod:"trim,lower" default:"all" validate:"oneof=all|active|inactive|deleted"`
	Limit  int    `arg:"limit" default:"50" validate:"min=1,max=100"`
	Cursor string `arg:"cursor" validate:"max=64"`
}

// UsersResult is a page of users; NextCursor is null on the last page.
type UsersResult struct {
	Users      []*AccountView `json:"users"`
	NextCursor *string        `json:"nextCursor"`
}

// Spec declares V1AdminListUsers.
func (a *AdminListUsers) Spec() action.Spec {
	return adminUsersSpec("ListUsers", "list", "Search and page through users")
}

// Run answers a page of users.
func (a *AdminListUsers) Run(ctx context.Context, _ *action.Request, in *AdminListUsersArgs) (*UsersResult, error) {
	list, next, err := a.Users.List(ctx, accounts.ListFilter{
		Query: in.Query, Status: in.Status, Cursor: in.Cursor, Limit: in.Limit,
	})
	if err != nil {
		return nil, userError(err)
	}
	out := &UsersResult{Users: make([]*AccountView, len(list)), NextCursor: cursorOrNull(next)}
	for i := range list {
		out.Users[i] = ViewAccount(&list[i])
	}
	return out, nil
}

// AdminReadUser reads a user, deleted ones too.
type AdminReadUser struct {
	Users *accounts.Service
}

// Spec declares V1AdminReadUser.
func (a *AdminReadUser) Spec() action.Spec {
	return adminUsersSpec("ReadUser", "read", "Read a user", accounts.UserNotFound)
}

// Run reads the user.
func (a *AdminReadUser) Run(ctx context.Context, _ *action.Request, in *UserIDArgs) (*AccountResult, error) {
	acc, err := a.Users.Account(ctx, in.ID)
	if err != nil {
		return nil, userError(err)
	}
	return &AccountResult{User: ViewAccount(acc)}, nil
}

// AdminUserSessions lists a user's live sessions (current is always false).
type AdminUserSessions struct {
	Users *accounts.Activity
}

// Spec declares V1AdminUserSessions.
func (a *AdminUserSessions) Spec() action.Spec {
	return adminUsersSpec("UserSessions", "sessions", "List where a user is logged in", accounts.UserNotFound)
}

// Run lists the sessions.
func (a *AdminUserSessions) Run(ctx context.Context, _ *action.Request, in *UserIDArgs) (*SessionsResult, error) {
	if _, err := a.Users.Engine.Account(ctx, in.ID); err != nil {
		return nil, userError(err)
	}
	return viewLiveSessions(ctx, a.Users, in.ID, uuid.Nil)
}

// AdminUserEvents pages through a user's security events.
type AdminUserEvents struct {
	Users *accounts.Activity
}

// AdminUserEventsArgs are the arguments of AdminUserEvents: the user and a
// page (as PageArgs).
type AdminUserEventsArgs struct {
	ID     uuid.UUID `arg:"id" validate:"required"`
	Limit  int       `arg:"limit" default:"50" validate:"min=1,max=100"`
	Cursor string    `arg:"cursor" validate:"max=64"`
}

// Spec declares V1AdminUserSecurityEvents.
func (a *AdminUserEvents) Spec() action.Spec {
	return adminUsersSpec("UserSecurityEvents", "securityevents", "Page through a user's security events", accounts.UserNotFound)
}

// Run answers a page of events.
func (a *AdminUserEvents) Run(ctx context.Context, _ *action.Request, in *AdminUserEventsArgs) (*EventsResult, error) {
	if _, err := a.Users.Engine.Account(ctx, in.ID); err != nil {
		return nil, userError(err)
	}
	return eventsPage(ctx, a.Users, in.ID, &PageArgs{Limit: in.Limit, Cursor: in.Cursor})
}

// AdminRevokeUserSessions ends every session of a user, a logout-all on the
// user's behalf.
type AdminRevokeUserSessions struct {
	Users *accounts.Management
}

// Spec declares V1AdminRevokeUserSessions.
func (a *AdminRevokeUserSessions) Spec() action.Spec {
	return sensitiveAdminSpec("RevokeUserSessions", "revokesessions", "End every session of a user", accounts.UserNotFound)
}

// Run ends the sessions.
func (a *AdminRevokeUserSessions) Run(ctx context.Context, req *action.Request, in *UserIDArgs) (*Empty, error) {
	if err := a.Users.RevokeSessions(ctx, in.ID, actor(req)); err != nil {
		return nil, userError(err)
	}
	return &Empty{}, nil
}

// AdminResetUserMFA removes a user's second factors (the support desk's
// answer to a lost one): every session, access token and socket of the
// user ends at once, and the user is mailed.
type AdminResetUserMFA struct {
	Users *accounts.Management
}

// Spec declares V1AdminResetUserMFA.
func (a *AdminResetUserMFA) Spec() action.Spec {
	return sensitiveAdminSpec("ResetUserMFA", "resetmfa", "Remove a user's second factors; every session ends", accounts.UserNotFound)
}

// Run removes them and answers the user as it now is.
func (a *AdminResetUserMFA) Run(ctx context.Context, req *action.Request, in *UserIDArgs) (*AccountResult, error) {
	acc, err := a.Users.ResetMFA(ctx, in.ID, actor(req))
	if err != nil {
		return nil, userError(err)
	}
	return &AccountResult{User: ViewAccount(acc)}, nil
}

// AdminChangeUser is one of the admin's changes to a user's account flags:
// deactivate, activate, delete (soft) or restore. Deactivation and deletion
// end the user's sessions, access tokens and sockets at once.
type AdminChangeUser struct {
	Users *accounts.Management
	// Change is "deactivate", "activate", "delete" or "restore": the
	// action's path segment.
	Change string
}

// userChange is one change AdminChangeUser can make.
type userChange struct {
	verb, summary string
	apply         func(users *accounts.Management, ctx context.Context, id uuid.UUID, by accounts.Actor) (*models.Account, error)
}

// userChanges are the changes of AdminChangeUser, by path segment.
var userChanges = map[string]userChange{
	"deactivate": {"DeactivateUser", "Deactivate a user; every session ends",
		func(u *accounts.Management, ctx context.Context, id uuid.UUID, by accounts.Actor) (*models.Account, error) {
			return u.SetActive(ctx, id, false, by)
		}},
	"activate": {"ActivateUser", "Activate a user",
		func(u *accounts.Management, ctx context.Context, id uuid.UUID, by accounts.Actor) (*models.Account, error) {
			return u.SetActive(ctx, id, true, by)
		}},
	"delete": {"DeleteUser", "Delete a user (soft); every session ends", (*accounts.Management).Delete},
	"restore": {"RestoreUser", "Restore a deleted user; its sessions stay ended",
		(*accounts.Management).Restore},
}

// UserChanges lists the path segments of AdminChangeUser, in a fixed order.
func UserChanges() []string { return []string{"deactivate", "activate", "delete", "restore"} }

// Spec declares V1AdminDeactivateUser, V1AdminActivateUser,
// V1AdminDeleteUser or V1AdminRestoreUser. An unknown Change panics at
// registration.
func (a *AdminChangeUser) Spec() action.Spec {
	c, ok := userChanges[a.Change]
	if !ok {
		panic("v1: AdminChangeUser: unknown change " + a.Change)
	}
	if a.Change == "delete" {
		return sensitiveAdminSpec(c.verb, a.Change, c.summary, accounts.UserNotFound)
	}
	return adminUsersSpec(c.verb, a.Change, c.summary, accounts.UserNotFound)
}

// Run applies the change and answers the user as changed.
func (a *AdminChangeUser) Run(ctx context.Context, req *action.Request, in *UserIDArgs) (*AccountResult, error) {
	acc, err := userChanges[a.Change].apply(a.Users, ctx, in.ID, actor(req))
	if err != nil {
		return nil, userError(err)
	}
	return &AccountResult{User: ViewAccount(acc)}, nil
}
