// Package accountstest builds the real account engine for tests: an
// accounts.Service of users and one of admins, wired as the server wires
// them, over a PostgreSQL database and a Redis key namespace of the test's
// own, with cheap password hashing, a data key for second factors, a
// clock the test can move, and hooks that record what the engine reports
// (ended sessions, refresh outcomes).
//
// It serves the tests of package accounts and of the actions built on it:
//
//	env := accountstest.New(t)
//	acc, iss := env.Users.LoggedIn(t, action.Web)
//	api.As(env.Users.Caller(iss)).Call("POST", "/v1/users/logoutall", nil)
//	env.Users.EventTypes(t, acc.ID) // newest first: logoutall, login
package accountstest

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/internal/redistest"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/queues"
	"github.com/actionkit/actionkit/ratelimit"
)

// The lifetimes of the tokens the engines issue: refresh and access
// tokens, and the token of a reset mail (a verification mail's lives a
// day).
const (
	RefreshTTL = 24 * time.Hour
	AccessTTL  = 15 * time.Minute
	ResetTTL   = time.Hour
)

// The login slow-down: after SlowDownAfter failed logins of one address
// and client, its next attempt must wait SlowDownFirst, long enough that a
// slow machine cannot outwait it between two calls (a test that wants it
// over advances the Clock).
const (
	SlowDownAfter = 3
	SlowDownFirst = time.Minute
)

// Env is one test's account engines and what they run on.
type Env struct {
	DB *sqlx.DB
	// Redis is a pool on the test's Redis server; every key the engines
	// write starts with Namespace and is deleted when the test ends.
	Redis *redis.Pool
	// Namespace is the JOBS_NAMESPACE of the queues, mails and slow-down.
	Namespace string
	Clock     *Clock
	Tokens    *auth.Tokens
	Hasher    *auth.Hasher
	Log       *slog.Logger
	// DataKey seals the engines' TOTP secrets and keys their recovery
	// codes.
	DataKey *datakey.Key
	// Users and Admins are the engines of the two owner types. Users
	// sends mail (reset and verification); Admins, like the server's,
	// does not.
	Users, Admins *Service
}

// New builds an Env on a fresh database and Redis namespace, both removed
// when the test ends. Without PostgreSQL or Redis the test is skipped, or
// fails when CI=true.
func New(t testing.TB) *Env {
	t.Helper()
	db := pgtest.New(t)
	_, prefix, pool := redistest.New(t)
	clock := &Clock{}
	tokens, err := auth.NewTokens([]byte("accountstest-secret-0123456789abcdefghijkl"), "accountstest", AccessTTL, clock.Now)
	if err != nil {
		t.Fatalf("accountstest: %v", err)
	}
	e := &Env{
		DB: db, Redis: pool, Namespace: strings.TrimSuffix(prefix, ":"), Clock: clock,
		// Hashing with 1 MiB and one pass: the tests are not about its cost.
		Tokens: tokens, Hasher: auth.NewHasher(auth.HasherConfig{MemoryKiB: 1024, Time: 1, Threads: 1, Concurrency: 2}),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if e.DataKey, err = datakey.Random(); err != nil {
		t.Fatalf("accountstest: %v", err)
	}
	e.Users = e.NewService(t, accounts.Users)
	e.Admins = e.NewService(t, accounts.Admins)
	return e
}

// NewService builds another engine of kind over e, with hooks of its own:
// the Service a test needs when it observes one engine alone. Its refresh
// budget is unbounded; a test that needs one sets RefreshBudget.
func (e *Env) NewService(t testing.TB, kind accounts.Kind) *Service {
	t.Helper()
	s := &Service{Service: accounts.NewService(kind, e.DB, e.Tokens, e.Hasher, RefreshTTL, e.Log)}
	s.Now = e.Clock.Now
	s.MFA = accounts.DefaultMFASettings()
	s.MFA.Key = e.DataKey
	s.Ended = func(owner action.OwnerType, id uuid.UUID, sessions []uuid.UUID) {
		s.ended.add(Ended{Owner: owner, ID: id, Sessions: sessions})
	}
	s.RefreshOutcome = s.outcomes.add
	s.Throttle = ratelimit.NewSlowDown(ratelimit.SlowDownConfig{
		Pool:         e.Redis,
		Prefix:       e.Namespace + ":ratelimit:login:" + string(kind.Type) + ":",
		Logger:       e.Log,
		Now:          e.Clock.Now,
		PairFailures: SlowDownAfter,
		FirstDelay:   SlowDownFirst,
	})
	// Both kinds mail their notices (of changes to the second factor, say);
	// only users mail reset and verification links.
	s.Notices = e.mailer(t)
	if kind.Type == accounts.Users.Type {
		s.Mail = e.mailSettings(s.Notices)
	}
	s.Credentials = &accounts.Credentials{Engine: s.Service}
	s.PasskeyFlows = accounts.NewPasskeys(s.Service, nil)
	s.SecondFactors = &accounts.SecondFactors{Engine: s.Service, Passkeys: s.PasskeyFlows}
	s.Management = &accounts.Management{Engine: s.Service}
	s.OAuthSessions = &accounts.OAuthSessions{Engine: s.Service}
	s.Activity = &accounts.Activity{Engine: s.Service}
	s.SelfService = &accounts.SelfService{Engine: s.Service}
	return s
}

// mailer is a mailer with real templates that stores each message in
// Redis and queues its job (no worker sends it).
func (e *Env) mailer(t testing.TB) *mail.Mailer {
	t.Helper()
	templates, err := mail.NewTemplates([]string{"en", "es", "zh-TW"})
	if err != nil {
		t.Fatalf("accountstest: %v", err)
	}
	return &mail.Mailer{Templates: templates, Sender: mail.LogSender{Log: e.Log}, Pool: e.Redis,
		Prefix: e.Namespace, Enqueuer: queues.NewEnqueuer(e.Redis, e.Namespace), Now: e.Clock.Now, Log: e.Log}
}

// mailSettings are the users' mail flows, sent with mailer.
func (e *Env) mailSettings(mailer *mail.Mailer) *accounts.MailSettings {
	return &accounts.MailSettings{
		Mailer:    mailer,
		Enqueuer:  mailer.Enqueuer,
		ResetURL:  "https://app.example/reset?token={token}",
		VerifyURL: "https://app.example/verify?token={token}",
		ChangeURL: "https://app.example/confirm-email?token={token}",
		RevertURL: "https://app.example/revert-email?token={token}",
		ResetTTL:  ResetTTL, VerifyTTL: 24 * time.Hour,
	}
}

// Clock is the engines' clock: the real time in UTC to the microsecond,
// moved forward by Advance. It is safe for concurrent use.
type Clock = testclock.Offset
