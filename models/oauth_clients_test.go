package models_test

import (
	"errors"
	"strings"
	"testing"
	"time"

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
