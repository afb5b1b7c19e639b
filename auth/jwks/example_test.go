package jwks_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/auth/jwks"
)

// A service verifies the server's tokens with the key set it publishes.
// Here the "server" is a handler serving one Ed25519 key, and a Tokens
// signing with it.
func ExampleVerifier() {
	key, _ := auth.GenerateKey(auth.EdDSA)
	key.ID, _ = jwks.Thumbprint(key.Public)
	set, _ := auth.NewKeySet(key)
	doc, _ := jwks.Marshal([]*auth.Key{key})
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(doc) }))
	defer server.Close()
	signer := &auth.Tokens{Alg: auth.EdDSA, Keys: &auth.StaticKeys{Set: set}}
	id, session := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	token, _, _ := signer.Issue("user", id, session, 1, action.App)

	v, err := jwks.New(jwks.Config{URL: server.URL + "/.well-known/jwks.json", Algorithms: []string{auth.EdDSA}})
	if err != nil {
		panic(err)
	}
	claims, err := v.Verify(context.Background(), "user", token)
	fmt.Println(err, claims.Subject == id, claims.SessionID == session, claims.Client, claims.KeyID == key.ID)
	_, err = v.Verify(context.Background(), "admin", token)
	fmt.Println(err != nil)
	// Output:
	// <nil> true true app true
	// true
}
