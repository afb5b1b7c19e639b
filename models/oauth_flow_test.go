package models_test

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// oauthFixture stores a public client and a user with a session.
func oauthFixture(t *testing.T) (db models.DB, client string, user, session uuid.UUID) {
	t.Helper()
	pool := pgtest.New(t)
	c := &models.OAuthClient{ID: newID(t), ClientID: "ak_" + randomHex(t, 16), Name: "CLI",
		RedirectURIs: []string{"http://127.0.0.1/cb"}, TokenEndpointAuthMethod: "none", MinAAL: 1,
		IDTokenAlg: "EdDSA", Source: models.OAuthClientAdmin}
	if _, err := (models.OAuthClientStore{}).Insert(testCtx(t), pool, c, testNow()); err != nil {
		t.Fatal(err)
	}
	user = insertUser(t, pool, "users", randomHex(t, 4)+"@example.com")
	return pool, c.ClientID, user, insertSession(t, pool, user)
}

// TestOAuthRequestSpentOnce: a request reads back by its hash, is spent
// once (of concurrent spends exactly one wins), and an expired one cannot
// be spent.
func TestOAuthRequestSpentOnce(t *testing.T) {
	t.Parallel()
	db, client, _, _ := oauthFixture(t)
	ctx, store, now := testCtx(t), models.OAuthFlowStore{}, testNow()
	state, age := "xyz", int32(0)
	r := &models.OAuthRequest{ID: newID(t), RequestHash: randomHex(t, 32), ClientID: client,
		RedirectURI: "http://127.0.0.1:5000/cb", Scopes: []string{"openid", "email"}, State: &state,
		CodeChallenge: "abc", Prompt: []string{"login"}, MaxAge: &age, CreatedAt: now, ExpiresAt: now.Add(10 * time.Minute)}
	if err := store.InsertRequest(ctx, db, r); err != nil {
		t.Fatal(err)
	}
	got, err := store.RequestByHash(ctx, db, r.RequestHash)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Scopes, r.Scopes) || *got.State != "xyz" || got.Nonce != nil || *got.MaxAge != 0 ||
		len(got.Resources) != 0 || !got.Live(now) {
		t.Fatalf("read back %+v", got)
	}
	var won atomic.Int32
	race(4, func(int) {
		if _, err := store.SpendRequest(ctx, db, r.RequestHash, now.Add(time.Second)); err == nil {
			won.Add(1)
		} else if !errors.Is(err, models.ErrNotFound) {
			t.Error(err)
		}
	})
	if won.Load() != 1 {
		t.Fatalf("%d spends won, want 1", won.Load())
	}
	expired := *r
	expired.ID, expired.RequestHash = newID(t), randomHex(t, 32)
	if err := store.InsertRequest(ctx, db, &expired); err != nil {
		t.Fatal(err)
	}
	_, err = store.SpendRequest(ctx, db, expired.RequestHash, now.Add(10*time.Minute))
	wantErr(t, "expired request", err, models.ErrNotFound)
}

// TestOAuthCodeReplayDetectable: a code is spent once; a second
// presentation is ErrSpent with the session the first exchange recorded,
// and an expired or unknown code is ErrNotFound.
func TestOAuthCodeReplayDetectable(t *testing.T) {
	t.Parallel()
	db, client, user, session := oauthFixture(t)
	ctx, store, now := testCtx(t), models.OAuthFlowStore{}, testNow()
	c := &models.OAuthCode{ID: newID(t), CodeHash: randomHex(t, 32), ClientID: client, UserID: user,
		ApprovingSessionID: session, RedirectURI: "http://127.0.0.1/cb", CodeChallenge: "ch",
		Scopes: []string{"openid"}, Resources: []string{"https://api.example/"}, AuthTime: now,
		CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	if err := store.InsertCode(ctx, db, c); err != nil {
		t.Fatal(err)
	}
	got, err := store.SpendCode(ctx, db, c.CodeHash, now.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got.UserID != user || got.Resources[0] != "https://api.example/" || got.SessionID != nil {
		t.Fatalf("spent %+v", got)
	}
	opened := newID(t)
	if err := store.SetCodeSession(ctx, db, got.ID, opened); err != nil {
		t.Fatal(err)
	}
	again, err := store.SpendCode(ctx, db, c.CodeHash, now.Add(2*time.Second))
	wantErr(t, "second presentation", err, models.ErrSpent)
	if again == nil || again.SessionID == nil || *again.SessionID != opened {
		t.Fatalf("replayed code %+v, want its session %s", again, opened)
	}
	_, err = store.SpendCode(ctx, db, randomHex(t, 32), now)
	wantErr(t, "unknown code", err, models.ErrNotFound)
	late := *c
	late.ID, late.CodeHash = newID(t), randomHex(t, 32)
	if err := store.InsertCode(ctx, db, &late); err != nil {
		t.Fatal(err)
	}
	_, err = store.SpendCode(ctx, db, late.CodeHash, now.Add(time.Minute))
	wantErr(t, "expired code", err, models.ErrNotFound)
}

// TestOAuthConsentWidens: the first approval creates the consent, later
// ones add to it (a union, never a narrowing).
func TestOAuthConsentWidens(t *testing.T) {
	t.Parallel()
	db, client, user, _ := oauthFixture(t)
	ctx, store, now := testCtx(t), models.OAuthFlowStore{}, testNow()
	if _, err := store.Consent(ctx, db, user, client); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("no consent yet: %v", err)
	}
	c, created, err := store.WidenConsent(ctx, db, user, client, []string{"openid", "email"}, nil, now)
	if err != nil || !created || !slices.Equal(c.Scopes, []string{"openid", "email"}) {
		t.Fatalf("first consent %+v created %v: %v", c, created, err)
	}
	c, created, err = store.WidenConsent(ctx, db, user, client, []string{"profile", "openid"},
		[]string{"https://api.example/"}, now.Add(time.Second))
	if err != nil || created {
		t.Fatalf("second consent created %v: %v", created, err)
	}
	got, err := store.Consent(ctx, db, user, client)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Scopes, []string{"openid", "email", "profile"}) ||
		!slices.Equal(got.Resources, []string{"https://api.example/"}) || !got.UpdatedAt.Equal(now.Add(time.Second)) ||
		got.ID != c.ID {
		t.Fatalf("widened consent %+v", got)
	}
}

