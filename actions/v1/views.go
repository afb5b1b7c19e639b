package v1

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/models"
)

// AccountView is the account object on the wire: an explicit whitelist, so
// that no password, salt, token version or hash can ever be serialised.
type AccountView struct {
	ID          uuid.UUID  `json:"id"`
	Email       string     `json:"email"`
	FirstName   string     `json:"firstName"`
	LastName    string     `json:"lastName"`
	Timezone    string     `json:"timezone"`
	Locale      string     `json:"locale"`
	IsActive    bool       `json:"isActive"`
	DeletedAt   *time.Time `json:"deletedAt"`
	LoginCount  int64      `json:"loginCount"`
	LastLoginAt *time.Time `json:"lastLoginAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	// EmailVerifiedAt is when the address was verified, or null.
	EmailVerifiedAt *time.Time `json:"emailVerifiedAt"`
	// MFAEnabled reports a confirmed second factor: password logins then
	// answer MFA_REQUIRED.
	MFAEnabled bool `json:"mfaEnabled"`
	// HasPassword reports that the account can log in with a password.
	HasPassword bool `json:"hasPassword"`
}

// ViewAccount builds the wire object of a.
func ViewAccount(a *models.Account) *AccountView {
	return &AccountView{
		ID: a.ID, Email: a.Email, FirstName: a.FirstName, LastName: a.LastName,
		Timezone: a.Timezone, Locale: a.Locale, IsActive: a.IsActive, DeletedAt: a.DeletedAt,
		LoginCount: a.LoginCount, LastLoginAt: a.LastLoginAt, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		EmailVerifiedAt: a.EmailVerifiedAt, MFAEnabled: a.MFAEnabled, HasPassword: a.HasPassword,
	}
}

// SessionResult is the answer of register, login and refresh. The account
// is under the owner type's name ("user" or "admin"). RefreshToken is
// present only for app clients: a web page never sees the raw token, which
// it holds in an httpOnly cookie. DeviceToken is present only in an app
// client's login answers (a web page holds it in the device cookie).
type SessionResult struct {
	Token        string       `json:"token"`
	RefreshToken string       `json:"refreshToken,omitempty"`
	DeviceToken  string       `json:"deviceToken,omitempty"`
	User         *AccountView `json:"user,omitempty"`
	Admin        *AccountView `json:"admin,omitempty"`
}

// AccountResult is the answer of read.
type AccountResult struct {
	User  *AccountView `json:"user,omitempty"`
	Admin *AccountView `json:"admin,omitempty"`
}

// Empty is the answer of actions that carry nothing beyond status and
// success (logout, logoutall).
type Empty struct{}

// SessionView is a session (a login) on the wire: the live row of its
// chain of rotations. CreatedAt is the login's time, LastUsedAt its latest
// refresh (the login's time before any), ExpiresAt that of its live refresh
// token; UserAgent and IPAddress are those of its latest login or refresh.
type SessionView struct {
	ID         uuid.UUID `json:"id"`
	Client     string    `json:"client"`
	Platform   string    `json:"platform"`
	UserAgent  *string   `json:"userAgent"`
	IPAddress  *string   `json:"ipAddress"`
	CreatedAt  time.Time `json:"createdAt"`
	LastUsedAt time.Time `json:"lastUsedAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
	// Current is true for the caller's own session.
	Current bool `json:"current"`
	// AuthMethods are how the session was authenticated (RFC 8176
	// values: pwd, otp, rcv, hwk, fed), Aal its assurance level (1, or 2
	// with a second factor), AuthenticatedAt its last interactive
	// authentication, and Provider the identity provider of a federated
	// login (null otherwise).
	AuthMethods     []string  `json:"authMethods"`
	Aal             int       `json:"aal"`
	AuthenticatedAt time.Time `json:"authenticatedAt"`
	Provider        *string   `json:"provider"`
	// OAuthClientID and OAuthClientName name the application of an OAuth
	// session (client "oauth"), null for first-party sessions.
	OAuthClientID   *string `json:"oauthClientId"`
	OAuthClientName *string `json:"oauthClientName"`
}

