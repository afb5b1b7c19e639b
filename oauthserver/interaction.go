package oauthserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// requestIDPattern is a requestId: 32 random bytes as 64 hex.
var requestIDPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// RequestArgs name a pending authorization request.
type RequestArgs struct {
	RequestID string `arg:"requestId" validate:"required,max=64"`
}

// InteractionClient is the client of a pending request, as the consent
// page shows it.
type InteractionClient struct {
	ClientID  string  `json:"clientId"`
	Name      string  `json:"name"`
	ClientURI *string `json:"clientUri"`
	LogoURI   *string `json:"logoUri"`
	Source    string  `json:"source"`
	// Verified is true for admin clients only.
	Verified bool `json:"verified"`
}

// InteractionRequest is a pending request, as the consent page shows it.
type InteractionRequest struct {
	Client      InteractionClient `json:"client"`
	RedirectURI string            `json:"redirectUri"`
	Scopes      []string          `json:"scopes"`
	Resources   []string          `json:"resources"`
	Prompt      []string          `json:"prompt"`
	MaxAge      *int32            `json:"maxAge"`
	// ConsentRequired is set when a user token came with the request.
	ConsentRequired *bool `json:"consentRequired,omitempty"`
}

// RequestResult is the answer of V1OAuthRequest.
type RequestResult struct {
	Request InteractionRequest `json:"request"`
}

// RedirectResult is the answer of approve and deny: where the page sends
// the browser.
type RedirectResult struct {
	RedirectTo string `json:"redirectTo"`
}

// pending reads the live request named by requestID and its client. The
// browser's oauth-request cookie must be <requestId>.<secret> of that
// request: the same requestId, and a secret whose SHA-256 is the stored
// browser hash (the interaction URL never carries the secret, so a leaked
// requestId is no use to another browser). Anything else is
// USER_BAD_REQUEST_INVALID_OAUTH_REQUEST.
func (s *Server) pending(ctx context.Context, req *action.Request, requestID string) (*models.OAuthRequest, *models.OAuthClient, error) {
	cookie, _ := req.Cookie(RequestCookie)
	cookieID, secret, _ := strings.Cut(cookie, ".")
	if !requestIDPattern.MatchString(requestID) || secret == "" ||
		subtle.ConstantTimeCompare([]byte(cookieID), []byte(requestID)) != 1 {
		return nil, nil, UserInvalidOAuthRequest.New()
	}
	r, err := s.Store.RequestByHash(ctx, s.DB, hashID(requestID))
	if notFound(err) {
		return nil, nil, UserInvalidOAuthRequest.New()
	}
	if err != nil {
		return nil, nil, err
	}
	if !r.Live(s.now()) || r.BrowserHash == nil ||
		subtle.ConstantTimeCompare([]byte(hashID(secret)), []byte(*r.BrowserHash)) != 1 {
		return nil, nil, UserInvalidOAuthRequest.New()
	}
	client, err := s.lookupClient(ctx, r.ClientID)
	if notFound(err) {
		return nil, nil, UserInvalidOAuthRequest.New()
	}
	if err != nil {
		return nil, nil, err
	}
	return r, client, nil
}

// consentRequired reports whether the page must ask user before approving
// r: unless a recorded consent covers every scope and resource, prompt
// has no consent, and the redirect URI is not one any local program can
// claim for a public client (RFC 8252 §8.6).
func (s *Server) consentRequired(ctx context.Context, user uuid.UUID, client *models.OAuthClient, r *models.OAuthRequest) (bool, error) {
	if slices.Contains(r.Prompt, "consent") || (client.Public() && LoopbackOrPrivateUse(r.RedirectURI)) {
		return true, nil
	}
	c, err := s.Store.Consent(ctx, s.DB, user, client.ClientID)
	if notFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	for _, sc := range r.Scopes {
		if !slices.Contains(c.Scopes, sc) {
			return true, nil
		}
	}
	for _, res := range r.Resources {
		if !slices.Contains(c.Resources, res) {
			return true, nil
		}
	}
	return false, nil
}

// OAuthRequest is V1OAuthRequest: what a pending request asks, for the
// consent page.
type OAuthRequest struct{ Server *Server }

// Spec declares V1OAuthRequest.
func (a *OAuthRequest) Spec() action.Spec {
	return action.Spec{Name: "V1OAuthRequest", Path: "/v1/users/oauth/request",
		Summary: "Read a pending sign-in request of an application",
		Auth:    action.Optional(accounts.Users.Type), SameSite: true,
		Errors: []errorcodes.Code{UserInvalidOAuthRequest}}
}

