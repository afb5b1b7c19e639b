package oauthserver

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/models"
)

// App is an application the user connected to, as "Connected apps" lists
// it.
type App struct {
	ClientID  string  `json:"clientId"`
	Name      string  `json:"name"`
	ClientURI *string `json:"clientUri"`
	// LogoURI is null for an unverified (dynamic or metadata) client:
	// anyone can register one, and no page shows its image.
	LogoURI    *string    `json:"logoUri"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// AppsResult is the answer of V1OAuthApps.
type AppsResult struct {
	Apps []App `json:"apps"`
}

// OAuthApps is V1OAuthApps: the applications the user consented to.
type OAuthApps struct {
	Server *Server
	Store  models.OAuthAppStore
}

// Spec declares V1OAuthApps.
func (a *OAuthApps) Spec() action.Spec {
	return action.Spec{Name: "V1OAuthApps", Path: "/v1/users/oauth/apps",
		Summary: "List the applications you signed in to with your account",
		Auth:    action.Owner(accounts.Users.Type)}
}

// Run lists the user's consents, newest first.
func (a *OAuthApps) Run(ctx context.Context, req *action.Request, _ *struct{}) (*AppsResult, error) {
	s := a.Server
	rows, err := a.Store.Apps(ctx, s.DB, req.Caller.ID)
	if err != nil {
		return nil, err
	}
	out := AppsResult{Apps: make([]App, 0, len(rows))}
	for _, r := range rows {
		app := App{ClientID: r.ClientID, Name: r.Name, ClientURI: r.ClientURI, Scopes: r.Scopes,
			CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt}
		if r.Source == models.OAuthClientAdmin {
			app.LogoURI = r.LogoURI
		}
		out.Apps = append(out.Apps, app)
	}
	return &out, nil
}

// RevokeAppArgs name the application to disconnect.
type RevokeAppArgs struct {
	ClientID string `arg:"clientId" validate:"required,max=2048"`
}

// OAuthRevokeApp is V1OAuthRevokeApp: the user disconnects an
// application: its consent and every session of it end at once.
type OAuthRevokeApp struct {
	Server *Server
	Store  models.OAuthAppStore
}

// Spec declares V1OAuthRevokeApp.
func (a *OAuthRevokeApp) Spec() action.Spec {
	return action.Spec{Name: "V1OAuthRevokeApp", Path: "/v1/users/oauth/revokeapp",
		Summary: "Disconnect an application: its access ends at once",
		Auth:    action.Owner(accounts.Users.Type),
		Errors:  []errorcodes.Code{UserOAuthAppNotFound}}
}

// Run deletes the consent, spends the codes not exchanged yet and revokes
// the user's OAuth sessions of the client, with the user's row locked first as by every session change
// (a refresh in flight then commits first, and its successor is revoked
// too), and the event oauth_app_revoked, in one transaction; the ended
// sessions are reported (their sockets closed) after commit. Neither a
// consent, a pending code nor a live session is USER_OAUTH_APP_NOT_FOUND.
func (a *OAuthRevokeApp) Run(ctx context.Context, req *action.Request, in *RevokeAppArgs) (*struct{}, error) {
	s := a.Server
	user := req.Caller.ID
	var ended []uuid.UUID
	o := accounts.Origin{Client: req.Client, Platform: req.Platform, IP: req.IP, UserAgent: req.UserAgent}
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		ended = ended[:0]
		if _, err := s.Users.Accounts.LockForUpdate(ctx, tx, user); err != nil {
			return err
		}
		had, err := a.Store.DeleteConsent(ctx, tx, user, in.ClientID)
		if err != nil {
			return err
		}
		now := s.now()
		// A code approved but not exchanged yet would open a session of
		// the disconnected app: it is spent now (its exchange is then
		// invalid_grant).
		codes, err := a.Store.VoidCodes(ctx, tx, user, in.ClientID, now)
		if err != nil {
			return err
		}
		live, err := a.Store.LiveSessions(ctx, tx, user, in.ClientID)
		if err != nil {
			return err
		}
		for _, chain := range live {
			ok, err := s.Users.Sessions.RevokeChain(ctx, tx, user, chain, now)
			if err != nil {
				return err
			}
			if ok {
				ended = append(ended, chain)
			}
		}
		if !had && len(ended) == 0 && codes == 0 {
			return UserOAuthAppNotFound.New()
		}
		return s.OAuthSessions.RecordEvent(ctx, tx, models.EventOAuthAppRevoked, user, req.Caller.SessionID, o,
			map[string]any{"clientId": in.ClientID, "sessions": len(ended)})
	})
	if err != nil {
		return nil, err
	}
	if len(ended) > 0 && s.Users.Ended != nil {
		s.Users.Ended(s.Users.Kind.Type, user, ended)
	}
	return &struct{}{}, nil
}

// AppActions returns the "Connected apps" actions over store, for
// framework.Register.
func (s *Server) AppActions(store models.OAuthAppStore) (*OAuthApps, *OAuthRevokeApp) {
	return &OAuthApps{Server: s, Store: store}, &OAuthRevokeApp{Server: s, Store: store}
}
