package main

import (
	"net/http"
	"testing"
)

// hstsPaths are answers of every kind: an action's success and its errors,
// an unknown route, a wrong method, a CORS preflight, the probes, the demo
// page and its script, the OpenAPI document and the metrics.
var hstsPaths = []struct{ method, path string }{
	{http.MethodPost, "/v1/users/register"},
	{http.MethodGet, "/v1/users/read"},
	{http.MethodGet, "/v1/users/login?email=x"},
	{http.MethodGet, "/no/such/route"},
	{"TRACE", "/v1/users/read"},
	{http.MethodOptions, "/v1/users/read"},
	{http.MethodGet, "/health"},
	{http.MethodHead, "/ready"},
	{http.MethodGet, "/demo"},
	{http.MethodGet, "/demo/demo.js"},
	{http.MethodGet, "/openapi.json"},
	{http.MethodGet, "/metrics"},
}

// TestHSTSWhenPublicURLIsHTTPS: with an https PUBLIC_URL every answer
// carries Strict-Transport-Security, whatever APP_ENV; with an http one,
// none does.
func TestHSTSWhenPublicURLIsHTTPS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"https in development", []string{"APP_ENV=development", "PUBLIC_URL=https://app.test"}, "max-age=31536000"},
		{"http in production", []string{"APP_ENV=production", "PUBLIC_URL=http://app.test", "DEMO_ENABLED=true",
			"PASSWORD_HASH_MEMORY_KIB=19456", "PASSWORD_HASH_ITERATIONS=2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, testEnv(t, tc.env...), "api")
			for _, p := range hstsPaths {
				var body any
				if p.path == "/v1/users/register" {
					body = map[string]any{"email": uniqueEmail(), "password": strongPassword}
				}
				r := s.client().call(p.method, p.path, body, "Origin", "https://app.test", "Access-Control-Request-Method", "GET")
				if got := r.Header.Get("Strict-Transport-Security"); got != tc.want {
					t.Errorf("%s %s (%d): Strict-Transport-Security %q, want %q", p.method, p.path, r.Status, got, tc.want)
				}
			}
		})
	}
}
