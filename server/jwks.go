package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/jwks"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/signingkeys"
)

// jwksPath is where the public signing keys are published.
const jwksPath = "/.well-known/jwks.json"

// newTokens builds the access-token machinery: tokens signed with
// ACCESS_TOKEN_ALG, verified with the secret (while ACCESS_TOKEN_SECRET is
// set) and with every published signing key, whatever the configured
// algorithm, so that switching algorithm logs nobody out. Without a
// database (a process that only describes its actions) there are no keys.
func newTokens(cfg *config, log *slog.Logger, db *sqlx.DB, now func() time.Time) (*signingkeys.Ring, *auth.Tokens, error) {
	var (
		ring   *signingkeys.Ring
		source auth.KeySource = &auth.StaticKeys{}
	)
	if db != nil {
		var err error
		ring, err = signingkeys.New(signingkeys.Config{
			DB: db, DataKey: cfg.DataKey, Alg: cfg.AccessTokenAlg,
			Rotation: cfg.SigningKeyRotation, TokenTTL: cfg.AccessTokenTTL, OAuthTokenTTL: oauthTokenTTL(cfg),
			Reload: cfg.SigningKeyReload, Logger: log,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("signing keys: %w", err)
		}
		source = ring
	}
	tokens := &auth.Tokens{
		Secret: cfg.AccessTokenSecret, Alg: cfg.AccessTokenAlg, Keys: source,
		Issuer: cfg.TokenIssuer, TTL: cfg.AccessTokenTTL, Now: now,
	}
	if err := tokens.Validate(); err != nil {
		return nil, nil, fmt.Errorf("ACCESS_TOKEN_SECRET/ACCESS_TOKEN_ALG: %w", err)
	}
	return ring, tokens, nil
}

// oauthTokenTTL is the lifetime of the OAuth access tokens and ID tokens
// this process issues (OAUTH_ACCESS_TOKEN_EXPIRES_IN), zero with the
// provider off: a retired key stays published until the longer of it and
// ACCESS_TOKEN_EXPIRES_IN has passed.
func oauthTokenTTL(cfg *config) time.Duration {
	if !cfg.OAuth.Enabled {
		return 0
	}
	return cfg.OAuth.AccessTokenTTL
}

// openKeys prepares and loads the signing keys at start (see
// signingkeys.Ring.Open) and reloads them every SIGNING_KEY_RELOAD until
// the process ends. A process on HS256 that serves no API (a worker or a
// clock) issues and verifies no token, and leaves the keys alone: started
// on the default HS256 beside EdDSA API instances, its Open would retire
// their key, a switch back to HS256 that only the API's setting decides.
func (a *app) openKeys(ctx context.Context, roles []string) error {
	if a.cfg.AccessTokenAlg == auth.HS256 && !slices.Contains(roles, roleAPI) {
		a.log.Info("access tokens: none issued or verified by this process; the signing keys are left as they are", "alg", a.cfg.AccessTokenAlg)
		return nil
	}
	if err := a.keys.Open(ctx); err != nil {
		return fmt.Errorf("signing keys: %w", err)
	}
	a.keys.Start()
	a.log.Info("access tokens", "alg", a.cfg.AccessTokenAlg, "hs256Accepted", len(a.cfg.AccessTokenSecret) > 0,
		"publishedKeys", len(a.keys.Published()))
	return nil
}

// mountJWKS serves the public signing keys, of access tokens and of ID
// tokens: every key that still verifies (the active one, the next one
// ahead of its activation, and the retired ones until their last token
// expires), as a JSON Web Key Set. It is empty
// for a deployment that never used a key pair. It is public and, like the
// probes, not rate limited: other services fetch it.
func (a *app) mountJWKS(fw *framework.Framework) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var keys []*auth.Key
		if a.keys != nil {
			keys = a.keys.Published()
		}
		raw, err := jwks.Marshal(keys)
		if err != nil {
			a.log.Error("the key set could not be written", "error", err.Error())
			fw.WriteError(w, r, errorcodes.InternalServerError.New())
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=300")
		if r.Method != http.MethodHead {
			_, _ = w.Write(raw)
		}
	})
	fw.Handle(http.MethodGet, jwksPath, h)
	fw.Handle(http.MethodHead, jwksPath, h)
}
