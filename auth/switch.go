package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// SignedSince is implemented by a KeySource that knows since when its
// keys have signed: the activation of the oldest key it still publishes.
// A Tokens that issues EdDSA or ES256 tokens and still has the HS256
// secret (a deployment that switched from HS256) accepts an HS256 token
// only when it was issued no later than that moment and expires no later
// than one TTL after it: the tokens of before the switch, never one
// minted with the secret since. Without it (a KeySource that does not
// implement it) HS256 tokens are accepted for as long as the secret is
// set.
//
// The oldest published key marks the switch even after the first key of
// the deployment was deleted: a key's predecessor stops being published
// a token lifetime and more after the key activated, so by the time a
// later key is the oldest, every token of one TTL after its activation
// has expired.
type SignedSince interface {
	// SignedSince returns the activation of the oldest key the source
	// publishes, and false when it publishes none.
	SignedSince() (time.Time, bool)
}

// Since returns the activation of the oldest key that still verifies at
// now, and false when none does: SignedSince of a source holding s.
func (s *KeySet) Since(now time.Time) (time.Time, bool) {
	keys := s.Published(now)
	if len(keys) == 0 {
		return time.Time{}, false
	}
	oldest := keys[0].ActiveFrom
	for _, k := range keys[1:] {
		if k.ActiveFrom.Before(oldest) {
			oldest = k.ActiveFrom
		}
	}
	return oldest, true
}

// issuedBeforeSwitch refuses an HS256 token that a Tokens issuing
// asymmetric tokens must not take (see SignedSince): one issued after the
// keys began to sign, or expiring later than one TTL after that.
func (t *Tokens) issuedBeforeSwitch(tok *jwt.Token) error {
	if !Asymmetric(t.Alg) {
		return nil
	}
	src, ok := t.Keys.(SignedSince)
	if !ok {
		return nil
	}
	since, ok := src.SignedSince()
	if !ok {
		return errors.New("an HS256 token, and no signing key tells since when tokens are signed with keys")
	}
	wc, _ := tok.Claims.(*wireClaims)
	switch {
	case wc == nil || wc.Iat.IsZero() || wc.Exp.IsZero():
		return errors.New("an HS256 token without iat or exp")
	case wc.Iat.After(since):
		return fmt.Errorf("an HS256 token issued at %s, after tokens are signed with keys (%s)", wc.Iat.UTC(), since.UTC())
	case wc.Exp.After(since.Add(t.TTL)):
		return fmt.Errorf("an HS256 token expiring at %s, later than one lifetime after the switch to keys (%s)", wc.Exp.UTC(), since.UTC())
	}
	return nil
}
