package auth

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// KeySet is an immutable set of keys, looked up by kid without locks. A
// key verifies until its NotAfter, and the newest key (by ActiveFrom) that
// has a private part, is active and not retired signs.
type KeySet struct {
	byID   map[string]*Key
	newest []*Key // by ActiveFrom, newest first
}

// NewKeySet checks each key (Key.Check) and returns the set of them. It
// fails on a bad key or two keys with one id.
func NewKeySet(keys ...*Key) (*KeySet, error) {
	s := &KeySet{byID: make(map[string]*Key, len(keys))}
	for _, k := range keys {
		if err := k.Check(); err != nil {
			return nil, err
		}
		if _, dup := s.byID[k.ID]; dup {
			return nil, fmt.Errorf("auth: two keys have the id %s", k.ID)
		}
		s.byID[k.ID] = k
		s.newest = append(s.newest, k)
	}
	slices.SortStableFunc(s.newest, func(a, b *Key) int { return b.ActiveFrom.Compare(a.ActiveFrom) })
	return s, nil
}

// Verifying returns the key named kid if it still verifies at now.
func (s *KeySet) Verifying(kid string, now time.Time) (*Key, bool) {
	if s == nil {
		return nil, false
	}
	k, ok := s.byID[kid]
	if !ok || (!k.NotAfter.IsZero() && !now.Before(k.NotAfter)) {
		return nil, false
	}
	return k, true
}

// Signing returns the key that signs at now: the newest with a private
// part whose ActiveFrom has come and whose RetiredAt has not.
func (s *KeySet) Signing(now time.Time) (*Key, bool) {
	if s == nil {
		return nil, false
	}
	for _, k := range s.newest {
		if k.Private == nil || now.Before(k.ActiveFrom) {
			continue
		}
		if k.RetiredAt.IsZero() || now.Before(k.RetiredAt) {
			return k, true
		}
	}
	return nil, false
}

// Published returns the keys that still verify at now, newest first.
func (s *KeySet) Published(now time.Time) []*Key {
	if s == nil {
		return nil
	}
	out := make([]*Key, 0, len(s.newest))
	for _, k := range s.newest {
		if k.NotAfter.IsZero() || now.Before(k.NotAfter) {
			out = append(out, k)
		}
	}
	return out
}

// Len is the number of keys in the set, published or not.
func (s *KeySet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.byID)
}

// StaticKeys is a KeySource over one KeySet that never changes, read with
// the clock Now (nil: time.Now).
type StaticKeys struct {
	Set *KeySet
	Now func() time.Time
}

func (s *StaticKeys) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// VerifyKey implements KeySource.
func (s *StaticKeys) VerifyKey(_ context.Context, kid string) (*Key, error) {
	if k, ok := s.Set.Verifying(kid, s.now()); ok {
		return k, nil
	}
	return nil, fmt.Errorf("kid %q: %w", kid, ErrUnknownKey)
}

// SigningKey implements KeySource.
func (s *StaticKeys) SigningKey() (*Key, error) {
	if k, ok := s.Set.Signing(s.now()); ok {
		return k, nil
	}
	return nil, ErrNoSigningKey
}
