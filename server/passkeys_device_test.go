package main

import (
	"testing"

	"github.com/descope/virtualwebauthn"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"
)

// TestDeviceKeysParse: every software authenticator of the passkey tests
// sends a public key the WebAuthn library accepts, so that no passkey
// registration in a test fails because of the key it happened to draw.
// With 2,000 keys, one the authenticator encodes short is all but certain
// to be drawn if newDevice could hand it out.
func TestDeviceKeysParse(t *testing.T) {
	t.Parallel()
	for range 2000 {
		d := newDevice(virtualwebauthn.AuthenticatorOptions{})
		if _, err := webauthncose.ParsePublicKey(d.cred.Key.AttestationData()); err != nil {
			t.Fatalf("the library refuses the device's key: %v", err)
		}
	}
}
