package accountstest

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// Password is the password of every account the helpers make. It meets
// the password policy of the actions.
const Password = "Correct-horse-battery-9"

// Service is an account engine of an Env, with what its hooks reported.
type Service struct {
	*accounts.Service
	// The types built on the engine, wired to it as the server wires
	// them.
	Credentials   *accounts.Credentials
	SecondFactors *accounts.SecondFactors
	PasskeyFlows  *accounts.Passkeys
	Management    *accounts.Management
	OAuthSessions *accounts.OAuthSessions
	Activity      *accounts.Activity
	SelfService   *accounts.SelfService
	ended         record[Ended]
	outcomes      record[string]
}

// Ended is one call of the engine's Ended hook: sessions of an owner
// ended, nil meaning every one.
type Ended struct {
	Owner    action.OwnerType
	ID       uuid.UUID
	Sessions []uuid.UUID
}

// EndedCalls returns the calls of the Ended hook so far, in order.
func (s *Service) EndedCalls() []Ended { return s.ended.all() }

// Outcomes returns the refresh outcomes reported so far, in order.
func (s *Service) Outcomes() []string { return s.outcomes.all() }

// Forget clears what the hooks reported, so that a test observes only
// what follows.
func (s *Service) Forget() {
	s.ended.clear()
	s.outcomes.clear()
}

// Origin is a request of client from a fixed address and user agent: a
// browser on the web platform, or an app on ios.
func Origin(client action.Client) accounts.Origin {
	if client == action.App {
		return accounts.Origin{Client: action.App, Platform: "ios", IP: "192.0.2.20", UserAgent: "accountstest-app/1.0"}
	}
	return accounts.Origin{Client: action.Web, Platform: "web", IP: "192.0.2.10", UserAgent: "accountstest-browser/1.0"}
}

// NewAccount creates an active account of the engine's kind with a fresh
// address and Password, without a session (as the admin command does).
func (s *Service) NewAccount(t testing.TB) *models.Account {
	t.Helper()
	acc, err := s.Create(context.Background(), accounts.NewAccount{
		Email: NewEmail(), Password: Password, FirstName: "Ada", LastName: "Lovelace",
	})
	if err != nil {
		t.Fatalf("accountstest: create account: %v", err)
	}
	return acc
}

// LoggedIn creates an account (NewAccount) and logs it in from client.
func (s *Service) LoggedIn(t testing.TB, client action.Client) (*models.Account, *accounts.Issued) {
	t.Helper()
	acc := s.NewAccount(t)
	return acc, s.NewSession(t, acc, client)
}

// NewSession opens another session of acc from client.
func (s *Service) NewSession(t testing.TB, acc *models.Account, client action.Client) *accounts.Issued {
	t.Helper()
	iss, err := s.Login(context.Background(), acc.Email, Password, Origin(client))
	if err != nil {
		t.Fatalf("accountstest: log in %s: %v", acc.Email, err)
	}
	return iss
}

// NewEmail returns an address no other test uses.
func NewEmail() string { return "u" + uuid.NewString()[:13] + "@accountstest.example" }

// Caller is the caller an access token of iss authenticates, as the
// server's authenticator resolves it: for actiontest's As.
func (s *Service) Caller(iss *accounts.Issued) *action.Caller {
	c := &action.Caller{
		Type: s.Kind.Type, ID: iss.Account.ID, Client: action.Client(iss.Session.Client),
		TokenVersion: iss.Account.TokenVersion, SessionID: iss.Session.SessionID,
		SessionExpiresAt: iss.Session.ExpiresAt, Locale: iss.Account.Locale, Record: iss.Account,
		Assurance: action.Assurance{
			Methods: iss.Session.Methods, Level: int(iss.Session.Level),
			AuthenticatedAt: iss.Session.AuthenticatedAt, SecondFactor: iss.Account.MFAEnabled,
		},
	}
	if f := iss.Session.FactorAt; f != nil {
		c.Assurance.FactorAt = *f
	}
	return c
}

// Reload reads the account id as stored now.
func (s *Service) Reload(t testing.TB, id uuid.UUID) *models.Account {
	t.Helper()
	acc, err := s.Accounts.ByID(context.Background(), s.DB, id)
	if err != nil {
		t.Fatalf("accountstest: read account %s: %v", id, err)
	}
	return acc
}

// SessionsOf returns every session row of owner, live or not.
func (s *Service) SessionsOf(t testing.TB, owner uuid.UUID) []models.Session {
	t.Helper()
	list, err := s.Service.Sessions.ListByOwner(context.Background(), s.DB, owner)
	if err != nil {
		t.Fatalf("accountstest: sessions of %s: %v", owner, err)
	}
	return list
}

// Live returns the live sessions of owner (one a login), newest first.
func (s *Service) Live(t testing.TB, owner uuid.UUID) []models.Session {
	t.Helper()
	list, err := s.Activity.LiveSessions(context.Background(), owner)
	if err != nil {
		t.Fatalf("accountstest: live sessions of %s: %v", owner, err)
	}
	return list
}

// EventsOf returns the security events of owner, newest first.
func (s *Service) EventsOf(t testing.TB, owner uuid.UUID) []models.SecurityEvent {
	t.Helper()
	list, err := s.Service.Events.List(context.Background(), s.DB, string(s.Kind.Type), owner, nil, 1000)
	if err != nil {
		t.Fatalf("accountstest: events of %s: %v", owner, err)
	}
	return list
}

// EventTypes returns the types of the security events of owner, newest
// first.
func (s *Service) EventTypes(t testing.TB, owner uuid.UUID) []string {
	t.Helper()
	var out []string
	for _, ev := range s.EventsOf(t, owner) {
		out = append(out, ev.Type)
	}
	return out
}

// record is a list that hooks append to from any goroutine.
type record[T any] struct {
	mu    sync.Mutex
	items []T
}

func (r *record[T]) add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, v)
}

func (r *record[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.items)
}

func (r *record[T]) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = nil
}

// EventData decodes the data of ev (a JSON object).
func EventData(t testing.TB, ev models.SecurityEvent) map[string]any {
	t.Helper()
	data := map[string]any{}
	if err := json.Unmarshal(ev.Data, &data); err != nil {
		t.Fatalf("accountstest: data of event %s: %v", ev.Type, err)
	}
	return data
}
