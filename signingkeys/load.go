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

// Open prepares the keys at start and loads them. With EdDSA or ES256 it
// makes the first key when there is none (of any number of processes
// starting at once, one makes it), and rotates at once when the current
// key is overdue or of another algorithm; every key that may still sign
// must open under the data key, or Open fails with ErrDataKey. With HS256
// it retires the current key, which stays published until its tokens
// expire. Either way it first deletes the keys that have not been
// published for RetiredKeep.
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
			r.cfg.Logger.Info("ACCESS_TOKEN_ALG is HS256: the current signing key is retired and stays published until its last token expires")
		}
	} else if err := r.ensure(ctx, now, true); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reload(ctx, true)
}

// deleteRetired deletes the keys that have not been published for
// RetiredKeep.
func (r *Ring) deleteRetired(ctx context.Context, now time.Time) error {
	n, err := r.store.DeleteRetired(ctx, r.cfg.DB, now.Add(-(r.cfg.TokenTTL + Margin + RetiredKeep)))
	if n > 0 {
		r.cfg.Logger.Info("retired signing keys deleted", "keys", n)
	}
	return err
}

// ensure makes the first key when there is no current one; at start
// (switch) it also rotates at once to a key of the configured algorithm,
// or when the current key is overdue.
func (r *Ring) ensure(ctx context.Context, now time.Time, switchAlg bool) error {
	first, err := newRow(r.cfg.Alg, r.cfg.DataKey, now, now)
	if err != nil {
		return err
	}
	made, err := r.store.InsertFirst(ctx, r.cfg.DB, first)
	if err != nil || made {
		if made {
			r.cfg.Logger.Info("signing key made", "kid", first.Kid, "alg", first.Alg)
		}
		return err
	}
	if !switchAlg {
		return nil
	}
	_, err = r.rotate(ctx, now, true)
	return err
}

// Rotate replaces the current key by a new one when it is older than
// Rotation (or makes one when there is none), and reports whether it
// made a key. The new key is published at once and signs from MaxLead
// later (a quarter of Rotation, if that is shorter); the old one retires
// then. Any number of processes may rotate at once: one key is made. With
// HS256 it makes none. Either way it first deletes the keys that have not
// been published for RetiredKeep.
func (r *Ring) Rotate(ctx context.Context) (bool, error) {
	now := r.cfg.Now()
	if err := r.deleteRetired(ctx, now); err != nil {
		return false, err
	}
	if r.cfg.Alg == auth.HS256 {
		return false, nil
	}
	rotated, err := r.rotate(ctx, now, false)
	if err != nil || !rotated {
		return rotated, err
	}
	return true, r.load(ctx, true)
}

func (r *Ring) rotate(ctx context.Context, now time.Time, switchAlg bool) (bool, error) {
	next, err := newRow(r.cfg.Alg, r.cfg.DataKey, now, now.Add(min(MaxLead, r.cfg.Rotation/4)))
	if err != nil {
		return false, err
	}
	rotated, err := r.store.Rotate(ctx, r.cfg.DB, next, now.Add(-r.cfg.Rotation), switchAlg)
	if err != nil {
		return false, err
	}
	if rotated {
		r.cfg.Logger.Info("signing key rotated", "kid", next.Kid, "alg", next.Alg, "activatesAt", next.ActivatedAt)
		return true, nil
	}
	first, err := newRow(r.cfg.Alg, r.cfg.DataKey, now, now)
	if err != nil {
		return false, err
	}
	return r.store.InsertFirst(ctx, r.cfg.DB, first)
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
	rows, err := r.store.Published(ctx, r.cfg.DB, now.Add(-(r.cfg.TokenTTL + Margin)))
	if err != nil {
		return err
	}
	if r.cfg.Alg != auth.HS256 && !slices.ContainsFunc(rows, func(k models.SigningKey) bool { return k.RetiredAt == nil }) {
		// Every key was retired (by an instance configured for HS256):
		// this one signs with EdDSA or ES256, so it needs a current key.
		if err := r.ensure(ctx, now, false); err != nil {
			return err
		}
		if rows, err = r.store.Published(ctx, r.cfg.DB, now.Add(-(r.cfg.TokenTTL + Margin))); err != nil {
			return err
		}
	}
	keys := make([]*auth.Key, 0, len(rows))
	for i := range rows {
		k, err := r.decode(&rows[i], now, strict)
		if err != nil {
			return err
		}
		keys = append(keys, k)
	}
	set, err := auth.NewKeySet(keys...)
	if err != nil {
		return err
	}
	for kid := range r.opened {
		if _, ok := set.Verifying(kid, time.Time{}); !ok {
			delete(r.opened, kid)
		}
	}
	r.logChange(r.set.Swap(set), set, now)
	return nil
}

// decode converts a row, opening its private part when this instance
// signs and the key may still sign. Opened private keys are kept by kid.
func (r *Ring) decode(row *models.SigningKey, now time.Time, strict bool) (*auth.Key, error) {
	mayStillSign := row.RetiredAt == nil || row.RetiredAt.After(now)
	withPrivate := r.cfg.Alg != auth.HS256 && mayStillSign && r.opened[row.Kid] == nil
	k, err := decode(row, r.cfg.DataKey, r.cfg.TokenTTL, withPrivate)
	if errors.Is(err, ErrDataKey) && !strict {
		r.cfg.Logger.Error("a signing key does not open under DATA_ENCRYPTION_KEY: it only verifies here", "kid", row.Kid)
		k, err = decode(row, r.cfg.DataKey, r.cfg.TokenTTL, false)
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

// logChange logs a set whose kids or signing key differ from the last.
func (r *Ring) logChange(old, set *auth.KeySet, now time.Time) {
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
	if old != nil && slices.Equal(kids(old), kids(set)) && signing(old) == signing(set) {
		return
	}
	r.cfg.Logger.Info("signing keys loaded", "published", kids(set), "signing", signing(set))
}