// Run answers the request.
func (a *OAuthRequest) Run(ctx context.Context, req *action.Request, in *RequestArgs) (*RequestResult, error) {
	s := a.Server
	r, client, err := s.pending(ctx, req, in.RequestID)
	if err != nil {
		return nil, err
	}
	out := InteractionRequest{
		Client: InteractionClient{ClientID: client.ClientID, Name: client.Name, ClientURI: client.ClientURI,
			LogoURI: client.LogoURI, Source: client.Source, Verified: client.Verified()},
		RedirectURI: r.RedirectURI, Scopes: r.Scopes, Resources: r.Resources, Prompt: r.Prompt, MaxAge: r.MaxAge,
	}
	if req.Caller != nil {
		need, err := s.consentRequired(ctx, req.Caller.ID, client, r)
		if err != nil {
			return nil, err
		}
		out.ConsentRequired = &need
	}
	return &RequestResult{Request: out}, nil
}

// OAuthApprove is V1OAuthApprove: the signed-in user approves a pending
// request, and the browser goes back to the client with a code.
type OAuthApprove struct{ Server *Server }

// Spec declares V1OAuthApprove.
func (a *OAuthApprove) Spec() action.Spec {
	return action.Spec{Name: "V1OAuthApprove", Path: "/v1/users/oauth/approve",
		Summary: "Approve a sign-in request of an application",
		Auth:    action.Owner(accounts.Users.Type), SameSite: true,
		Errors: []errorcodes.Code{UserInvalidOAuthRequest, accounts.UserReauthRequired}}
}

// Run approves: the session must meet prompt=login, max_age and the
// client's minimum assurance level; the consent is recorded (widened),
// the code issued, and the request spent, in one transaction.
func (a *OAuthApprove) Run(ctx context.Context, req *action.Request, in *RequestArgs) (*RedirectResult, error) {
	s := a.Server
	r, client, err := s.pending(ctx, req, in.RequestID)
	if err != nil {
		return nil, err
	}
	user, session := req.Caller.ID, req.Caller.SessionID
	sess, err := s.Users.Sessions.LiveInChain(ctx, s.DB, user, session)
	if notFound(err) {
		return nil, errorcodes.Unauthorized.New()
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	if reason := s.reauthNeeded(r, client, sess.Assurance, now); reason != "" {
		e := accounts.UserReauthRequired.New()
		if s.ReauthDetails != nil {
			d, err := s.ReauthDetails(ctx, user, client.MinAAL >= 2)
			if err != nil {
				return nil, err
			}
			e.Details = d
		}
		return nil, e
	}
	code, err := randomToken()
	if err != nil {
		return nil, err
	}
	var first bool
	o := accounts.Origin{Client: req.Client, Platform: req.Platform, IP: req.IP, UserAgent: req.UserAgent}
	err = models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		if _, err := s.Store.SpendRequest(ctx, tx, r.RequestHash, now); err != nil {
			if notFound(err) {
				return UserInvalidOAuthRequest.New()
			}
			return err
		}
		var err error
		if _, first, err = s.Store.WidenConsent(ctx, tx, user, client.ClientID, r.Scopes, r.Resources, now); err != nil {
			return err
		}
		if err := s.OAuthSessions.RecordEvent(ctx, tx, models.EventOAuthAppConnected, user, session, o,
			map[string]any{"clientId": client.ClientID, "scopes": r.Scopes}); err != nil {
			return err
		}
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		return s.Store.InsertCode(ctx, tx, &models.OAuthCode{ID: id, CodeHash: hashID(code), ClientID: client.ClientID,
			UserID: user, ApprovingSessionID: session, RedirectURI: r.RedirectURI, CodeChallenge: r.CodeChallenge,
			Scopes: r.Scopes, Resources: r.Resources, Nonce: r.Nonce, AuthTime: sess.AuthenticatedAt,
			CreatedAt: now, ExpiresAt: now.Add(CodeTTL)})
	})
	if err != nil {
		return nil, err
	}
	s.clearCookie(req)
	if first {
		s.notifyConnected(ctx, req, client)
	}
	v := url.Values{"code": {code}, "iss": {s.Issuer}}
	if r.State != nil {
		v.Set("state", *r.State)
	}
	return &RedirectResult{RedirectTo: withQuery(r.RedirectURI, v)}, nil
}

