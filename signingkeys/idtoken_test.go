package signingkeys_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/internal/testclock"
	"github.com/actionkit/actionkit/internal/tokenforge"
	"github.com/actionkit/actionkit/models"
	"github.com/actionkit/actionkit/signingkeys"
)

// idKey returns the ring's ID-token key, failing the test without one.
func idKey(t *testing.T, r *signingkeys.Ring) *auth.Key {
	t.Helper()
	k, err := r.IDTokenKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// ringOAuth is ring with OAuth tokens (and ID tokens) living oauthTTL.
func ringOAuth(t *testing.T, db *sqlx.DB, c *testclock.Clock, oauthTTL time.Duration) *signingkeys.Ring {
	t.Helper()
	r, err := signingkeys.New(signingkeys.Config{
		DB: db, DataKey: dataKey(t, hexKey), Alg: auth.EdDSA, Rotation: time.Hour, TokenTTL: 15 * time.Minute,
		OAuthTokenTTL: oauthTTL, Now: c.Now, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Four processes starting at once on an empty table make one RSA 2048
// ID-token key beside the one access-token key, and all sign ID tokens
// with it; it is no access-token key.
func TestOpenMakesOneIDTokenKey(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	c := testclock.At(time.Now().UTC())
	var rings []*signingkeys.Ring
	for range 4 {
		db, err := models.Open(testCtx(t), dsn, 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		r, _ := ring(t, db, c, auth.ES256, hexKey)
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
	rows := rowsOf(t, db, models.SigningKeyIDToken)
	if len(rows) != 1 || rows[0].Alg != auth.RS256 || rows[0].RetiredAt != nil {
		t.Fatalf("%d ID-token keys, want 1 current RS256 key", len(rows))
	}
	if n := len(keyRows(t, db)); n != 1 {
		t.Fatalf("%d access-token keys, want 1", n)
	}
	for i, r := range rings {
		k := idKey(t, r)
		pub, ok := k.Public.(*rsa.PublicKey)
		if k.ID != rows[0].Kid || k.Alg != auth.RS256 || !ok || pub.N.BitLen() != 2048 || k.Private == nil {
			t.Errorf("ring %d: ID-token key %s %s %T (want %s, RS256, RSA 2048 with its private part)", i, k.ID, k.Alg, k.Public, rows[0].Kid)
		}
		if a, err := r.SigningKey(); err != nil || a.ID == k.ID || a.Alg != auth.ES256 {
			t.Errorf("ring %d: access-token key %v, %v", i, a, err)
		}
	}
}

// The ID-token key rotates with the access-token key: concurrent
// rotations make one new RSA key, published at once and signing from
// MaxLead later, when the old one retires; the
// old one stays published until its last ID token expired, by the longer
// of the two token lifetimes.
func TestIDTokenKeyRotation(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	ctx := testCtx(t)
	const oauthTTL = time.Hour // longer than the 15 min access tokens
	var rings []*signingkeys.Ring
	for range 3 {
		r := ringOAuth(t, db, c, oauthTTL)
		if err := r.Open(ctx); err != nil {
			t.Fatal(err)
		}
		rings = append(rings, r)
	}
	a := rings[0]
	old := idKey(t, a)
	c.Advance(59 * time.Minute)
	if rotated, err := a.Rotate(ctx); rotated || err != nil {
		t.Fatalf("Rotate before the keys are due: %v, %v", rotated, err)
	}
	c.Advance(time.Minute)
	var wg sync.WaitGroup
	for _, r := range rings {
		wg.Go(func() {
			if _, err := r.Rotate(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	rows := rowsOf(t, db, models.SigningKeyIDToken)
	if len(rows) != 2 {
		t.Fatalf("%d ID-token keys after three rotations at once, want 2", len(rows))
	}
	next := rows[1]
	if rows[0].Kid != old.ID || rows[0].RetiredAt == nil || !rows[0].RetiredAt.Equal(next.ActivatedAt) ||
		!next.ActivatedAt.Equal(c.Now().Add(signingkeys.MaxLead)) || next.RetiredAt != nil {
		t.Fatalf("after the rotation: old %s retired %v, new %s activated %v retired %v; now %v",
			rows[0].Kid, rows[0].RetiredAt, next.Kid, next.ActivatedAt, next.RetiredAt, c.Now())
	}
	if n := len(keyRows(t, db)); n != 2 {
		t.Fatalf("%d access-token keys after the rotation, want 2", n)
	}
	published := func(r *signingkeys.Ring, kid string) bool {
		return slices.ContainsFunc(r.Published(), func(k *auth.Key) bool { return k.ID == kid })
	}
	for _, r := range rings {
		if err := r.Open(ctx); err != nil { // reloads, as its ticker would
			t.Fatal(err)
		}
	}
	for _, r := range rings {
		if !published(r, next.Kid) || !published(r, old.ID) {
			t.Fatal("the new ID-token key is not published beside the old one at once")
		}
		if k := idKey(t, r); k.ID != old.ID {
			t.Fatalf("signing ID tokens with %s before the new key activates", k.ID)
		}
	}
	c.Advance(signingkeys.MaxLead)
	if k := idKey(t, a); k.ID != next.Kid {
		t.Fatalf("signing ID tokens with %s after the new key activated, want %s", k.ID, next.Kid)
	}
	// Retired now; published OAUTH_ACCESS_TOKEN_EXPIRES_IN + Margin more,
	// although access tokens live 15 min.
	c.Advance(oauthTTL + signingkeys.Margin - time.Second)
	if err := a.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if !published(a, old.ID) {
		t.Fatal("the old ID-token key is unpublished before its last ID token expired")
	}
	if _, err := a.IDTokenVerifyKey(ctx, old.ID); err != nil {
		t.Fatalf("IDTokenVerifyKey of the old key: %v", err)
	}
	c.Advance(time.Second)
	if published(a, old.ID) {
		t.Fatal("the old ID-token key is still published after its last ID token expired")
	}
	if _, err := a.IDTokenVerifyKey(ctx, old.ID); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("IDTokenVerifyKey of the unpublished key: %v", err)
	}
}

// A ring on HS256 retires the ID-token key too (it stays published and
// verifies ID tokens until they expire) and has none to sign with; a ring
// on EdDSA then makes a new one.
func TestIDTokenKeyWithHS256(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	ctx := testCtx(t)
	ed, _ := ring(t, db, c, auth.EdDSA, hexKey)
	if err := ed.Open(ctx); err != nil {
		t.Fatal(err)
	}
	first := idKey(t, ed)
	hs, _ := ring(t, db, c, auth.HS256, hexKey)
	if err := hs.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := hs.IDTokenKey(); !errors.Is(err, auth.ErrNoSigningKey) {
		t.Fatalf("the HS256 ring's IDTokenKey: %v", err)
	}
	if k, err := hs.IDTokenVerifyKey(ctx, first.ID); err != nil || k.Private != nil {
		t.Fatalf("the HS256 ring verifies the retired ID-token key: %v, %v", k, err)
	}
	if rows := rowsOf(t, db, models.SigningKeyIDToken); len(rows) != 1 || rows[0].RetiredAt == nil {
		t.Fatalf("after HS256: %d ID-token keys, want the one, retired", len(rows))
	}
	if made, err := ed.Rotate(ctx); !made || err != nil {
		t.Fatalf("Rotate with every key retired: %v, %v", made, err)
	}
	if k := idKey(t, ed); k.ID == first.ID {
		t.Fatal("no new ID-token key")
	}
}

// The key set lists the ID-token key as an RSA JWK (kty, n, e, kid, alg
// RS256, use sig, nothing private) named by its RFC 7638 thumbprint, and
// go-jose verifies an RS256 signature made with IDTokenKey against it.
func TestIDTokenKeyPublished(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC())
	r, _ := ring(t, db, c, auth.EdDSA, hexKey)
	if err := r.Open(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	k := idKey(t, r)
	raw, err := jwks.Marshal(r.Published())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(doc.Keys, func(m map[string]any) bool { return m["kid"] == k.ID })
	if len(doc.Keys) != 2 || i < 0 {
		t.Fatalf("key set %s, want the access-token key and %s", raw, k.ID)
	}
	jwk := doc.Keys[i]
	thumb, _ := jwks.Thumbprint(k.Public)
	if jwk["kty"] != "RSA" || jwk["alg"] != "RS256" || jwk["use"] != "sig" || jwk["n"] == nil || jwk["e"] != "AQAB" ||
		len(jwk) != 6 || k.ID != thumb {
		t.Errorf("JWK %v (thumbprint %s)", jwk, thumb)
	}

	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: k.Private},
		(&jose.SignerOptions{}).WithHeader("kid", k.ID))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign([]byte(`{"sub":"someone"}`))
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := jws.CompactSerialize()
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	parsed, err := jose.ParseSigned(compact, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	found := set.Key(parsed.Signatures[0].Header.KeyID)
	if len(found) != 1 {
		t.Fatalf("the signature's kid names %d keys of the set", len(found))
	}
	if payload, err := parsed.Verify(found[0]); err != nil || string(payload) != `{"sub":"someone"}` {
		t.Fatalf("Verify = %q, %v", payload, err)
	}
}

// No access token is signed or accepted with the ID-token key: the
// access-token side of the ring does not know its kid, so a token signed
// by the real RSA key under its kid is refused whatever its alg header,
// and Tokens neither takes RS256 into its allow-list nor signs with an
// RS256 key it is handed. IDTokenVerifyKey finds both kinds of key.
func TestAccessTokensRefuseTheIDTokenKey(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC().Truncate(time.Second))
	ctx := testCtx(t)
	r, _ := ring(t, db, c, auth.EdDSA, hexKey)
	if err := r.Open(ctx); err != nil {
		t.Fatal(err)
	}
	tk := tokens(t, r, c, auth.EdDSA)
	good, cl := issue(t, tk)
	k := idKey(t, r)
	priv := k.Private.(*rsa.PrivateKey)
	_, payload := tokenforge.Decode(good)
	_, mine, _ := ed25519.GenerateKey(rand.Reader)
	forged := map[string]string{
		"RS256 under the RSA kid":          tokenforge.Forge(tokenforge.Header("RS256", k.ID), payload, tokenforge.RS256(priv)),
		"RS256 without kid":                tokenforge.Forge(tokenforge.Header("RS256", ""), payload, tokenforge.RS256(priv)),
		"RS256 under the access kid":       tokenforge.Forge(tokenforge.Header("RS256", cl.KeyID), payload, tokenforge.RS256(priv)),
		"EdDSA under the RSA kid":          tokenforge.Forge(tokenforge.Header("EdDSA", k.ID), payload, tokenforge.Ed25519(mine)),
		"HS256 keyed with the RSA modulus": tokenforge.Forge(tokenforge.Header("HS256", k.ID), payload, tokenforge.HMAC(priv.N.Bytes())),
	}
	for name, token := range forged {
		if _, err := tk.Parse("user", token); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: Parse = %v, want a refusal", name, err)
		}
	}
	if _, err := r.VerifyKey(ctx, k.ID); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("VerifyKey of the ID-token kid: %v", err)
	}
	for _, kid := range []string{k.ID, cl.KeyID} {
		if _, err := r.IDTokenVerifyKey(ctx, kid); err != nil {
			t.Errorf("IDTokenVerifyKey(%s): %v", kid, err)
		}
	}
	if err := (&auth.Tokens{Alg: auth.EdDSA, Keys: r, Algorithms: []string{auth.EdDSA, auth.RS256}}).Validate(); err == nil {
		t.Error("Tokens accepted RS256 in its allow-list")
	}
	set, err := auth.NewKeySet(k)
	if err != nil {
		t.Fatal(err)
	}
	misused := &auth.Tokens{Alg: auth.EdDSA, Keys: &auth.StaticKeys{Set: set, Now: c.Now}, Now: c.Now}
	if token, _, err := misused.Issue("user", ownerID, session, 1, "web"); err == nil {
		t.Errorf("Tokens signed an access token with the RSA key: %s", token)
	}
}

// The ID-token key's private part is stored sealed: the row holds neither
// its PKCS #8 encoding nor its primes, and the sealed key is bound to its
// row.
func TestIDTokenKeySealed(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	c := testclock.At(time.Now().UTC())
	r, _ := ring(t, db, c, auth.EdDSA, hexKey)
	if err := r.Open(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	k := idKey(t, r)
	priv := k.Private.(*rsa.PrivateKey)
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	var row struct {
		Sealed []byte `db:"private_key_ciphertext"`
		Public []byte `db:"public_key"`
	}
	if err := db.Get(&row, `SELECT private_key_ciphertext, public_key FROM signing_keys WHERE kid = $1`, k.ID); err != nil {
		t.Fatal(err)
	}
	for name, secret := range map[string][]byte{"PKCS #8": der, "p": priv.Primes[0].Bytes(), "q": priv.Primes[1].Bytes(), "d": priv.D.Bytes()} {
		if bytes.Contains(row.Sealed, secret) || bytes.Contains(row.Public, secret) {
			t.Errorf("the row holds the private key's %s in the clear", name)
		}
	}
	if pub, err := x509.ParsePKIXPublicKey(row.Public); err != nil || !priv.PublicKey.Equal(pub) {
		t.Errorf("public_key: %v", err)
	}
	if _, err := db.Exec(`UPDATE signing_keys SET id = $1 WHERE kid = $2`, uuid.Must(uuid.NewV7()), k.ID); err != nil {
		t.Fatal(err)
	}
	again, _ := ring(t, db, c, auth.EdDSA, hexKey)
	if err := again.Open(testCtx(t)); !errors.Is(err, signingkeys.ErrDataKey) {
		t.Fatalf("Open with the sealed ID-token key moved to another row: %v, want ErrDataKey", err)
	}
}
