package signingkeys

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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
	// Rotation is the age at which the current keys are replaced.
	Rotation time.Duration
	// TokenTTL is the access-token lifetime: a retired key stays published
	// TokenTTL (or OAuthTokenTTL, if longer) + Margin after its retirement.
	TokenTTL time.Duration
	// OAuthTokenTTL is the lifetime of OAuth access tokens and ID tokens
	// (OAUTH_ACCESS_TOKEN_EXPIRES_IN), which may exceed TokenTTL; zero when
	// the process issues none.
	OAuthTokenTTL time.Duration
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
// process's auth.KeySource of access tokens, which sees the access-token
// keys only; the ID-token keys are reached through IDTokenKey and
// IDTokenVerifyKey. Make it with New, then Open it.
type Ring struct {
	cfg   Config
	store models.SigningKeyStore

	set       atomic.Pointer[keySets]
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

// keySets are the keys of a Ring, split by purpose, so that the
// access-token side cannot even see an ID-token key.
type keySets struct {
	// access holds the EdDSA and ES256 keys (models.SigningKeyAccess).
	access *auth.KeySet
	// idToken holds the RS256 keys (models.SigningKeyIDToken).
	idToken *auth.KeySet
}

// accessSet is the access-token keys of s, nil for none.
func (s *keySets) accessSet() *auth.KeySet {
	if s == nil {
		return nil
	}
	return s.access
}

// idTokenSet is the ID-token keys of s, nil for none.
func (s *keySets) idTokenSet() *auth.KeySet {
	if s == nil {
		return nil
	}
	return s.idToken
}

// New returns the Ring of cfg, not loaded yet.
func New(cfg Config) (*Ring, error) {
	switch {
	case cfg.DB == nil || cfg.DataKey == nil:
		return nil, errors.New("signingkeys: nil database or data key")
	case cfg.Alg != auth.HS256 && !auth.Asymmetric(cfg.Alg):
		return nil, fmt.Errorf("signingkeys: unknown algorithm %q", cfg.Alg)
	case cfg.Rotation <= 0 || cfg.TokenTTL <= 0:
		return nil, errors.New("signingkeys: rotation and token lifetime must be positive")
	case cfg.OAuthTokenTTL < 0:
		return nil, errors.New("signingkeys: negative OAuth token lifetime")
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

// VerifyKey implements auth.KeySource: a published access-token key by
// kid, never an ID-token key, whose kid is unknown here. An unknown kid
// reloads the keys first, unless they were loaded less than
// MaxUnknownReload (or Reload, if shorter) ago. When the keys could not be
// read because the database is unreachable (now, or at the last load
// within that time), an unknown kid is that failure, marked by
// dependency.Unavailable, and not auth.ErrUnknownKey: the request is
// answered 503, and its client keeps a token that may well be valid.
func (r *Ring) VerifyKey(ctx context.Context, kid string) (*auth.Key, error) {
	return r.lookup(ctx, kid, func(s *keySets, now time.Time) (*auth.Key, bool) {
		return s.accessSet().Verifying(kid, now)
	})
}

// IDTokenVerifyKey returns the published key named kid that may have
// signed an ID token: an RS256 ID-token key, or an access-token key, which
// signs the ID tokens of clients whose id_token_alg is ACCESS_TOKEN_ALG.
// The caller checks that the token's alg is the key's Alg. An unknown kid
// reloads the keys and fails as VerifyKey does. It is for ID tokens only
// (an id_token_hint): an access token is verified with VerifyKey.
func (r *Ring) IDTokenVerifyKey(ctx context.Context, kid string) (*auth.Key, error) {
	return r.lookup(ctx, kid, func(s *keySets, now time.Time) (*auth.Key, bool) {
		if k, ok := s.idTokenSet().Verifying(kid, now); ok {
			return k, true
		}
		return s.accessSet().Verifying(kid, now)
	})
}

// lookup finds a key with find, reloading the keys once for a kid find
// does not know (see VerifyKey).
func (r *Ring) lookup(ctx context.Context, kid string, find func(*keySets, time.Time) (*auth.Key, bool)) (*auth.Key, error) {
	if k, ok := find(r.set.Load(), r.cfg.Now()); ok {
		return k, nil
	}
	if err := r.load(ctx, false); errors.Is(err, dependency.ErrUnavailable) {
		return nil, fmt.Errorf("kid %q: the signing keys could not be read: %w", kid, err)
	} else if err != nil && !errors.Is(err, errTooSoon) {
		return nil, fmt.Errorf("kid %q: %w (%w)", kid, auth.ErrUnknownKey, err)
	}
	if k, ok := find(r.set.Load(), r.cfg.Now()); ok {
		return k, nil
	}
	return nil, fmt.Errorf("kid %q: %w", kid, auth.ErrUnknownKey)
}

// SigningKey implements auth.KeySource: the active access-token key.
func (r *Ring) SigningKey() (*auth.Key, error) {
	if k, ok := r.set.Load().accessSet().Signing(r.cfg.Now()); ok {
		return k, nil
	}
	return nil, auth.ErrNoSigningKey
}

// IDTokenKey returns the active ID-token key, an RSA key of Alg
// auth.RS256 with its private part, or an error wrapping
// auth.ErrNoSigningKey when there is none (a process configured for
// HS256, or a Ring not opened yet). It never signs an access token.
func (r *Ring) IDTokenKey() (*auth.Key, error) {
	if k, ok := r.set.Load().idTokenSet().Signing(r.cfg.Now()); ok {
		return k, nil
	}
	return nil, fmt.Errorf("signingkeys: no ID-token key: %w", auth.ErrNoSigningKey)
}

// SignedSince implements auth.SignedSince: the activation of the oldest
// published access-token key, which every instance reads alike from
// signing_keys.
func (r *Ring) SignedSince() (time.Time, bool) {
	return r.set.Load().accessSet().Since(r.cfg.Now())
}

// Published returns the keys that verify now, access-token and ID-token
// keys alike, newest first: those the key set endpoint publishes.
func (r *Ring) Published() []*auth.Key {
	s, now := r.set.Load(), r.cfg.Now()
	keys := append(s.accessSet().Published(now), s.idTokenSet().Published(now)...)
	slices.SortStableFunc(keys, func(a, b *auth.Key) int { return b.ActiveFrom.Compare(a.ActiveFrom) })
	return keys
}

// keep is how long after its retirement a key stays published: the
// longer token lifetime, and Margin.
func (r *Ring) keep() time.Duration { return max(r.cfg.TokenTTL, r.cfg.OAuthTokenTTL) + Margin }

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
