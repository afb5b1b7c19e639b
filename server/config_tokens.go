package main

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/datakey"
)

// tokenConfig reads the access-token settings: the algorithm, the shared
// secret, the data-encryption key, and the rotation and reload of the
// signing keys.
func (p *envParser) tokenConfig(c *config) {
	c.AccessTokenAlg = p.algorithm("ACCESS_TOKEN_ALG")
	c.AccessTokenSecret = p.secret("ACCESS_TOKEN_SECRET", c)
	c.DataKey = p.dataKey("DATA_ENCRYPTION_KEY", c)
	c.SigningKeyRotation = p.duration("SIGNING_KEY_ROTATION", 30*24*time.Hour)
	if c.SigningKeyRotation < time.Second {
		p.fail("SIGNING_KEY_ROTATION", "must be at least 1s")
	}
	c.SigningKeyReload = p.duration("SIGNING_KEY_RELOAD", 30*time.Second)
	if c.SigningKeyReload < 10*time.Millisecond || c.SigningKeyReload > time.Minute {
		p.fail("SIGNING_KEY_RELOAD", "must be from 10ms to 1m (every instance picks up a new key within it)")
	}
}

// algorithm reads ACCESS_TOKEN_ALG, matched without regard to case.
func (p *envParser) algorithm(name string) string {
	v := p.str(name, auth.HS256)
	for _, a := range auth.Algorithms() {
		if strings.EqualFold(v, a) {
			return a
		}
	}
	p.fail(name, fmt.Sprintf("is %q; want one of %s", v, strings.Join(auth.Algorithms(), ", ")))
	return auth.HS256
}

// secret reads the HS256 secret. When given it must be at least 32 bytes
// with some variety. A missing one is left out when a key pair signs (no
// HS256 token is then accepted), is an error in production, and is
// generated for this process elsewhere (tokens then die with it), which
// start-up warns about.
func (p *envParser) secret(name string, c *config) []byte {
	v := p.getenv(name)
	switch {
	case v == "" && auth.Asymmetric(c.AccessTokenAlg):
		return nil
	case v == "" && !c.production():
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			p.fail(name, "could not be generated: "+err.Error())
		}
		c.generatedSecret = true
		return b
	}
	distinct := map[rune]bool{}
	for _, r := range v {
		distinct[r] = true
	}
	if len(v) < 32 || len(distinct) < 8 {
		p.fail(name, "must be a random value of at least 32 bytes (e.g. openssl rand -hex 32)")
	}
	return []byte(v)
}

// dataKey reads the data-encryption key: 64 hex characters, required in
// production. Elsewhere a missing key is derived from ACCESS_TOKEN_SECRET
// when that was given, so that a development database's secrets survive a
// restart, and is random for this process otherwise (start-up warns);
// with a key pair that is refused, since its private part, sealed under
// the key, must open after a restart.
func (p *envParser) dataKey(name string, c *config) *datakey.Key {
	if v, ok := p.raw(name); ok {
		k, err := datakey.Parse(v)
		if err != nil {
			p.fail(name, "must be 32 random bytes as 64 hexadecimal characters (e.g. openssl rand -hex 32)")
		}
		return k
	}
	var (
		k   *datakey.Key
		err error
	)
	switch {
	case c.production():
		p.fail(name, "is required in production: 32 random bytes as 64 hexadecimal characters (e.g. openssl rand -hex 32)")
		return nil
	case len(c.AccessTokenSecret) > 0 && !c.generatedSecret:
		k, err = datakey.Derive(c.AccessTokenSecret)
	case auth.Asymmetric(c.AccessTokenAlg):
		p.fail(name, fmt.Sprintf("is needed with ACCESS_TOKEN_ALG=%s (outside production ACCESS_TOKEN_SECRET may stand in for it): "+
			"the private signing keys are stored encrypted under it and must open after a restart", c.AccessTokenAlg))
		return nil
	default:
		c.generatedDataKey = true
		k, err = datakey.Random()
	}
	if err != nil {
		p.fail(name, "could not be made: "+err.Error())
	}
	return k
}
