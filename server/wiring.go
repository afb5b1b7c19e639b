package main

import (
	"context"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/invopop/validation"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	v2 "github.com/actionkit/actionkit/actions/v2"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/federation"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/posts"
	"github.com/actionkit/actionkit/queues"
	"github.com/actionkit/actionkit/ratelimit"
)

// services returns the account engine of each owner kind (built by
// compose).
func (a *app) services() (users, admins *accounts.Service) { return a.users, a.admins }

// loginFirstDelay is the first delay of the login slow-down; zero means the
// default 1 s. Tests lengthen it, once before any server starts, so that
// a slow machine cannot outwait it between two requests.
var loginFirstDelay time.Duration

func (a *app) newAccounts(kind accounts.Kind) *accounts.Service {
	s := accounts.NewService(kind, a.db, a.tokens, a.hasher, a.cfg.RefreshTokenTTL, a.log)
	s.Now = a.now
	s.MFA = a.cfg.MFA
	s.Notices = a.mailer
	outcomes := newCounterChildren(a.metrics.refresh, string(kind.Type))
	thefts := a.metrics.thefts.WithLabelValues(string(kind.Type))
	s.RefreshOutcome = func(outcome string) {
		outcomes.of(outcome).Inc()
		if outcome == "replay" {
			thefts.Inc()
		}
	}
	s.Ended = a.ended
	s.RefreshBudget = models.RefreshBudget{Max: a.cfg.AuthRateLimitMax, Window: a.cfg.AuthRateLimitWindow}
	s.Throttle = ratelimit.NewSlowDown(ratelimit.SlowDownConfig{
		Pool:       a.redis,
		Prefix:     a.cfg.JobsNamespace + ":ratelimit:login:" + string(kind.Type) + ":",
		Logger:     a.log,
		IPv6Prefix: a.cfg.RateLimitIPv6Prefix,
		FirstDelay: loginFirstDelay,
	})
	if kind.Type == accounts.Users.Type {
		s.Mail = &accounts.MailSettings{
			Mailer: a.mailer, Enqueuer: queues.NewEnqueuer(a.redis, a.cfg.JobsNamespace),
			ResetURL: a.cfg.PasswordResetURL, VerifyURL: a.cfg.EmailVerifyURL,
			ChangeURL: a.cfg.EmailChangeURL, RevertURL: a.cfg.EmailRevertURL,
			ResetTTL: a.cfg.PasswordResetTTL, VerifyTTL: a.cfg.EmailVerifyTTL,
			RequireVerified: a.cfg.RequireVerifiedEmail,
		}
	}
	return s
}

// rooms are the types built on one owner kind's account engine, each
// with its part of the engine's work (compose builds them once per kind).
type rooms struct {
	credentials *accounts.Credentials
	factors     *accounts.SecondFactors
	passkeys    *accounts.Passkeys
	// management is what admins do to users' accounts, and the
	// operator's admin resetmfa to an admin's.
	management *accounts.Management
	// activity is where the accounts are logged in and their security
	// events.
	activity *accounts.Activity
	// self is what an owner does to its own account.
	self *accounts.SelfService
}

// newRooms wires the types built on s, passkeys with the relying party
// rp (nil: off).
func newRooms(s *accounts.Service, rp *webauthn.WebAuthn) *rooms {
	passkeys := accounts.NewPasskeys(s, rp)
	return &rooms{
		credentials: &accounts.Credentials{Engine: s},
		factors:     &accounts.SecondFactors{Engine: s, Passkeys: passkeys},
		passkeys:    passkeys,
		management:  &accounts.Management{Engine: s},
		activity:    &accounts.Activity{Engine: s},
		self:        &accounts.SelfService{Engine: s},
	}
}

