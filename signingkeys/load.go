package signingkeys

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/dependency"
	"github.com/actionkit/actionkit/models"
)

// errTooSoon reports a load refused because the last one began moments
// ago.
var errTooSoon = errors.New("signingkeys: the keys were loaded moments ago")

// loadTimeout bounds one load, which requests may be waiting for.
const loadTimeout = 10 * time.Second

// slot is one current key a Ring keeps: its purpose (a
// models.SigningKey* constant) and its algorithm.
type slot struct{ purpose, alg string }

// slots are the keys a Ring signing with EdDSA or ES256 keeps current: the
// access-token key, of that algorithm, and the RS256 ID-token key. The
// ID-token key is kept whenever access tokens are signed with a key pair,
// whether or not OAUTH_PROVIDER is on: the provider needs an asymmetric
// ACCESS_TOKEN_ALG anyway, every role (the clock's rotation job above all)
// then keeps the key without knowing the provider's settings, and turning
// the provider on finds a key every instance and every relying party's
// cache of the key set already knows. It costs one RSA key pair per
// rotation and one more entry in the key set.
func (r *Ring) slots() []slot {
	return []slot{{models.SigningKeyAccess, r.cfg.Alg}, {models.SigningKeyIDToken, auth.RS256}}
}

// upkeep is what ensure does to the current keys.
type upkeep int

const (
	// makeMissing makes the key of a slot that has none.
	makeMissing upkeep = iota
	// rotateDue also replaces a key older than Rotation.
	rotateDue
	// switchAlg also replaces a key of another algorithm than its slot's,
	// at start.
	switchAlg
)

// Open prepares the keys at start and loads them. With EdDSA or ES256 it
// makes the first access-token key and the first ID-token key when there
// is none (of any number of processes starting at once, one makes each),
// and rotates a key at once when it is overdue or of another algorithm;
// every key that may still sign must open under the data key, or Open
// fails with ErrDataKey. With HS256 it retires the current keys, which
// stay published until their tokens expire. Either way it first deletes
// the keys that have not been published for RetiredKeep.
func (r *Ring) Open(ctx context.Context) error {
	now := r.cfg.Now()
	if err := r.deleteRetired(ctx, now); err != nil {
		return err
	}
	if r.cfg.Alg == auth.HS256 {
		n, err := r.store.RetireAll(ctx, r.cfg.DB, now)
		if err != nil {
			return err
		}
		if n > 0 {
			r.cfg.Logger.Info("ACCESS_TOKEN_ALG is HS256: the current signing keys are retired and stay published until their last token expires")
		}
	} else if _, err := r.ensure(ctx, now, switchAlg); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reload(ctx, true)
}

// deleteRetired deletes the keys that have not been published for
// RetiredKeep.
func (r *Ring) deleteRetired(ctx context.Context, now time.Time) error {
	n, err := r.store.DeleteRetired(ctx, r.cfg.DB, now.Add(-(r.keep() + RetiredKeep)))
	if n > 0 {
		r.cfg.Logger.Info("retired signing keys deleted", "keys", n)
	}
	return err
}

// ensure applies u to the key of every slot, and reports whether it made
// a key.
func (r *Ring) ensure(ctx context.Context, now time.Time, u upkeep) (bool, error) {
	made := false
	for _, sl := range r.slots() {
		m, err := r.maintain(ctx, now, sl, u)
		if err != nil {
			return made, err
		}
		made = made || m
	}
	return made, nil
}

// maintain makes the key of sl when it has no current one and, as u says,
// replaces its current key when due, and reports whether it made a key. A
// key pair is made only when one is needed (an RSA key takes a while), and
// stored only if no other process got there first: the store decides
// again, under the current key's row lock.
func (r *Ring) maintain(ctx context.Context, now time.Time, sl slot, u upkeep) (bool, error) {
	cur, err := r.store.Current(ctx, r.cfg.DB, sl.purpose)
	if err != nil {
		return false, err
	}
	if cur != nil {
		due := u >= rotateDue && !cur.ActivatedAt.After(now.Add(-r.cfg.Rotation))
		if !due && !(u == switchAlg && cur.Alg != sl.alg) {
			return false, nil
		}
		next, err := newRow(sl.alg, sl.purpose, r.cfg.DataKey, now, now.Add(min(MaxLead, r.cfg.Rotation/4)))
		if err != nil {
			return false, err
		}
		rotated, err := r.store.Rotate(ctx, r.cfg.DB, next, now.Add(-r.cfg.Rotation), u == switchAlg)
		if err != nil || rotated {
			if rotated {
				r.cfg.Logger.Info("signing key rotated", "kid", next.Kid, "alg", next.Alg, "purpose", next.Purpose, "activatesAt", next.ActivatedAt)
			}
			return rotated, err
		}
		// Another process rotated first, or the key was retired meanwhile
		// (by an instance on HS256).
		if cur, err = r.store.Current(ctx, r.cfg.DB, sl.purpose); err != nil || cur != nil {
			return false, err
		}
	}
	first, err := newRow(sl.alg, sl.purpose, r.cfg.DataKey, now, now)
	if err != nil {
		return false, err
	}
	made, err := r.store.InsertFirst(ctx, r.cfg.DB, first)
	if made {
		r.cfg.Logger.Info("signing key made", "kid", first.Kid, "alg", first.Alg, "purpose", first.Purpose)
	}
	return made, err
}

