package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/google/uuid"
)

// The framework's authenticator interface, restated so that the framework
// package need not be imported.
var _ interface {
	Authenticate(context.Context, *http.Request, action.Needs) (*action.Caller, error)
} = (*Authenticator)(nil)

var (
	adminID   = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c")
	goneID    = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5d")
	brokenID  = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5e")
	wrappedID = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5f")
	endedSID  = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4b02")
	errDB     = errors.New("database is down")
)

type record struct{ name string }

// mapLoader serves principals from a map; goneID is unknown (wrapped for
// wrappedID), brokenID fails, and the session endedSID is not live.
func mapLoader(owners map[uuid.UUID]Principal) Loader {
	return func(_ context.Context, id, session uuid.UUID, _ action.Needs) (Principal, error) {
		if session == endedSID {
			return Principal{}, ErrSessionEnded
		}
		switch id {
		case brokenID:
			return Principal{}, errDB
		case wrappedID:
			return Principal{}, fmt.Errorf("soft-deleted: %w", ErrUnknownOwner)
		}
		p, ok := owners[id]
		if !ok {
			return Principal{}, ErrUnknownOwner
		}
		return p, nil
	}
}

var (
	testUser       = &record{"ada"}
	testAdmin      = &record{"root"}
	testSessionEnd = testT0.Add(24 * time.Hour)
)

func newTestAuthenticator(tb testing.TB) (*Authenticator, *Tokens) {
	tb.Helper()
	now := testT0
	tk := newTestTokens(tb, &now)
	a := NewAuthenticator(tk,
		Owner{Type: user, Load: mapLoader(map[uuid.UUID]Principal{
			testID: {TokenVersion: 3, Locale: "es", Record: testUser, SessionExpiresAt: testSessionEnd},
		})},
		Owner{Type: admin, Load: mapLoader(map[uuid.UUID]Principal{
			adminID: {TokenVersion: 0, Locale: "en", Record: testAdmin},
		})},
	)
	return a, tk
}

func issue(tb testing.TB, tk *Tokens, owner action.OwnerType, id uuid.UUID, version int64, client action.Client) string {
	tb.Helper()
	return issueIn(tb, tk, owner, id, testSID, version, client)
}

// issueIn issues a token of a given session.
func issueIn(tb testing.TB, tk *Tokens, owner action.OwnerType, id, sid uuid.UUID, version int64, client action.Client) string {
	tb.Helper()
	token, _, err := tk.Issue(owner, id, sid, version, client)
	if err != nil {
		tb.Fatalf("Issue: %v", err)
	}
	return token
}

func TestAuthenticate(t *testing.T) {
	a, tk := newTestAuthenticator(t)
	userTok := issue(t, tk, user, testID, 3, action.Web)
	appTok := issue(t, tk, user, testID, 3, action.App)
	adminTok := issue(t, tk, admin, adminID, 0, action.App)
	anHourAgo := testT0.Add(-time.Hour)
	expired, err := NewTokens(testSecret, "", 0, func() time.Time { return anHourAgo })
	if err != nil {
		t.Fatal(err)
	}
	expiredTok := issue(t, expired, user, testID, 3, action.Web)

	wantUser := &action.Caller{Type: user, ID: testID, Client: action.Web, TokenVersion: 3, Locale: "es", Record: testUser,
		SessionID: testSID, SessionExpiresAt: testSessionEnd}
	wantApp := &action.Caller{Type: user, ID: testID, Client: action.App, TokenVersion: 3, Locale: "es", Record: testUser,
		SessionID: testSID, SessionExpiresAt: testSessionEnd}
	wantAdmin := &action.Caller{Type: admin, ID: adminID, Client: action.App, TokenVersion: 0, Locale: "en", Record: testAdmin,
		SessionID: testSID}
	for _, tc := range []struct {
		name    string
		headers []string // Authorization values, nil for none
		want    *action.Caller
	}{
		{"user token", []string{"jwt-user " + userTok}, wantUser},
		{"user app token", []string{"jwt-user " + appTok}, wantApp},
		{"scheme in capitals", []string{"JWT-USER " + userTok}, wantUser},
		{"scheme in mixed case", []string{"Jwt-Admin " + adminTok}, wantAdmin},
		{"admin token", []string{"jwt-admin " + adminTok}, wantAdmin},
		{"no header", nil, nil},
		{"empty header", []string{""}, nil},
		{"two headers", []string{"jwt-user " + userTok, "jwt-user " + userTok}, nil},
		{"scheme only", []string{"jwt-user"}, nil},
		{"scheme and space", []string{"jwt-user "}, nil},
		{"two spaces", []string{"jwt-user  " + userTok}, nil},
		{"tab separator", []string{"jwt-user\t" + userTok}, nil},
		{"extra word", []string{"jwt-user " + userTok + " more"}, nil},
		{"token only", []string{userTok}, nil},
		{"Bearer scheme", []string{"Bearer " + userTok}, nil},
		{"scheme jwt", []string{"jwt " + userTok}, nil},
		{"scheme of unknown owner type", []string{"jwt-robot " + userTok}, nil},
		{"garbage token", []string{"jwt-user garbage"}, nil},
		{"expired token", []string{"jwt-user " + expiredTok}, nil},
		{"user token on admin scheme", []string{"jwt-admin " + userTok}, nil},
		{"admin token on user scheme", []string{"jwt-user " + adminTok}, nil},
		{"unknown owner", []string{"jwt-user " + issue(t, tk, user, goneID, 3, action.Web)}, nil},
		{"unknown owner, wrapped error", []string{"jwt-user " + issue(t, tk, user, wrappedID, 3, action.Web)}, nil},
		{"stale token version", []string{"jwt-user " + issue(t, tk, user, testID, 2, action.Web)}, nil},
		{"token version ahead of owner", []string{"jwt-user " + issue(t, tk, user, testID, 4, action.Web)}, nil},
		{"session ended", []string{"jwt-user " + issueIn(t, tk, user, testID, endedSID, 3, action.Web)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/v1/users/read", nil)
			for _, h := range tc.headers {
				r.Header.Add("Authorization", h)
			}
			got, err := a.Authenticate(context.Background(), r, action.Needs{})
			if err != nil {
				t.Fatalf("Authenticate: got error %v, want nil", err)
			}
			checkCaller(t, got, tc.want)
		})
	}
}

