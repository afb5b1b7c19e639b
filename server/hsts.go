package main

import (
	"net/http"
	"strings"
)

// hstsValue is the Strict-Transport-Security header of every answer when
// PUBLIC_URL is https: browsers then use https for a year.
const hstsValue = "max-age=31536000"

// httpsPublic reports whether PUBLIC_URL is https, which is what the
// service's own links and the browsers' view of it say, whatever APP_ENV
// (TLS itself usually ends at a proxy in front).
func (c *config) httpsPublic() bool {
	return strings.HasPrefix(c.publicOrigin(), "https://")
}

// withHSTS sets Strict-Transport-Security on every answer of next when on
// is set: actions and their errors, unknown routes, probes, documents and
// assets alike, since it wraps the whole API handler.
func withHSTS(on bool, next http.Handler) http.Handler {
	if !on {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", hstsValue)
		next.ServeHTTP(w, r)
	})
}
