package main

import (
	"fmt"
	"net/http"
	"testing"
)

// BenchmarkWebhookFanOut measures register and login through the real
// server with no webhook and with ten subscribed to every event (so each
// request's transaction also inserts ten deliveries). Only the API runs:
// what is measured is the request path, not the sending. Hashing is the
// tests' cheap setting so that the database's share shows. Run:
//
//	go test -run '^$' -bench WebhookFanOut -benchtime 3s ./server
func BenchmarkWebhookFanOut(b *testing.B) {
	for _, hooks := range []int{0, 10} {
		env := testEnv(b, "LOG_LEVEL=warn", "RATE_LIMIT_MAX=0", "AUTH_RATE_LIMIT_MAX=0", "OAUTH_INSECURE_HOSTS=127.0.0.1")
		s := startServer(b, env, "api")
		email := fmt.Sprintf("bench-hooks-%d@example.com", hooks)
		createAdmin(b, env, email)
		a, _ := adminLogin(b, s, email, "app")
		for i := range hooks {
			createWebhook(b, a, fmt.Sprintf("http://127.0.0.1:9/hook%d", i), "*")
		}
		b.Run(fmt.Sprintf("register/webhooks=%d", hooks), func(b *testing.B) {
			runParallel(b, s, func(c *client) {
				c.call(http.MethodPost, "/v1/users/register", map[string]any{"email": uniqueEmail(), "password": strongPassword}, "X-Client", "app")
			})
		})
		user := register(b, s.client(), "app")
		b.Run(fmt.Sprintf("login/webhooks=%d", hooks), func(b *testing.B) {
			runParallel(b, s, func(c *client) {
				c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": user.email, "password": strongPassword}, "X-Client", "app")
			})
		})
	}
}