// newFederation builds sign-in through the configured identity providers,
// on the users' engine (compose calls it once, after newAccounts).
func (a *app) newFederation() *accounts.Federation {
	providers := federation.New(federation.Config{
		Providers: a.cfg.OIDC.Providers, RedirectURI: a.cfg.OIDC.RedirectURI, Now: a.now,
	})
	a.users.ProviderName = func(id string) string {
		p, _ := providers.Provider(id)
		return p.Name
	}
	return &accounts.Federation{Users: a.users, Providers: providers, Origins: a.cfg.OIDC.Origins, Key: a.cfg.DataKey,
		Flows: models.FlowStore{}.Prepared(a.db)}
}

// registerOIDCActions mounts sign-in through identity providers and the
// management of the users' identities.
func (a *app) registerOIDCActions(fw *framework.Framework, cookies v1.Cookies) {
	framework.Register(fw, &v1.OIDCProviders{Federation: a.federation})
	framework.Register(fw, &v1.OIDCStart{Federation: a.federation, Cookies: cookies})
	framework.Register(fw, &v1.OIDCCallback{Federation: a.federation, Cookies: cookies})
	framework.Register(fw, &v1.OIDCExchange{Federation: a.federation, Cookies: cookies})
	framework.Register(fw, &v1.OIDCLink{Federation: a.federation, Cookies: cookies})
	framework.Register(fw, &v1.Identities{Federation: a.federation})
	framework.Register(fw, &v1.UnlinkIdentity{Federation: a.federation})
}

// newPosts builds the posts engine (compose calls it once).
func (a *app) newPosts() *posts.Service {
	return &posts.Service{
		DB: a.db, Store: models.PostStore{}.Prepared(a.db), Emitter: a.emitter, Enqueuer: queues.NewEnqueuer(a.redis, a.cfg.JobsNamespace),
		Moderate: posts.Moderator{Blocked: a.cfg.ModerationBlocklist}.Check,
		Now:      a.now, Log: a.log,
		Published: func(how string) { a.metrics.published.WithLabelValues(how).Inc() },
	}
}

// authenticator resolves users and admins from their access tokens.
func (a *app) authenticator() *auth.Authenticator {
	users, admins := a.services()
	return auth.NewAuthenticator(a.tokens, users.Owner(), admins.Owner())
}

func validationRules(a *app) map[string]validation.Rule { return v1.Rules(a.catalog) }

// registerAdminUserActions mounts the actions admins manage users with.
func (a *app) registerAdminUserActions(fw *framework.Framework, users *accounts.Service) {
	manage := a.userRooms.management
	framework.Register(fw, &v1.AdminListUsers{Users: manage})
	framework.Register(fw, &v1.AdminReadUser{Users: users})
	framework.Register(fw, &v1.AdminUserSessions{Users: a.userRooms.activity})
	framework.Register(fw, &v1.AdminUserEvents{Users: a.userRooms.activity})
	framework.Register(fw, &v1.AdminRevokeUserSessions{Users: manage})
	framework.Register(fw, &v1.AdminResetUserMFA{Users: manage})
	framework.Register(fw, &v1.AdminUserIdentities{Federation: a.federation})
	framework.Register(fw, &v1.AdminUnlinkIdentity{Federation: a.federation})
	framework.Register(fw, &v1.AdminUserPasskeys{Passkeys: a.userRooms.passkeys})
	framework.Register(fw, &v1.AdminRemoveUserPasskey{Passkeys: a.userRooms.passkeys})
	for _, change := range v1.UserChanges() {
		framework.Register(fw, &v1.AdminChangeUser{Users: manage, Change: change})
	}
}

// registerMFAActions mounts the second factor and re-authentication of
// one owner type.
func registerMFAActions(fw *framework.Framework, factors *accounts.SecondFactors, cookies v1.Cookies) {
	framework.Register(fw, &v1.MFAStatus{Factors: factors})
	framework.Register(fw, &v1.TOTPEnroll{Factors: factors})
	framework.Register(fw, &v1.TOTPConfirm{Factors: factors, Cookies: cookies})
	framework.Register(fw, &v1.TOTPDisable{Factors: factors})
	framework.Register(fw, &v1.RecoveryCodesRegenerate{Factors: factors})
	framework.Register(fw, &v1.MFAVerify{Factors: factors, Cookies: cookies})
	framework.Register(fw, &v1.Reauthenticate{Factors: factors})
}

