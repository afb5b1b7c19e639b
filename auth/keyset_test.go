package auth

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestKeySetWindows(t *testing.T) {
	t0 := testT0
	old := testKey(t, EdDSA, "old")
	old.ActiveFrom, old.RetiredAt, old.NotAfter = t0, t0.Add(time.Hour), t0.Add(time.Hour+16*time.Minute)
	cur := testKey(t, ES256, "cur")
	cur.ActiveFrom = t0.Add(time.Hour)
	verifyOnly := testKey(t, EdDSA, "remote")
	verifyOnly.Private, verifyOnly.ActiveFrom = nil, t0.Add(2*time.Hour)
	set, err := NewKeySet(old, cur, verifyOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at       time.Duration
		signing  string
		verifies []string
	}{
		{0, "old", []string{"old", "cur", "remote"}},
		{59 * time.Minute, "old", []string{"old", "cur", "remote"}},
		{time.Hour, "cur", []string{"old", "cur", "remote"}},
		{time.Hour + 16*time.Minute - time.Second, "cur", []string{"old", "cur", "remote"}},
		{time.Hour + 16*time.Minute, "cur", []string{"cur", "remote"}},
		{3 * time.Hour, "cur", []string{"cur", "remote"}},
	} {
		now := t0.Add(tc.at)
		if k, ok := set.Signing(now); !ok || k.ID != tc.signing {
			t.Errorf("at +%v: signing %v, want %s", tc.at, k, tc.signing)
		}
		var published []string
		for _, k := range set.Published(now) {
			published = append(published, k.ID)
		}
		for _, id := range []string{"old", "cur", "remote"} {
			_, ok := set.Verifying(id, now)
			want := slices.Contains(tc.verifies, id)
			if ok != want {
				t.Errorf("at +%v: %s verifies %v, want %v", tc.at, id, ok, want)
			}
			if slices.Contains(published, id) != want {
				t.Errorf("at +%v: published %v, want %v", tc.at, published, tc.verifies)
			}
		}
	}
	if _, err := NewKeySet(old, old); err == nil {
		t.Error("NewKeySet took one id twice")
	}
	if _, err := NewKeySet(&Key{ID: "x", Alg: EdDSA}); err == nil {
		t.Error("NewKeySet took a key without a public key")
	}
	static := &StaticKeys{Set: set, Now: func() time.Time { return t0.Add(4 * time.Hour) }}
	if _, err := static.VerifyKey(context.Background(), "old"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("an unpublished key: %v", err)
	}
	if k, err := static.SigningKey(); err != nil || k.ID != "cur" {
		t.Errorf("SigningKey = %v, %v", k, err)
	}
	empty := &StaticKeys{}
	if _, err := empty.SigningKey(); !errors.Is(err, ErrNoSigningKey) {
		t.Errorf("an empty set signs: %v", err)
	}
}
