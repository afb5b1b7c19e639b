package signingkeys_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/signingkeys"
)

const (
	hexKey   = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	otherKey = "f0e0d0c0b0a090807060504030201000f0e0d0c0b0a090807060504030201000"
)

var (
	ownerID = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	session = uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4b01")
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func dataKey(t *testing.T, s string) *datakey.Key {
	k, err := datakey.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// ring returns a Ring over db with a 1 h rotation and 15 min tokens.
func ring(t *testing.T, db *sqlx.DB, c *testclock.Clock, alg, key string) (*signingkeys.Ring, *syncbuf.Buffer) {
	t.Helper()
	l := &syncbuf.Buffer{}
	r, err := signingkeys.New(signingkeys.Config{
		DB: db, DataKey: dataKey(t, key), Alg: alg, Rotation: time.Hour, TokenTTL: 15 * time.Minute,
		Reload: 50 * time.Millisecond, Now: c.Now, Logger: slog.New(slog.NewJSONHandler(l, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r, l
}

func tokens(t *testing.T, r *signingkeys.Ring, c *testclock.Clock, alg string) *auth.Tokens {
	tk := &auth.Tokens{Alg: alg, Keys: r, Now: c.Now, TTL: 15 * time.Minute}
	if alg == auth.HS256 {
		tk.Secret = []byte("a secret of at least thirty-two bytes")
	}
	if err := tk.Validate(); err != nil {
		t.Fatal(err)
	}
	return tk
}

func issue(t *testing.T, tk *auth.Tokens) (string, auth.Claims) {
	t.Helper()
	token, _, err := tk.Issue("user", ownerID, session, 1, action.Web)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := tk.Parse("user", token)
	if err != nil {
		t.Fatal(err)
	}
	return token, cl
}

// keyRows returns the rows of the access-token keys.
func keyRows(t *testing.T, db *sqlx.DB) []models.SigningKey {
	return rowsOf(t, db, models.SigningKeyAccess)
}

// rowsOf returns the rows of the keys of purpose p.
func rowsOf(t *testing.T, db *sqlx.DB, p string) []models.SigningKey {
	rows, err := models.SigningKeyStore{}.Published(testCtx(t), db, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(rows, func(k models.SigningKey) bool { return k.Purpose != p })
}

func TestOpenMakesOneKey(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	c := testclock.At(time.Now().UTC())
	var rings []*signingkeys.Ring
	for range 4 { // one pool each, as separate processes would have
		db, err := models.Open(testCtx(t), dsn, 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		r, _ := ring(t, db, c, auth.EdDSA, hexKey)
		rings = append(rings, r)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(rings))
	for i, r := range rings {
		wg.Go(func() { errs[i] = r.Open(testCtx(t)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	db, _ := models.Open(testCtx(t), dsn, 1)
	defer db.Close()
	if rows := keyRows(t, db); len(rows) != 1 || rows[0].Alg != auth.EdDSA {
		t.Fatalf("%d keys, want 1 EdDSA key: %+v", len(rows), rows)
	}
	var kids []string
	for _, r := range rings {
		k, err := r.SigningKey()
		if err != nil {
			t.Fatal(err)
		}
		kids = append(kids, k.ID)
	}
	if kids[0] != kids[1] || kids[1] != kids[2] || kids[2] != kids[3] {
		t.Errorf("the rings sign with %v", kids)
	}
}

// A private key that does not open under the data key stops Open with an
// error naming DATA_ENCRYPTION_KEY, and makes no key.
func TestOpenWithAnotherDataKey(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC())
	r, _ := ring(t, db, c, auth.EdDSA, hexKey)
	if err := r.Open(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	wrong, _ := ring(t, db, c, auth.EdDSA, otherKey)
	err := wrong.Open(testCtx(t))
	if !errors.Is(err, signingkeys.ErrDataKey) || !strings.Contains(err.Error(), "DATA_ENCRYPTION_KEY") {
		t.Fatalf("Open = %v, want ErrDataKey naming DATA_ENCRYPTION_KEY", err)
	}
	if n := len(keyRows(t, db)); n != 1 {
		t.Fatalf("%d keys after the failed start, want 1", n)
	}
	// Configured for HS256 the private keys are not needed: no error.
	hs, _ := ring(t, db, c, auth.HS256, otherKey)
	if err := hs.Open(testCtx(t)); err != nil {
		t.Fatalf("HS256 with another data key: %v", err)
	}
}

// A sealed private key copied to another row does not open.
func TestSealedKeyIsBoundToItsRow(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC())
	r, _ := ring(t, db, c, auth.ES256, hexKey)
	if err := r.Open(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE signing_keys SET id = $1 WHERE purpose = 'access'`, uuid.Must(uuid.NewV7())); err != nil {
		t.Fatal(err)
	}
	again, _ := ring(t, db, c, auth.ES256, hexKey)
	if err := again.Open(testCtx(t)); !errors.Is(err, signingkeys.ErrDataKey) {
		t.Fatalf("Open = %v, want ErrDataKey", err)
	}
}
