package federation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// SigningAlgorithms are the algorithms an ID token may be signed with:
// asymmetric ones only. A token signed with a shared secret (HS256) or not
// at all ("none") is refused whatever the provider says it supports.
var SigningAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// KeyRefetchInterval is the shortest time between two reads of a
// provider's signing keys made because a token named a key id the set
// lacks.
const KeyRefetchInterval = 10 * time.Second

// maxKeySetBytes bounds the size of a key set answer.
const maxKeySetBytes = 1 << 20

// errSignature reports a token no key of the set verifies.
var errSignature = errors.New("federation: no signing key of the provider verifies the token")

// keySet is a provider's set of signing keys, read from its jwks_uri. It
// implements the key set of the ID token verifier.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time
	// miss, when set, is told of a token whose key the set lacks even
	// after reading it again (or when it was read moments ago).
	miss func()

	mu       sync.Mutex
	keys     []jose.JSONWebKey
	readAt   time.Time // the last read tried; zero before the first
	inflight *keyRead
}

// keyRead is a read of the key set that concurrent verifications share.
type keyRead struct {
	done chan struct{}
	keys []jose.JSONWebKey
	err  error
}

// VerifySignature checks the token's signature with the key its header
// names and returns the payload. A key id the set lacks (or a failure
// without a key id) reads the set again first, unless it was read within
// KeyRefetchInterval.
func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	jws, err := jose.ParseSigned(raw, SigningAlgorithms)
	if err != nil {
		return nil, fmt.Errorf("federation: malformed ID token: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("federation: an ID token must carry exactly one signature")
	}
	kid := jws.Signatures[0].Header.KeyID
	keys, fresh := k.cached()
	if payload, known := verifyWith(jws, keys, kid); payload != nil {
		return payload, nil
	} else if known && !fresh {
		return nil, errSignature // the named key is there and does not verify: reading again changes nothing
	}
	if keys, err = k.refetch(ctx); err != nil {
		return nil, err
	}
	payload, known := verifyWith(jws, keys, kid)
	if payload != nil {
		return payload, nil
	}
	if !known && k.miss != nil {
		k.miss()
	}
	return nil, errSignature
}

// verifyWith tries the keys whose id is kid (every key when kid is empty)
// and returns the payload of the first that verifies, and whether a key
// with that id is in keys at all.
func verifyWith(jws *jose.JSONWebSignature, keys []jose.JSONWebKey, kid string) (payload []byte, known bool) {
	for i := range keys {
		if kid != "" && keys[i].KeyID != kid {
			continue
		}
		known = kid != ""
		if p, err := jws.Verify(&keys[i]); err == nil {
			return p, known
		}
	}
	return nil, known
}

// cached returns the keys read so far; fresh is true before the first
// read.
func (k *keySet) cached() (keys []jose.JSONWebKey, fresh bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys, k.readAt.IsZero()
}

// refetch reads the set again, unless it was read within
// KeyRefetchInterval, and returns the keys then known. Concurrent calls
// share one read.
func (k *keySet) refetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	r := k.inflight
	if r == nil {
		if now := k.now(); !k.readAt.IsZero() && now.Sub(k.readAt) < KeyRefetchInterval {
			keys := k.keys
			k.mu.Unlock()
			return keys, nil
		}
		r = &keyRead{done: make(chan struct{})}
		k.inflight, k.readAt = r, k.now()
		go k.read(r)
	}
	k.mu.Unlock()
	select {
	case <-r.done:
		return r.keys, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// read fetches the set for r and keeps it when it could be read.
func (k *keySet) read(r *keyRead) {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	keys, err := fetchKeys(ctx, k.client, k.url)
	k.mu.Lock()
	if err == nil {
		k.keys = keys
	} else {
		keys = k.keys
	}
	k.inflight = nil
	k.mu.Unlock()
	r.keys, r.err = keys, err
	close(r.done)
}

// fetchKeys reads a JSON Web Key Set, skipping the keys it cannot use
// (unknown types, encryption keys) rather than refusing the whole set.
func fetchKeys(ctx context.Context, client *http.Client, url string) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("federation: read signing keys: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxKeySetBytes))
	if err != nil {
		return nil, fmt.Errorf("federation: read signing keys: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("federation: read signing keys: %s", res.Status)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("federation: signing keys: %w", err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		if json.Unmarshal(raw, &key) != nil || key.Use == "enc" || !key.IsPublic() {
			continue
		}
		keys = append(keys, key)
	}
	return keys, nil
}
