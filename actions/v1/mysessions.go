package v1

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Sessions lists the caller's live sessions (where it is logged in),
// newest login first, its own marked current.
type Sessions struct {
	Activity *accounts.Activity
}

// Spec declares V1Sessions.
func (a *Sessions) Spec() action.Spec {
	kind := a.Activity.Engine.Kind
	s := specFor(kind, "Sessions", "sessions")
	s.Summary = "List where you are logged in"
	s.Auth = action.Owner(kind.Type)
	return s
}

// Run lists the sessions.
func (a *Sessions) Run(ctx context.Context, req *action.Request, _ *struct{}) (*SessionsResult, error) {
	return viewLiveSessions(ctx, a.Activity, req.Caller.ID, req.Caller.SessionID)
}

// RevokeSession ends one of the caller's sessions ("log out this device"),
// its access tokens and sockets at once. Ending the caller's own session is
// a logout, and clears its refresh cookie.
type RevokeSession struct {
	Activity *accounts.Activity
	Cookies  Cookies
}

// RevokeSessionArgs are the arguments of RevokeSession.
type RevokeSessionArgs struct {
	SessionID uuid.UUID `arg:"sessionId" validate:"required"`
}

// Spec declares V1RevokeSession.
func (a *RevokeSession) Spec() action.Spec {
	kind := a.Activity.Engine.Kind
	s := specFor(kind, "RevokeSession", "revokesession")
	s.Summary = "End one of your sessions"
	s.Auth = action.Owner(kind.Type)
	s.Errors = []errorcodes.Code{accounts.UserSessionNotFound}
	return s
}

// Run ends the session. Another owner's, unknown or ended session is
// USER_SESSION_NOT_FOUND.
func (a *RevokeSession) Run(ctx context.Context, req *action.Request, in *RevokeSessionArgs) (*Empty, error) {
	err := a.Activity.RevokeSession(ctx, req.Caller.ID, in.SessionID, req.Caller.SessionID, Origin(req))
	if errors.Is(err, accounts.ErrSessionNotFound) {
		return nil, accounts.UserSessionNotFound.New()
	}
	if err != nil {
		return nil, err
	}
	if in.SessionID == req.Caller.SessionID {
		a.Cookies.Clear(req, a.Activity.Engine.Kind.Type)
	}
	return &Empty{}, nil
}

// SecurityEvents pages through the caller's security events, newest first.
type SecurityEvents struct {
	Activity *accounts.Activity
}

// PageArgs are the arguments of a paged listing: the page size and the
// cursor of the page (nextCursor of the previous one; none for the first).
type PageArgs struct {
	Limit  int    `arg:"limit" default:"50" validate:"min=1,max=100"`
	Cursor string `arg:"cursor" validate:"max=64"`
}

// Spec declares V1SecurityEvents.
func (a *SecurityEvents) Spec() action.Spec {
	kind := a.Activity.Engine.Kind
	s := specFor(kind, "SecurityEvents", "securityevents")
	s.Summary = "Page through your security events"
	s.Auth = action.Owner(kind.Type)
	return s
}

// Run answers a page of events.
func (a *SecurityEvents) Run(ctx context.Context, req *action.Request, in *PageArgs) (*EventsResult, error) {
	return eventsPage(ctx, a.Activity, req.Caller.ID, in)
}

// eventsPage answers a page of the security events of owner.
func eventsPage(ctx context.Context, activity *accounts.Activity, owner uuid.UUID, in *PageArgs) (*EventsResult, error) {
	list, next, err := activity.SecurityEvents(ctx, owner, in.Cursor, in.Limit)
	if err != nil {
		return nil, AccountError(activity.Engine.Kind, err)
	}
	return &EventsResult{Events: ViewEvents(list), NextCursor: cursorOrNull(next)}, nil
}