// Rotate replaces each current key (access-token and ID-token alike) by a
// new one when it is older than Rotation (or makes one when there is
// none), and reports whether it made a key. A new key is published at
// once and signs from MaxLead later (a quarter of Rotation, if that is
// shorter); the old one retires then. Any number of processes may rotate
// at once: one key of each kind is made. With HS256 it makes none. Either
// way it first deletes the keys that have not been published for
// RetiredKeep.
func (r *Ring) Rotate(ctx context.Context) (bool, error) {
	now := r.cfg.Now()
	if err := r.deleteRetired(ctx, now); err != nil {
		return false, err
	}
	if r.cfg.Alg == auth.HS256 {
		return false, nil
	}
	made, err := r.ensure(ctx, now, rotateDue)
	if err != nil || !made {
		return made, err
	}
	return true, r.load(ctx, true)
}

// load reloads the keys once for every caller that asks while it runs;
// unless force (a periodic or rotation load), not when the last load for
// an unknown kid began less than MaxUnknownReload (or Reload) ago. A
// periodic load moments before does not delay the first token of a key
// this instance has not seen yet.
func (r *Ring) load(ctx context.Context, force bool) error {
	r.mu.Lock()
	if wait := r.loading; wait != nil {
		r.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.lastErr
	}
	now := r.cfg.Now()
	if last := r.unknownAt.Load(); !force && last != 0 && now.Sub(time.Unix(0, last)) < min(MaxUnknownReload, r.cfg.Reload) {
		// Too soon to ask the database again; if it could not be read
		// last time, that is still the answer.
		err := r.lastErr
		r.mu.Unlock()
		if errors.Is(err, dependency.ErrUnavailable) {
			return err
		}
		return errTooSoon
	}
	done := make(chan struct{})
	r.loading = done
	if !force {
		r.unknownAt.Store(now.UnixNano())
	}
	r.mu.Unlock()

	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadTimeout)
	err := r.reload(lctx, false)
	cancel()
	r.mu.Lock()
	r.loading, r.lastErr = nil, err
	r.mu.Unlock()
	close(done)
	return err
}

// reload reads the published keys and installs them. Only one runs at a
// time (under mu, or as the load under way). strict makes a private key
// that does not open an error; otherwise that key only verifies, and the
// failure is logged.
func (r *Ring) reload(ctx context.Context, strict bool) error {
	now := r.cfg.Now()
	rows, err := r.store.Published(ctx, r.cfg.DB, now.Add(-r.keep()))
	if err != nil {
		return err
	}
	if r.cfg.Alg != auth.HS256 && r.missing(rows) {
		// Every key was retired (by an instance configured for HS256):
		// this one signs with EdDSA or ES256, so it needs current keys.
		if _, err := r.ensure(ctx, now, makeMissing); err != nil {
			return err
		}
		if rows, err = r.store.Published(ctx, r.cfg.DB, now.Add(-r.keep())); err != nil {
			return err
		}
	}
	var access, idToken []*auth.Key
	for i := range rows {
		k, err := r.decode(&rows[i], now, strict)
		if err != nil {
			return err
		}
		if rows[i].Purpose == models.SigningKeyIDToken {
			idToken = append(idToken, k)
		} else {
			access = append(access, k)
		}
	}
	set := &keySets{}
	if set.access, err = auth.NewKeySet(access...); err != nil {
		return err
	}
	if set.idToken, err = auth.NewKeySet(idToken...); err != nil {
		return err
	}
	for kid := range r.opened {
		_, a := set.access.Verifying(kid, time.Time{})
		_, i := set.idToken.Verifying(kid, time.Time{})
		if !a && !i {
			delete(r.opened, kid)
		}
	}
	r.logChange(r.set.Swap(set), set, now)
	return nil
}

// missing reports whether a slot has no current key among rows.
func (r *Ring) missing(rows []models.SigningKey) bool {
	for _, sl := range r.slots() {
		if !slices.ContainsFunc(rows, func(k models.SigningKey) bool { return k.RetiredAt == nil && k.Purpose == sl.purpose }) {
			return true
		}
	}
	return false
}

// decode converts a row, opening its private part when this instance
// signs and the key may still sign. Opened private keys are kept by kid.
func (r *Ring) decode(row *models.SigningKey, now time.Time, strict bool) (*auth.Key, error) {
	mayStillSign := row.RetiredAt == nil || row.RetiredAt.After(now)
	withPrivate := r.cfg.Alg != auth.HS256 && mayStillSign && r.opened[row.Kid] == nil
	k, err := decode(row, r.cfg.DataKey, r.keep(), withPrivate)
	if errors.Is(err, ErrDataKey) && !strict {
		r.cfg.Logger.Error("a signing key does not open under DATA_ENCRYPTION_KEY: it only verifies here", "kid", row.Kid)
		k, err = decode(row, r.cfg.DataKey, r.keep(), false)
	}
	if errors.Is(err, ErrDataKey) {
		return nil, fmt.Errorf("%w; start with the DATA_ENCRYPTION_KEY the key was made with", err)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case k.Private != nil:
		r.opened[row.Kid] = k
	case r.opened[row.Kid] != nil && mayStillSign:
		k.Private = r.opened[row.Kid].Private
	}
	return k, nil
}

// logChange logs a set whose kids or signing keys differ from the last.
func (r *Ring) logChange(old, set *keySets, now time.Time) {
	kids := func(s *auth.KeySet) []string {
		var out []string
		for _, k := range s.Published(now) {
			out = append(out, k.ID)
		}
		return out
	}
	signing := func(s *auth.KeySet) string {
		if k, ok := s.Signing(now); ok {
			return k.ID
		}
		return ""
	}
	if old != nil && slices.Equal(kids(old.access), kids(set.access)) && slices.Equal(kids(old.idToken), kids(set.idToken)) &&
		signing(old.access) == signing(set.access) && signing(old.idToken) == signing(set.idToken) {
		return
	}
	r.cfg.Logger.Info("signing keys loaded", "published", kids(set.access), "signing", signing(set.access),
		"idTokenPublished", kids(set.idToken), "idTokenSigning", signing(set.idToken))
}