// TestOAuthGrantBySession: a grant reads back by its session, its
// audience changes, and the session list finds the client's name.
func TestOAuthGrantBySession(t *testing.T) {
	t.Parallel()
	db, client, user, session := oauthFixture(t)
	ctx, store, now := testCtx(t), models.OAuthFlowStore{}, testNow()
	g := &models.OAuthGrant{SessionID: session, UserID: user, ClientID: client, Scopes: []string{"openid"},
		Resources: []string{"https://a.example/", "https://b.example/"}, Audience: "https://a.example/",
		AuthTime: now, CreatedAt: now}
	if err := store.InsertGrant(ctx, db, g); err != nil {
		t.Fatal(err)
	}
	if err := store.SetGrantAudience(ctx, db, session, "https://b.example/"); err != nil {
		t.Fatal(err)
	}
	got, err := store.GrantBySession(ctx, db, session)
	if err != nil || got.Audience != "https://b.example/" || got.ClientID != client || !got.AuthTime.Equal(now) {
		t.Fatalf("grant %+v: %v", got, err)
	}
	if _, err := store.GrantBySession(ctx, db, newID(t)); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	names, err := store.SessionClients(ctx, db, []uuid.UUID{session, newID(t)})
	if err != nil || len(names) != 1 || names[session].Name != "CLI" || names[session].ClientID != client {
		t.Fatalf("session clients %+v: %v", names, err)
	}
}

// TestOAuthFlowPurge: expired requests and codes go, live ones stay, and
// a grant goes once its session's rows are gone.
func TestOAuthFlowPurge(t *testing.T) {
	t.Parallel()
	db, client, user, session := oauthFixture(t)
	ctx, store, now := testCtx(t), models.OAuthFlowStore{}, testNow()
	for i, exp := range []time.Duration{-time.Hour, time.Hour} {
		r := &models.OAuthRequest{ID: newID(t), RequestHash: randomHex(t, 32), ClientID: client, RedirectURI: "http://127.0.0.1/cb",
			Scopes: []string{"openid"}, CodeChallenge: "c", CreatedAt: now, ExpiresAt: now.Add(exp)}
		c := &models.OAuthCode{ID: newID(t), CodeHash: randomHex(t, 32), ClientID: client, UserID: user,
			ApprovingSessionID: session, RedirectURI: "http://127.0.0.1/cb", CodeChallenge: "c", Scopes: []string{"openid"},
			AuthTime: now, CreatedAt: now, ExpiresAt: now.Add(exp)}
		if err := store.InsertRequest(ctx, db, r); err != nil {
			t.Fatal(i, err)
		}
		if err := store.InsertCode(ctx, db, c); err != nil {
			t.Fatal(i, err)
		}
	}
	orphan := newID(t)
	for _, sid := range []uuid.UUID{session, orphan} {
		if err := store.InsertGrant(ctx, db, &models.OAuthGrant{SessionID: sid, UserID: user, ClientID: client,
			Scopes: []string{"openid"}, Audience: "https://a.example/", AuthTime: now, CreatedAt: now.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := store.Purge(ctx, db, now, 1)
	if err != nil || n != 3 {
		t.Fatalf("purged %d: %v", n, err)
	}
	if count(t, db, `SELECT count(*) FROM oauth_requests`) != 1 || count(t, db, `SELECT count(*) FROM oauth_codes`) != 1 ||
		count(t, db, `SELECT count(*) FROM oauth_grants WHERE session_id = $1`, session) != 1 {
		t.Fatal("purged a live row")
	}
}
