package main

import (
	"testing"
	"time"
)

func TestTokenSettings(t *testing.T) {
	c, err := loadEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessTokenAlg != "HS256" || c.SigningKeyRotation != 30*24*time.Hour || c.SigningKeyReload != 30*time.Second {
		t.Errorf("defaults: alg %s, rotation %v, reload %v", c.AccessTokenAlg, c.SigningKeyRotation, c.SigningKeyReload)
	}
	c, err = loadEnv(map[string]string{"ACCESS_TOKEN_ALG": "eddsa", "ACCESS_TOKEN_SECRET": testSecret, "SIGNING_KEY_ROTATION": "7d", "SIGNING_KEY_RELOAD": "200ms"})
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessTokenAlg != "EdDSA" || c.SigningKeyRotation != 7*24*time.Hour || c.SigningKeyReload != 200*time.Millisecond || c.generatedDataKey {
		t.Errorf("EdDSA: alg %s, rotation %v, reload %v, random data key %v", c.AccessTokenAlg, c.SigningKeyRotation, c.SigningKeyReload, c.generatedDataKey)
	}
	// With a key pair, the shared secret is optional, in production too:
	// without it no HS256 token is accepted.
	c, err = loadEnv(map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_ALG": "ES256", "DATA_ENCRYPTION_KEY": testDataKey})
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessTokenAlg != "ES256" || c.AccessTokenSecret != nil || c.generatedSecret {
		t.Errorf("ES256 without a secret: %s, secret %d bytes, generated %v", c.AccessTokenAlg, len(c.AccessTokenSecret), c.generatedSecret)
	}
	c, err = loadEnv(map[string]string{"ACCESS_TOKEN_ALG": "EdDSA", "DATA_ENCRYPTION_KEY": testDataKey})
	if err != nil || c.AccessTokenSecret != nil {
		t.Errorf("EdDSA in development without a secret: %v, secret %d bytes", err, len(c.AccessTokenSecret))
	}
}

func TestTokenSettingsRefused(t *testing.T) {
	checkRefusals(t, []configRefusal{
		{"an unknown algorithm", map[string]string{"ACCESS_TOKEN_ALG": "RS256"}, []string{"ACCESS_TOKEN_ALG", "HS256, EdDSA, ES256"}},
		{"alg none", map[string]string{"ACCESS_TOKEN_ALG": "none"}, []string{"ACCESS_TOKEN_ALG"}},
		{"a rotation that is no duration", map[string]string{"SIGNING_KEY_ROTATION": "monthly"}, []string{"SIGNING_KEY_ROTATION"}},
		{"a rotation under a second", map[string]string{"SIGNING_KEY_ROTATION": "10ms"}, []string{"SIGNING_KEY_ROTATION"}},
		{"a reload over a minute", map[string]string{"SIGNING_KEY_RELOAD": "2m"}, []string{"SIGNING_KEY_RELOAD"}},
		{"a key pair whose private part would not survive a restart", map[string]string{"ACCESS_TOKEN_ALG": "EdDSA"}, []string{"DATA_ENCRYPTION_KEY", "ACCESS_TOKEN_ALG"}},
		{"production with a key pair still needs a data key", map[string]string{"APP_ENV": "production", "ACCESS_TOKEN_ALG": "EdDSA", "ACCESS_TOKEN_SECRET": testSecret}, []string{"DATA_ENCRYPTION_KEY"}},
		{"a weak secret beside a key pair", map[string]string{"ACCESS_TOKEN_ALG": "EdDSA", "DATA_ENCRYPTION_KEY": testDataKey, "ACCESS_TOKEN_SECRET": "short"}, []string{"ACCESS_TOKEN_SECRET"}},
	})
}
