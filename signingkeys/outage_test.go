package signingkeys_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/dependency"
	"github.com/actionkit/actionkit/internal/faulttest"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/signingkeys"
)

// TestUnknownKidDuringAnOutage: a token of a key this instance has not
// loaded, presented while PostgreSQL is down, is not refused as invalid
// (which would answer 401 and make its client drop a valid token) but
// fails as the database's outage, also when asked again within
// MaxUnknownReload; once the database is back the key is found.
func TestUnknownKidDuringAnOutage(t *testing.T) {
	t.Parallel()
	pg := faulttest.NewPostgres(t)
	ctx := testCtx(t)
	db, err := sqlx.Open("postgres", pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := models.Migrate(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	a, _ := ring(t, db, c, auth.EdDSA, hexKey)
	b, _ := ring(t, db, c, auth.EdDSA, hexKey)
	hs, _ := ring(t, db, c, auth.HS256, hexKey)
	for _, r := range []*signingkeys.Ring{a, b, hs} {
		if err := r.Open(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// hs retired the key a and b share; b makes the next one, which a has
	// not loaded.
	if made, err := b.Rotate(ctx); !made || err != nil {
		t.Fatalf("Rotate = %v, %v", made, err)
	}
	token, _ := issue(t, tokens(t, b, c, auth.EdDSA))
	verifier := tokens(t, a, c, auth.EdDSA)

	pg.Stop()
	for _, when := range []string{"first", "again within MaxUnknownReload"} {
		_, err := verifier.ParseContext(ctx, "user", token)
		if !errors.Is(err, dependency.ErrUnavailable) || errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrUnknownKey) {
			t.Errorf("%s, PostgreSQL down: %v, want the outage and no refusal", when, err)
		}
	}
	pg.Start()
	c.Advance(signingkeys.MaxUnknownReload)
	if cl, err := verifier.ParseContext(ctx, "user", token); err != nil || cl.Subject != ownerID {
		t.Errorf("PostgreSQL back: %+v, %v", cl, err)
	}
}