// reauthNeeded says why the session authenticated as a cannot approve r
// ("" when it can): prompt=login and a session authenticated before the
// request was made, max_age not met (met when the session authenticated
// after the request was made or within max_age seconds; max_age=0 is
// prompt=login), or an assurance level below the client's minimum.
func (s *Server) reauthNeeded(r *models.OAuthRequest, client *models.OAuthClient, a models.Assurance, now time.Time) string {
	fresh := !a.AuthenticatedAt.Before(r.CreatedAt)
	switch {
	case slices.Contains(r.Prompt, "login") && !fresh:
		return "prompt=login"
	case r.MaxAge != nil && !fresh && now.Sub(a.AuthenticatedAt) > time.Duration(*r.MaxAge)*time.Second:
		return "max_age"
	case r.MaxAge != nil && *r.MaxAge == 0 && !fresh:
		return "max_age"
	case a.Level < client.MinAAL:
		return "min_aal"
	}
	return ""
}

// notifyConnected sends the mail of a first connection of client, after
// commit; it never fails the approval.
func (s *Server) notifyConnected(ctx context.Context, req *action.Request, client *models.OAuthClient) {
	if s.Notices == nil || !s.Notices.Available() {
		return
	}
	acc, ok := req.Caller.Record.(*models.Account)
	if !ok {
		var err error
		if acc, err = s.Users.Account(ctx, req.Caller.ID); err != nil {
			s.log().Warn("connection mail not queued", "error", err.Error())
			return
		}
	}
	msg := mail.Message{Kind: mail.OAuthAppConnected, To: acc.Email, Locale: acc.Locale, App: client.Name}
	if _, err := s.Notices.Enqueue(context.WithoutCancel(ctx), msg, s.now().Add(24*time.Hour)); err != nil {
		s.log().Warn("connection mail not queued", "userId", acc.ID.String(), "error", err.Error())
	}
}

// DenyArgs are the arguments of V1OAuthDeny.
type DenyArgs struct {
	RequestID string `arg:"requestId" validate:"required,max=64"`
	Error     string `arg:"error" default:"access_denied" validate:"oneof=access_denied|login_required|consent_required|interaction_required"`
}

// OAuthDeny is V1OAuthDeny: the user (or the page, for prompt=none)
// denies a pending request, and the browser goes back to the client with
// the error.
type OAuthDeny struct{ Server *Server }

// Spec declares V1OAuthDeny.
func (a *OAuthDeny) Spec() action.Spec {
	return action.Spec{Name: "V1OAuthDeny", Path: "/v1/users/oauth/deny",
		Summary: "Deny a sign-in request of an application",
		Auth:    action.Public, SameSite: true,
		Errors: []errorcodes.Code{UserInvalidOAuthRequest}}
}

// Run denies the request and spends it.
func (a *OAuthDeny) Run(ctx context.Context, req *action.Request, in *DenyArgs) (*RedirectResult, error) {
	s := a.Server
	r, _, err := s.pending(ctx, req, in.RequestID)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.SpendRequest(ctx, s.DB, r.RequestHash, s.now()); err != nil {
		if notFound(err) {
			return nil, UserInvalidOAuthRequest.New()
		}
		return nil, err
	}
	s.clearCookie(req)
	v := url.Values{"error": {in.Error}, "iss": {s.Issuer}}
	if r.State != nil {
		v.Set("state", *r.State)
	}
	return &RedirectResult{RedirectTo: withQuery(r.RedirectURI, v)}, nil
}

// clearCookie deletes the oauth-request cookie of a spent request.
func (s *Server) clearCookie(req *action.Request) {
	req.SetCookie(&http.Cookie{Name: RequestCookie, Value: "", Path: RequestCookiePath, Expires: time.Unix(0, 0),
		HttpOnly: true, Secure: s.SecureCookies, SameSite: http.SameSiteLaxMode})
}

// Actions returns the interaction actions, for framework.Register.
func (s *Server) Actions() (*OAuthRequest, *OAuthApprove, *OAuthDeny) {
	return &OAuthRequest{Server: s}, &OAuthApprove{Server: s}, &OAuthDeny{Server: s}
}

// randomToken is 32 random bytes as base64url: an authorization code.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// hashID is the stored form of a requestId or code.
func hashID(v string) string { return auth.HashOpaqueToken(v) }
