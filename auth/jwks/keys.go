package jwks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actionkit/actionkit/auth"
)

// maxDocumentBytes bounds the key set read from the URL.
const maxDocumentBytes = 1 << 20

// errTooSoon reports a fetch refused because the last one began less than
// MinRefetch ago.
var errTooSoon = errors.New("jwks: the key set was fetched moments ago")

// Keys is an auth.KeySource over the JSON Web Key Set at a URL. It answers
// from the keys it last fetched; a kid it does not know makes it fetch the
// set again, at most once per MinRefetch, and a set older than MaxAge is
// fetched again in the background on its next use. When a fetch fails the
// keys fetched before go on verifying, and the failure is logged. It only
// verifies: SigningKey always fails. Make it with New (as part of a
// Verifier) or NewKeys; it is safe for concurrent use.
type Keys struct {
	cfg Config

	set        atomic.Pointer[auth.KeySet]
	fetchedAt  atomic.Int64 // UnixNano of the last successful fetch
	triedAt    atomic.Int64 // UnixNano of when the last fetch began
	unknownAt  atomic.Int64 // UnixNano of when the last fetch for an unknown kid began
	refreshing atomic.Bool  // a background fetch is under way

	mu       sync.Mutex
	fetching chan struct{} // closed when the fetch under way ends
	lastErr  error         // the outcome of the last fetch
}

// NewKeys returns the Keys of cfg (URL, Algorithms, HTTPClient, MinRefetch,
// MaxAge, Now, Logger; Issuer is not used), without fetching anything yet.
func NewKeys(cfg Config) (*Keys, error) {
	if err := cfg.init(); err != nil {
		return nil, err
	}
	return &Keys{cfg: cfg}, nil
}

// VerifyKey implements auth.KeySource.
func (k *Keys) VerifyKey(ctx context.Context, kid string) (*auth.Key, error) {
	now := k.cfg.Now()
	if key, ok := k.set.Load().Verifying(kid, now); ok {
		k.refreshIfOld(now)
		return key, nil
	}
	if err := k.fetch(ctx, &k.unknownAt); err != nil && !errors.Is(err, errTooSoon) {
		return nil, fmt.Errorf("kid %q: %w (%w)", kid, auth.ErrUnknownKey, err)
	}
	if key, ok := k.set.Load().Verifying(kid, k.cfg.Now()); ok {
		return key, nil
	}
	return nil, fmt.Errorf("kid %q: %w", kid, auth.ErrUnknownKey)
}

// SigningKey implements auth.KeySource: Keys only verify.
func (k *Keys) SigningKey() (*auth.Key, error) {
	return nil, fmt.Errorf("jwks: a key set fetched from %s only verifies: %w", k.cfg.URL, auth.ErrNoSigningKey)
}

// refreshIfOld starts a background fetch when the set is older than
// MaxAge and the last fetch began at least MinRefetch ago, unless one runs.
func (k *Keys) refreshIfOld(now time.Time) {
	if now.Sub(time.Unix(0, k.fetchedAt.Load())) < k.cfg.MaxAge || !k.mayTry(&k.triedAt, now) {
		return
	}
	if k.refreshing.CompareAndSwap(false, true) {
		go func() {
			defer k.refreshing.Store(false)
			_ = k.fetch(context.Background(), &k.triedAt)
		}()
	}
}

// mayTry reports whether MinRefetch has passed since the time in last.
func (k *Keys) mayTry(last *atomic.Int64, now time.Time) bool {
	tried := last.Load()
	return tried == 0 || now.Sub(time.Unix(0, tried)) >= k.cfg.MinRefetch
}

// Refresh fetches the key set now, whenever the last fetch was; a fetch
// under way is waited for instead. On failure the keys fetched before
// stay in use.
func (k *Keys) Refresh(ctx context.Context) error { return k.fetch(ctx, nil) }

// Published returns the keys last fetched.
func (k *Keys) Published() []*auth.Key { return k.set.Load().Published(k.cfg.Now()) }