func checkCaller(tb testing.TB, got, want *action.Caller) {
	tb.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		tb.Errorf("caller: got %+v, want %+v", got, want)
	case !reflect.DeepEqual(*got, *want):
		tb.Errorf("caller: got %+v, want %+v", *got, *want)
	}
}

func TestAuthenticateLoaderFailure(t *testing.T) {
	a, tk := newTestAuthenticator(t)
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Authorization", "jwt-user "+issue(t, tk, user, brokenID, 3, action.Web))
	got, err := a.Authenticate(context.Background(), r, action.Needs{})
	if !errors.Is(err, errDB) || got != nil {
		t.Errorf("Authenticate: got (%+v, %v), want (nil, %v)", got, err, errDB)
	}
}

func TestVerifyToken(t *testing.T) {
	a, tk := newTestAuthenticator(t)
	userTok := issue(t, tk, user, testID, 3, action.App)
	for _, tc := range []struct {
		name    string
		owner   action.OwnerType
		token   string
		want    *action.Caller
		wantErr error
	}{
		{"user token", user, userTok, &action.Caller{Type: user, ID: testID, Client: action.App, TokenVersion: 3, Locale: "es", Record: testUser,
			SessionID: testSID, SessionExpiresAt: testSessionEnd}, nil},
		{"ended session", user, issueIn(t, tk, user, testID, endedSID, 3, action.App), nil, nil},
		{"empty token", user, "", nil, nil},
		{"scheme included", user, "jwt-user " + userTok, nil, nil},
		{"user token as admin", admin, userTok, nil, nil},
		{"stale version", user, issue(t, tk, user, testID, 1, action.Web), nil, nil},
		{"unknown owner", user, issue(t, tk, user, goneID, 3, action.Web), nil, nil},
		{"loader failure", user, issue(t, tk, user, brokenID, 3, action.Web), nil, errDB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a.Verify(context.Background(), tc.owner, tc.token)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Verify: got error %v, want %v", err, tc.wantErr)
			}
			checkCaller(t, got, tc.want)
		})
	}
	if got, err := a.Verify(context.Background(), "robot", userTok); err == nil || got != nil {
		t.Errorf("Verify of an unregistered owner type: got (%+v, %v), want an error", got, err)
	}
}

func TestRejectedHook(t *testing.T) {
	a, tk := newTestAuthenticator(t)
	var reasons []error
	a.Rejected = func(_ context.Context, reason error) { reasons = append(reasons, reason) }
	for _, tc := range []struct {
		name, header string
		calls        int
	}{
		{"no header", "", 0},
		{"valid token", "jwt-user " + issue(t, tk, user, testID, 3, action.Web), 0},
		{"unknown scheme", "Basic dXNlcjpwYXNz", 1},
		{"invalid token", "jwt-user x.y.z", 1},
		{"stale version", "jwt-user " + issue(t, tk, user, testID, 2, action.Web), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reasons = nil
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if tc.header != "" {
				r.Header.Set("Authorization", tc.header)
			}
			if _, err := a.Authenticate(context.Background(), r, action.Needs{}); err != nil {
				t.Fatal(err)
			}
			if len(reasons) != tc.calls {
				t.Errorf("Rejected calls: got %d (%v), want %d", len(reasons), reasons, tc.calls)
			}
		})
	}
}

func TestNewAuthenticatorPanics(t *testing.T) {
	tk, err := NewTokens(testSecret, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	load := mapLoader(nil)
	for _, tc := range []struct {
		name   string
		tokens *Tokens
		owners []Owner
	}{
		{"nil tokens", nil, []Owner{{Type: user, Load: load}}},
		{"invalid tokens", &Tokens{Secret: []byte("short")}, []Owner{{Type: user, Load: load}}},
		{"empty owner type", tk, []Owner{{Type: "", Load: load}}},
		{"nil loader", tk, []Owner{{Type: user}}},
		{"duplicate owner type", tk, []Owner{{Type: user, Load: load}, {Type: user, Load: load}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("NewAuthenticator: got no panic, want one")
				}
			}()
			NewAuthenticator(tc.tokens, tc.owners...)
		})
	}
}

func BenchmarkAuthenticate(b *testing.B) {
	a, tk := newTestAuthenticator(b)
	r := httptest.NewRequest(http.MethodPost, "/v1/users/read", nil)
	r.Header.Set("Authorization", "jwt-user "+issue(b, tk, user, testID, 3, action.Web))
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if c, err := a.Authenticate(ctx, r, action.Needs{}); c == nil || err != nil {
				b.Fatalf("Authenticate: got (%v, %v)", c, err)
			}
		}
	})
}