// ViewSession builds the wire object of the live row of a session; current
// names the caller's own session (uuid.Nil: none).
func ViewSession(s *models.Session, current uuid.UUID) SessionView {
	return SessionView{
		ID: s.SessionID, Client: s.Client, Platform: s.Platform,
		UserAgent: rawUserAgent(s.UserAgent), IPAddress: s.IPAddress,
		CreatedAt: s.LoginAt, LastUsedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt,
		Current:     current != uuid.Nil && s.SessionID == current,
		AuthMethods: append([]string{}, s.Methods...), Aal: int(s.Level), AuthenticatedAt: s.AuthenticatedAt,
		Provider: s.Provider,
	}
}

// ViewSessions builds the wire objects of live sessions; clients names
// the applications of the OAuth sessions among them.
func ViewSessions(list []models.Session, current uuid.UUID, clients map[uuid.UUID]models.OAuthSessionClient) []SessionView {
	out := make([]SessionView, len(list))
	for i := range list {
		out[i] = ViewSession(&list[i], current)
		if c, ok := clients[list[i].SessionID]; ok {
			out[i].OAuthClientID, out[i].OAuthClientName = &c.ClientID, &c.Name
		}
	}
	return out
}

// viewLiveSessions lists the live sessions of owner on the wire.
func viewLiveSessions(ctx context.Context, activity *accounts.Activity, owner, current uuid.UUID) (*SessionsResult, error) {
	list, err := activity.LiveSessions(ctx, owner)
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, 0, len(list))
	for _, s := range list {
		if s.Client == models.ClientOAuth {
			ids = append(ids, s.SessionID)
		}
	}
	clients, err := activity.OAuthSessionClients(ctx, ids)
	if err != nil {
		return nil, err
	}
	return &SessionsResult{Sessions: ViewSessions(list, current, clients)}, nil
}

// rawUserAgent reads the User-Agent header stored as {"raw": "..."}.
func rawUserAgent(doc []byte) *string {
	var ua struct {
		Raw *string `json:"raw"`
	}
	if len(doc) == 0 || json.Unmarshal(doc, &ua) != nil {
		return nil
	}
	return ua.Raw
}

// EventView is a security event on the wire.
type EventView struct {
	ID        uuid.UUID      `json:"id"`
	Type      string         `json:"type"`
	SessionID *uuid.UUID     `json:"sessionId"`
	IPAddress *string        `json:"ipAddress"`
	UserAgent *string        `json:"userAgent"`
	Data      map[string]any `json:"data"`
	CreatedAt time.Time      `json:"createdAt"`
}

// ViewEvents builds the wire objects of security events.
func ViewEvents(list []models.SecurityEvent) []EventView {
	out := make([]EventView, len(list))
	for i, e := range list {
		data := map[string]any{}
		_ = json.Unmarshal(e.Data, &data) // a jsonb object: cannot fail
		out[i] = EventView{ID: e.ID, Type: e.Type, SessionID: e.SessionID, IPAddress: e.IPAddress,
			UserAgent: e.UserAgent, Data: data, CreatedAt: e.CreatedAt}
	}
	return out
}

// SessionsResult is the answer of the session lists.
type SessionsResult struct {
	Sessions []SessionView `json:"sessions"`
}

// EventsResult is a page of security events; NextCursor is null on the
// last page.
type EventsResult struct {
	Events     []EventView `json:"events"`
	NextCursor *string     `json:"nextCursor"`
}

// cursorOrNull is the wire form of a next-page cursor: null when empty.
func cursorOrNull(c string) *string {
	if c == "" {
		return nil
	}
	return &c
}

// accountResult answers acc under its kind's name ("user" or "admin").
func accountResult(kind accounts.Kind, acc *models.Account) *AccountResult {
	if kind.Type == accounts.Admins.Type {
		return &AccountResult{Admin: ViewAccount(acc)}
	}
	return &AccountResult{User: ViewAccount(acc)}
}
