package models_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestOAuthClientRoundTrip: a client reads back as stored, its client_id
// is unique, a public client has no secret and a confidential one must,
// and Touch records a use at most once a minute.
func TestOAuthClientRoundTrip(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store := testCtx(t), models.OAuthClientStore{}.Prepared(db)
	hash := strings.Repeat("ab", 32)
	c := &models.OAuthClient{ID: newID(t), ClientID: "ak_" + randomHex(t, 16), SecretHash: &hash, Name: "Web app",
		RedirectURIs: []string{"https://app.example/cb"}, GrantTypes: []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethod: "client_secret_basic", MinAAL: 1, IDTokenAlg: "RS256", Source: models.OAuthClientAdmin}
	in, err := store.Insert(ctx, db, c, testNow())
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.ByClientID(ctx, db, c.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Web app" || len(got.RedirectURIs) != 1 || got.Public() || !got.Verified() || got.Scope != nil ||
		len(got.PostLogoutRedirectURIs) != 0 || !got.CreatedAt.Equal(in.CreatedAt) {
		t.Fatalf("read back %+v", got)
	}
	if _, err := store.Insert(ctx, db, c, testNow()); !errors.Is(err, models.ErrDuplicate) {
		t.Fatalf("same client_id again: %v, want ErrDuplicate", err)
	}
	public := *c
	public.ID, public.ClientID, public.TokenEndpointAuthMethod = newID(t), "ak_"+randomHex(t, 16), "none"
	if _, err := store.Insert(ctx, db, &public, testNow()); err == nil {
		t.Fatal("a public client with a secret was stored")
	}
	public.SecretHash = nil
	if _, err := store.Insert(ctx, db, &public, testNow()); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ByClientID(ctx, db, "ak_missing"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("unknown client: %v", err)
	}
	now := testNow()
	for _, step := range []struct{ at, want time.Duration }{{0, 0}, {30 * time.Second, 0}, {90 * time.Second, 90 * time.Second}} {
		if err := store.Touch(ctx, db, c.ClientID, now.Add(step.at)); err != nil {
			t.Fatal(err)
		}
		got, _ = store.ByClientID(ctx, db, c.ClientID)
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(now.Add(step.want)) {
			t.Fatalf("touched at +%v: last_used_at %v, want +%v", step.at, got.LastUsedAt, step.want)
		}
	}
}

// adminClient inserts an enabled confidential admin client created at
// at and returns it.
func adminClient(t testing.TB, db models.DB, store models.OAuthClientStore, source string, at time.Time) *models.OAuthClient {
	t.Helper()
	hash := strings.Repeat("cd", 32)
	c := &models.OAuthClient{ID: newID(t), ClientID: "ak_" + randomHex(t, 16), SecretHash: &hash, Name: "App " + source,
		RedirectURIs: []string{"https://app.example/cb"}, GrantTypes: []string{"authorization_code"},
		TokenEndpointAuthMethod: "client_secret_basic", MinAAL: 1, IDTokenAlg: "RS256", Source: source}
	got, err := store.Insert(testCtx(t), db, c, at)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestOAuthClientListUpdateRotate: the list is newest first and leaves
// disabled clients out; Update writes every field; RotateSecret replaces
// the hash of a confidential client only; neither touches a disabled one.
func TestOAuthClientListUpdateRotate(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.OAuthClientStore{}.Prepared(db), testNow()
	older := adminClient(t, db, store, models.OAuthClientAdmin, now.Add(-time.Hour))
	newer := adminClient(t, db, store, models.OAuthClientDynamic, now)
	gone := adminClient(t, db, store, models.OAuthClientAdmin, now.Add(time.Minute))
	if _, err := store.Disable(ctx, db, gone.ClientID, now); err != nil {
		t.Fatal(err)
	}
	list, err := store.List(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ClientID != newer.ClientID || list[1].ClientID != older.ClientID {
		t.Fatalf("list %v, want newer then older without the disabled one", list)
	}

	c := *older
	scope, logo := "openid email", "https://app.example/logo.png"
	c.Name, c.RedirectURIs, c.Scope, c.LogoURI, c.MinAAL, c.IDTokenAlg = "Renamed", []string{"https://b.example/cb"}, &scope, &logo, 2, "EdDSA"
	c.TokenEndpointAuthMethod, c.SecretHash = "none", nil
	got, err := store.Update(ctx, db, &c, now.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Renamed" || got.RedirectURIs[0] != "https://b.example/cb" || *got.Scope != scope || *got.LogoURI != logo ||
		got.MinAAL != 2 || got.IDTokenAlg != "EdDSA" || !got.Public() || !got.UpdatedAt.Equal(now.Add(time.Second)) {
		t.Fatalf("updated %+v", got)
	}
	if _, err := store.RotateSecret(ctx, db, older.ClientID, strings.Repeat("ef", 32), now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("rotating a public client's secret: %v, want ErrNotFound", err)
	}
	rotated, err := store.RotateSecret(ctx, db, newer.ClientID, strings.Repeat("ef", 32), now)
	if err != nil || *rotated.SecretHash != strings.Repeat("ef", 32) {
		t.Fatalf("rotate: %v %+v", err, rotated)
	}
	gc := *gone
	if _, err := store.Update(ctx, db, &gc, now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("update of a disabled client: %v", err)
	}
	if _, err := store.RotateSecret(ctx, db, gone.ClientID, strings.Repeat("ef", 32), now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("rotate of a disabled client: %v", err)
	}
	if _, err := store.LockByClientID(ctx, db, gone.ClientID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("lock of a disabled client: %v", err)
	}
}

// TestOAuthClientDisableEndsSessionsAndConsents: disabling a client
// revokes the live rows of its OAuth sessions (and only those), deletes its
// consents and unspent codes and requests, reports the ended sessions by user, and a second disable is
// ErrNotFound.
func TestOAuthClientDisableEndsSessionsAndConsents(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.OAuthClientStore{}.Prepared(db), testNow()
	c := adminClient(t, db, store, models.OAuthClientAdmin, now)
	other := adminClient(t, db, store, models.OAuthClientAdmin, now)
	user := insertUser(t, db, "users", "oauth-"+randomHex(t, 4)+"@example.com")
	first := insertSession(t, db, user) // the web session of the user
	oauth := insertSession(t, db, user) // an OAuth session of c
	kept := insertSession(t, db, user)  // an OAuth session of other
	for _, g := range []struct {
		session uuid.UUID
		client  string
	}{{oauth, c.ClientID}, {kept, other.ClientID}} {
		if _, err := db.ExecContext(ctx, `INSERT INTO oauth_grants (session_id, user_id, client_id, scopes, audience, auth_time, created_at)
			VALUES ($1, $2, $3, '{openid}', 'https://id.example', $4, $4)`, g.session, user, g.client, now); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO oauth_consents (id, user_id, client_id, scopes, created_at, updated_at)
			VALUES ($1, $2, $3, '{openid}', $4, $4) ON CONFLICT DO NOTHING`, newID(t), user, g.client, now); err != nil {
			t.Fatal(err)
		}
	}
	for _, cl := range []string{c.ClientID, other.ClientID} {
		if _, err := db.ExecContext(ctx, `INSERT INTO oauth_codes (id, code_hash, client_id, user_id, approving_session_id, redirect_uri,
			code_challenge, scopes, auth_time, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, 'https://app.example/cb', 'x', '{openid}', $6, $6, $6)`,
			newID(t), randomHex(t, 32), cl, user, first, now); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO oauth_requests (id, request_hash, client_id, redirect_uri, scopes, code_challenge,
			created_at, expires_at) VALUES ($1, $2, $3, 'https://app.example/cb', '{openid}', 'x', $4, $4)`,
			newID(t), randomHex(t, 32), cl, now); err != nil {
			t.Fatal(err)
		}
	}
	ended, err := store.Disable(ctx, db, c.ClientID, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || len(ended[user]) != 1 || ended[user][0] != oauth {
		t.Fatalf("ended %v, want only %s of %s", ended, oauth, user)
	}
	for id, live := range map[uuid.UUID]int{first: 1, oauth: 0, kept: 1} {
		if n := count(t, db, `SELECT count(*) FROM user_sessions WHERE id = $1 AND revoked_at IS NULL`, id); n != live {
			t.Errorf("session %s: %d live rows, want %d", id, n, live)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM oauth_consents WHERE client_id = $1`, c.ClientID); n != 0 {
		t.Errorf("%d consents of the disabled client left", n)
	}
	if n := count(t, db, `SELECT count(*) FROM oauth_consents WHERE client_id = $1`, other.ClientID); n != 1 {
		t.Errorf("the other client's consent is gone")
	}
	for _, table := range []string{"oauth_codes", "oauth_requests"} {
		if n := count(t, db, `SELECT count(*) FROM `+table+` WHERE client_id = $1`, c.ClientID); n != 0 {
			t.Errorf("%d unspent rows of %s left for the disabled client", n, table)
		}
		if n := count(t, db, `SELECT count(*) FROM `+table+` WHERE client_id = $1`, other.ClientID); n != 1 {
			t.Errorf("the other client's %s row is gone", table)
		}
	}
	got, _ := store.ByClientID(ctx, db, c.ClientID)
	if got.DisabledAt == nil || !got.DisabledAt.Equal(now) {
		t.Errorf("disabled_at %v", got.DisabledAt)
	}
	if _, err := store.Disable(ctx, db, c.ClientID, now); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("second disable: %v, want ErrNotFound", err)
	}
}

// TestOAuthClientPurgeUnusedDynamic: only dynamic clients older than the
// cut-off that were never used are deleted.
func TestOAuthClientPurgeUnusedDynamic(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.OAuthClientStore{}.Prepared(db), testNow()
	old := now.Add(-25 * time.Hour)
	stale := []*models.OAuthClient{adminClient(t, db, store, models.OAuthClientDynamic, old), adminClient(t, db, store, models.OAuthClientDynamic, old)}
	used := adminClient(t, db, store, models.OAuthClientDynamic, old)
	if err := store.Touch(ctx, db, used.ClientID, old.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	young := adminClient(t, db, store, models.OAuthClientDynamic, now.Add(-time.Hour))
	admin := adminClient(t, db, store, models.OAuthClientAdmin, old)
	n, err := store.PurgeUnusedDynamic(ctx, db, now.Add(-24*time.Hour), 1)
	if err != nil || n != 2 {
		t.Fatalf("purged %d (%v), want 2", n, err)
	}
	for _, c := range stale {
		if _, err := store.ByClientID(ctx, db, c.ClientID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("stale dynamic client kept: %v", err)
		}
	}
	for _, c := range []*models.OAuthClient{used, young, admin} {
		if _, err := store.ByClientID(ctx, db, c.ClientID); err != nil {
			t.Errorf("%s (%s) purged: %v", c.ClientID, c.Source, err)
		}
	}
}

// TestOAuthClientUpsertMetadata: a metadata client is inserted, then
// brought up to date under its first id; a disabled one stays disabled;
// an admin row under the same client_id is never overwritten.
func TestOAuthClientUpsertMetadata(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.OAuthClientStore{}.Prepared(db), testNow()
	exp := now.Add(time.Hour)
	c := &models.OAuthClient{ID: newID(t), ClientID: "https://mcp.example/client.json", Name: "Agent",
		RedirectURIs: []string{"http://127.0.0.1/cb"}, GrantTypes: []string{"authorization_code"}, MetadataExpiresAt: &exp}
	first, err := store.UpsertMetadata(ctx, db, c, now)
	if err != nil || first.Source != models.OAuthClientMetadata || !first.Public() || first.Name != "Agent" {
		t.Fatalf("insert: %v %+v", err, first)
	}
	if _, err := store.Disable(ctx, db, c.ClientID, now); err != nil {
		t.Fatal(err)
	}
	exp2 := now.Add(2 * time.Hour)
	again := *c
	again.ID, again.Name, again.MetadataExpiresAt = newID(t), "Agent 2", &exp2
	second, err := store.UpsertMetadata(ctx, db, &again, now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != first.ID || second.Name != "Agent 2" || !second.MetadataExpiresAt.Equal(exp2) || second.DisabledAt == nil {
		t.Fatalf("update %+v, want the first row renamed, expiring later, still disabled", second)
	}
	admin := adminClient(t, db, store, models.OAuthClientAdmin, now)
	hijack := *c
	hijack.ID, hijack.ClientID = newID(t), admin.ClientID
	if _, err := store.UpsertMetadata(ctx, db, &hijack, now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("upsert over an admin client: %v, want ErrNotFound", err)
	}
	if got, _ := store.ByClientID(ctx, db, admin.ClientID); got.Source != models.OAuthClientAdmin || got.Name != admin.Name {
		t.Fatalf("the admin client changed: %+v", got)
	}
}
