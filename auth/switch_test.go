package auth

import (
	"errors"
	"testing"
	"time"
)

// switchedKeys is a key source that tells since when its keys sign.
type switchedKeys struct {
	*memoryKeys
	since time.Time
	known bool
}

func (s *switchedKeys) SignedSince() (time.Time, bool) { return s.since, s.known }

// TestHS256OnlyFromBeforeTheSwitch: with EdDSA issued and the secret
// still set, an HS256 token is accepted when issued no later than the
// keys' first activation and expiring within one lifetime of it; a source
// without SignedSince keeps accepting every HS256 token; one that knows
// no key refuses them; with HS256 issued nothing changes.
func TestHS256OnlyFromBeforeTheSwitch(t *testing.T) {
	switchAt := testT0.Add(5 * time.Minute)
	now := testT0.Add(10 * time.Minute)
	payload := func(iat, exp time.Time) claimsMap {
		p := validPayload()
		p["iat"], p["exp"] = iat.Unix(), exp.Unix()
		return p
	}
	for _, tc := range []struct {
		name     string
		iat, exp time.Time
		known    bool
		ok       bool
	}{
		{"issued before the switch", testT0, testT0.Add(15 * time.Minute), true, true},
		{"issued at the switch", switchAt, switchAt.Add(15 * time.Minute), true, true},
		{"issued after the switch", switchAt.Add(time.Second), switchAt.Add(16 * time.Minute), true, false},
		{"longer than a lifetime", testT0, switchAt.Add(16 * time.Minute), true, false},
		{"no key known", testT0, testT0.Add(15 * time.Minute), false, false},
	} {
		tk, keys := asymmetricTokens(t, EdDSA, true, &now)
		tk.Keys = &switchedKeys{memoryKeys: keys, since: switchAt, known: tc.known}
		_, err := tk.Parse(user, hs256(t, payload(tc.iat, tc.exp)))
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidToken)) {
			t.Errorf("%s: Parse = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
	late := hs256(t, payload(switchAt.Add(time.Minute), switchAt.Add(16*time.Minute)))
	plain, _ := asymmetricTokens(t, EdDSA, true, &now)
	if _, err := plain.Parse(user, late); err != nil {
		t.Errorf("a source without SignedSince: Parse = %v, want the token accepted", err)
	}
	hs, keys := asymmetricTokens(t, HS256, true, &now)
	hs.Keys = &switchedKeys{memoryKeys: keys, since: switchAt, known: true}
	if _, err := hs.Parse(user, late); err != nil {
		t.Errorf("HS256 issued: Parse = %v, want the token accepted", err)
	}
}
