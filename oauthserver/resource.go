package oauthserver

import "github.com/actionkit/actionkit/auth/accesstoken"

// ResourceURI returns the WHATWG URL serialization of an absolute http(s)
// resource URI (scheme and host lower-cased, default port dropped, dot
// segments resolved, an empty path written "/"), and whether raw is one.
// Resources are compared in this form (CONTRACT §19), the same one the
// framework's verifier compares a token's aud in.
func ResourceURI(raw string) (string, bool) { return accesstoken.ResourceURI(raw) }
