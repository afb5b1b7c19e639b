// Package jwks lets a service other than the actionkit server verify its
// access tokens without holding any secret: the server signs them with
// EdDSA or ES256 keys (ACCESS_TOKEN_ALG) and publishes the public keys at
// /.well-known/jwks.json, and a Verifier fetches that key set, caches it
// and checks tokens with it exactly as the server does.
//
// The cache is built for keys that rotate: a token whose kid is unknown
// makes the Verifier fetch the set again (at most once per MinRefetch, a
// minute by default, however many such tokens arrive), and a set older
// than MaxAge is fetched again in the background. When the key set cannot
// be fetched the keys fetched before go on verifying, and the Logger says
// so. The algorithms are fixed by Config.Algorithms, never taken from a
// token: a key verifies only tokens of its own alg, and HS256 is refused.
//
// With an auth.Authenticator, a service of its own resolves callers from
// the Authorization header like the server does:
//
//	v, err := jwks.New(jwks.Config{URL: "https://auth.example.com/.well-known/jwks.json", Logger: log})
//	authn := auth.NewAuthenticator(v.Tokens(), auth.Owner{Type: "user", Load: loadUser})
//
// A signature proves who issued a token, not that its session is still
// live: a Loader that must see a logout at once reads the session (the
// token's sid), as the sibling example does, or asks the server's
// /v1/users/read with the token.
//
// Marshal and Thumbprint are the server's side: they write the key set and
// name its keys.
package jwks