// fetch fetches the key set once for every caller that asks while it
// runs; when limit is set, only if the time it holds is at least
// MinRefetch ago, and then it is set to now. Fetches for unknown kids are
// limited by their own time (a periodic fetch moments before does not
// delay the first token of a new key), background fetches by the time of
// any fetch. The fetch itself is bounded by the HTTP client's timeout, not by
// ctx: the callers that share it may leave, it goes on for the others.
func (k *Keys) fetch(ctx context.Context, limit *atomic.Int64) error {
	k.mu.Lock()
	if wait := k.fetching; wait != nil {
		k.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.lastErr
	}
	now := k.cfg.Now()
	if limit != nil && !k.mayTry(limit, now) {
		k.mu.Unlock()
		return errTooSoon
	}
	done := make(chan struct{})
	k.fetching = done
	k.triedAt.Store(now.UnixNano())
	if limit != nil {
		limit.Store(now.UnixNano())
	}
	k.mu.Unlock()

	err := k.download(context.WithoutCancel(ctx))
	if err != nil {
		k.logFailure(err)
	}
	k.mu.Lock()
	k.fetching, k.lastErr = nil, err
	k.mu.Unlock()
	close(done)
	return err
}

// download fetches, parses and installs the key set.
func (k *Keys) download(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.cfg.URL, nil)
	if err != nil {
		return fmt.Errorf("jwks: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := k.cfg.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("jwks: fetch: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("jwks: fetch: status %d", res.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("jwks: read: %w", err)
	}
	if len(raw) > maxDocumentBytes {
		return fmt.Errorf("jwks: the key set is over %d bytes", maxDocumentBytes)
	}
	set, err := k.parse(raw)
	if err != nil {
		return err
	}
	old := k.set.Swap(set)
	k.fetchedAt.Store(k.cfg.Now().UnixNano())
	k.logFetched(old, set)
	return nil
}

// parse reads a key set, skipping each key it cannot use, so that a key
// of another algorithm published beside them does not stop the others from
// verifying. A sound key of an algorithm not accepted (the server's RS256
// ID-token keys, say) is skipped quietly (DEBUG); any other is logged
// (WARN).
func (k *Keys) parse(raw []byte) (*auth.KeySet, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Keys == nil {
		return nil, errors.New(`jwks: the answer is not a key set ({"keys":[…]})`)
	}
	keys := make([]*auth.Key, 0, len(doc.Keys))
	for _, r := range doc.Keys {
		key, err := ParseKey(r, k.cfg.Algorithms)
		if err == nil && slices.ContainsFunc(keys, func(o *auth.Key) bool { return o.ID == key.ID }) {
			err = fmt.Errorf("jwks: kid %s appears twice", key.ID)
		}
		if errors.Is(err, ErrAlgNotAllowed) {
			k.cfg.Logger.Debug("jwks: a key of an algorithm not accepted is ignored", "url", k.cfg.URL, "error", err.Error())
			continue
		}
		if err != nil {
			k.cfg.Logger.Warn("jwks: a key of the set is skipped", "url", k.cfg.URL, "error", err.Error())
			continue
		}
		keys = append(keys, key)
	}
	return auth.NewKeySet(keys...)
}

func (k *Keys) logFetched(old, set *auth.KeySet) {
	kids := make([]string, 0, set.Len())
	for _, key := range set.Published(k.cfg.Now()) {
		kids = append(kids, key.ID)
	}
	level := slog.LevelDebug
	if old == nil || !sameKids(old, kids, k.cfg.Now()) {
		level = slog.LevelInfo
	}
	k.cfg.Logger.Log(context.Background(), level, "jwks: key set fetched", "url", k.cfg.URL, "kids", kids)
}

func sameKids(set *auth.KeySet, kids []string, now time.Time) bool {
	published := set.Published(now)
	if len(published) != len(kids) {
		return false
	}
	for _, key := range published {
		if !slices.Contains(kids, key.ID) {
			return false
		}
	}
	return true
}

// logFailure says that the set could not be fetched, and what is verified
// meanwhile.
func (k *Keys) logFailure(err error) {
	cached := k.set.Load()
	if cached.Len() == 0 {
		k.cfg.Logger.Error("jwks: the key set could not be fetched and no key is cached: asymmetric tokens are refused",
			"url", k.cfg.URL, "error", err.Error())
		return
	}
	age := k.cfg.Now().Sub(time.Unix(0, k.fetchedAt.Load())).Round(time.Second)
	k.cfg.Logger.Warn("jwks: the key set could not be fetched: verifying with the cached keys",
		"url", k.cfg.URL, "error", err.Error(), "cachedKeys", cached.Len(), "cachedFor", age.String())
}
