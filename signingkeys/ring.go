package signingkeys

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/datakey"
	"github.com/actionkit/actionkit/dependency"
	"github.com/actionkit/actionkit/models"
)

// Timings of a Ring.
const (
	// Margin is added to the access-token lifetime to keep a retired key
	// published: a token signed at the last moment by an instance whose
	// clock runs late, and then accepted with clock-skew leeway, still
	// verifies.
	Margin = 2 * auth.ClockSkew
	// MaxLead is how far ahead of its first token a rotated key is
	// published (less for a rotation shorter than four times it): every
	// instance reloads it and HTTP caches of the key set (max-age 300 s)
	// expire before any token needs it.
	MaxLead = 10 * time.Minute
	// DefaultReload is how often a Ring reloads the keys.
	DefaultReload = 30 * time.Second
	// MaxUnknownReload is the most often a Ring reloads because a token
	// names a kid it does not know.
	MaxUnknownReload = 5 * time.Second
	// RetiredKeep is how long a retired key stays in the database after
	// it stopped being published (retired_at + the token lifetime +
	// Margin), for instances configured with a longer token lifetime;
	// then Rotate deletes it, private half and all.
	RetiredKeep = 24 * time.Hour
)

// Config configures a Ring.
type Config struct {
	// DB holds signing_keys.
	DB *sqlx.DB
	// DataKey seals and opens the private keys.
	DataKey *datakey.Key
	// Alg is the configured ACCESS_TOKEN_ALG. With EdDSA or ES256 the Ring
	// makes, rotates and signs with keys of it; with HS256 it makes none,
	// retires the current key at Open and only verifies the keys still
	// published.
	Alg string
	// Rotation is the age at which the current key is replaced.
	Rotation time.Duration
	// TokenTTL is the access-token lifetime: a retired key stays published
	// TokenTTL + Margin after its retirement.
	TokenTTL time.Duration
	// Reload is how often the keys are reloaded; default DefaultReload.
	Reload time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives key changes and failures; default discarded.
	Logger *slog.Logger
}

// Ring holds the signing keys of one server process: loaded from
// signing_keys, reloaded every Reload and when a token names an unknown
// kid (at most once per MaxUnknownReload), read without locks. It is the
// process's auth.KeySource. Make it with New, then Open it.
type Ring struct {
	cfg   Config
	store models.SigningKeyStore

	set       atomic.Pointer[auth.KeySet]
	unknownAt atomic.Int64 // UnixNano when the last load for an unknown kid began

	mu      sync.Mutex
	loading chan struct{} // closed when the load under way ends
	lastErr error
	opened  map[string]*auth.Key // decoded keys by kid, reused across loads

	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
}

var _ auth.KeySource = (*Ring)(nil)

// New returns the Ring of cfg, not loaded yet.
func New(cfg Config) (*Ring, error) {
	switch {
	case cfg.DB == nil || cfg.DataKey == nil:
		return nil, errors.New("signingkeys: nil database or data key")
	case cfg.Alg != auth.HS256 && !auth.Asymmetric(cfg.Alg):
		return nil, fmt.Errorf("signingkeys: unknown algorithm %q", cfg.Alg)
	case cfg.Rotation <= 0 || cfg.TokenTTL <= 0:
		return nil, errors.New("signingkeys: rotation and token lifetime must be positive")
	}
	if cfg.Reload <= 0 {
		cfg.Reload = DefaultReload
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Ring{cfg: cfg, opened: map[string]*auth.Key{}, stop: make(chan struct{})}, nil
}

// VerifyKey implements auth.KeySource: a published key by kid. An unknown
// kid reloads the keys first, unless they were loaded less than
// MaxUnknownReload (or Reload, if shorter) ago. When the keys could not be
// read because the database is unreachable (now, or at the last load
// within that time), an unknown kid is that failure, marked by
// dependency.Unavailable, and not auth.ErrUnknownKey: the request is
// answered 503, and its client keeps a token that may well be valid.
func (r *Ring) VerifyKey(ctx context.Context, kid string) (*auth.Key, error) {
	if k, ok := r.set.Load().Verifying(kid, r.cfg.Now()); ok {
		return k, nil
	}
	if err := r.load(ctx, false); errors.Is(err, dependency.ErrUnavailable) {
		return nil, fmt.Errorf("kid %q: the signing keys could not be read: %w", kid, err)
	} else if err != nil && !errors.Is(err, errTooSoon) {
		return nil, fmt.Errorf("kid %q: %w (%w)", kid, auth.ErrUnknownKey, err)
	}
	if k, ok := r.set.Load().Verifying(kid, r.cfg.Now()); ok {
		return k, nil
	}
	return nil, fmt.Errorf("kid %q: %w", kid, auth.ErrUnknownKey)
}

// SigningKey implements auth.KeySource: the active key.
func (r *Ring) SigningKey() (*auth.Key, error) {
	if k, ok := r.set.Load().Signing(r.cfg.Now()); ok {
		return k, nil
	}
	return nil, auth.ErrNoSigningKey
}

// SignedSince implements auth.SignedSince: the activation of the oldest
// published key, which every instance reads alike from signing_keys.
func (r *Ring) SignedSince() (time.Time, bool) { return r.set.Load().Since(r.cfg.Now()) }

// Published returns the keys that verify now, newest first: those the key
// set endpoint publishes.
func (r *Ring) Published() []*auth.Key { return r.set.Load().Published(r.cfg.Now()) }

// Start reloads the keys every Reload until Stop.
func (r *Ring) Start() {
	r.done.Go(func() {
		t := time.NewTicker(r.cfg.Reload)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				if err := r.load(ctx, true); err != nil {
					r.cfg.Logger.Error("signing keys could not be reloaded; the loaded ones stay in use", "error", err.Error())
				}
				cancel()
			}
		}
	})
}

// Stop ends the reloads Start began. It may be called more than once,
// and without Start.
func (r *Ring) Stop() {
	r.stopOnce.Do(func() { close(r.stop) })
	r.done.Wait()
}
