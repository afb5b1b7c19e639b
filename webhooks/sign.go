package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix opens every webhook secret (Standard Webhooks).
const SecretPrefix = "whsec_"

// secretSize is the number of random bytes of a secret.
const secretSize = 32

// ErrSecret reports a secret that is not whsec_ and base64.
var ErrSecret = errors.New("webhooks: a secret is " + SecretPrefix + " and base64")

// NewSecret returns a fresh secret: whsec_ and the base64 of 32 random
// bytes.
func NewSecret() string {
	raw := make([]byte, secretSize)
	_, _ = rand.Read(raw) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(raw)
}

// secretKey returns the HMAC key of secret: the base64-decoded part after
// whsec_.
func secretKey(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, ErrSecret
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(key) == 0 {
		return nil, ErrSecret
	}
	return key, nil
}

// Sign returns the webhook-signature header of one attempt: "v1," and the
// base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" under each secret, the
// signatures separated by a space (several during a rotation's grace).
func Sign(id string, at time.Time, body []byte, secrets ...string) (string, error) {
	ts := strconv.FormatInt(at.Unix(), 10)
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return "", err
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + ts + "."))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