// registerActions mounts every action of the bundled server. The actions
// that take credentials declare their rate class on their spec, except
// refresh: a known token spends its session's budget in the engine, and one
// that names no session the client's, through limits (nil: not limited).
func (a *app) registerActions(fw *framework.Framework, limits *rateLimits) {
	users, admins := a.services()
	cookies := v1.Cookies{Secure: a.cfg.production(), MaxAge: a.cfg.RefreshTokenTTL}
	var refreshBudget func(context.Context, *action.Request) time.Duration
	if limits != nil {
		refreshBudget = limits.clientBudget(action.RateRefresh)
	}
	framework.Register(fw, &v1.Register{Accounts: users, Cookies: cookies})
	for _, k := range []struct {
		svc   *accounts.Service
		rooms *rooms
	}{{users, a.userRooms}, {admins, a.adminRooms}} {
		svc := k.svc
		framework.Register(fw, &v1.Login{Accounts: svc, Cookies: cookies})
		framework.Register(fw, &v1.Refresh{Accounts: svc, Cookies: cookies, ClientBudget: refreshBudget})
		framework.Register(fw, &v1.Logout{Accounts: svc, Cookies: cookies})
		framework.Register(fw, &v1.LogoutAll{Accounts: svc, Cookies: cookies})
		framework.Register(fw, &v1.Read{Accounts: svc})
		framework.Register(fw, &v1.ChangePassword{Credentials: k.rooms.credentials, Cookies: cookies})
		registerMFAActions(fw, k.rooms.factors, cookies)
		registerPasskeyActions(fw, k.rooms.passkeys, k.rooms.factors, cookies, limits)
	}
	activity := a.userRooms.activity
	framework.Register(fw, &v1.Sessions{Activity: activity})
	framework.Register(fw, &v1.RevokeSession{Activity: activity, Cookies: cookies})
	framework.Register(fw, &v1.SecurityEvents{Activity: activity})
	a.registerAdminUserActions(fw, users)
	a.registerWebhookActions(fw)
	a.oauth.registerClientActions(fw, limits)
	// The mail flows are for users only.
	creds := a.userRooms.credentials
	framework.Register(fw, &v1.RequestPasswordReset{Credentials: creds})
	framework.Register(fw, &v1.ResetPassword{Credentials: creds, Cookies: cookies})
	framework.Register(fw, &v1.VerifyEmail{Credentials: creds})
	framework.Register(fw, &v1.RequestEmailVerification{Credentials: creds})
	a.registerAccountActions(fw, users, cookies)
	framework.Register(fw, &v2.Login{Accounts: users, Cookies: cookies})
	a.registerOIDCActions(fw, cookies)
	framework.Register(fw, &v1.CreatePost{Posts: a.posts})
	framework.Register(fw, &v1.Publish{Posts: a.posts})
	// Last: the authorization server supports the scopes of the actions
	// registered before it.
	a.oauth.register(fw, limits)
}

// registerAccountActions mounts what a user does to its own account:
// profile, e-mail change and its revert, deletion and export.
func (a *app) registerAccountActions(fw *framework.Framework, users *accounts.Service, cookies v1.Cookies) {
	creds := a.userRooms.credentials
	framework.Register(fw, &v1.UpdateUser{Self: a.userRooms.self})
	framework.Register(fw, &v1.RequestEmailChange{Credentials: creds})
	framework.Register(fw, &v1.ConfirmEmailChange{Credentials: creds})
	framework.Register(fw, &v1.RevertEmailChange{Credentials: creds})
	framework.Register(fw, &v1.DeleteUser{Self: a.userRooms.self, Cookies: cookies})
	framework.Register(fw, &v1.ExportUser{Accounts: users, Activity: a.userRooms.activity, Factors: a.userRooms.factors,
		Passkeys: a.userRooms.passkeys, Federation: a.federation})
}
